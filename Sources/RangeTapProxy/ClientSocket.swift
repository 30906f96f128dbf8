import NIOCore
import Synchronization
import RangeTapSystem

/// A duplicate of a client connection's socket descriptor, held beside NIO's own so the event
/// loop can read the acknowledged bytes after NIO closed its descriptor (``ClientWire``): a close that NIO
/// sees only through a failed write leaves no moment to read it before.
///
/// The duplicate is made through NIO's public transport access
/// (`withUnsafeTransportIfAvailable`), on the event loop, while the channel is open. It is only
/// read (`getsockopt`), never written to, and closed when the channel goes inactive.
final class ClientSocket: Sendable {
    private let descriptor: Mutex<Int32>

    /// Takes ownership of `descriptor`, a duplicate the caller made.
    init(descriptor: Int32) {
        self.descriptor = Mutex(descriptor)
    }

    /// A duplicate of `channel`'s socket, made on its event loop; nil for a channel without one
    /// (an `EmbeddedChannel`, a stream of an HTTP/2 connection) or when `dup` fails.
    static func duplicating(_ channel: any Channel) -> ClientSocket? {
        let fd = try? channel.pipeline.syncOperations.withUnsafeTransportIfAvailable(of: NIOBSDSocket.Handle.self) {
            handle in
            System.duplicate(handle)
        }
        guard let fd, let fd else { return nil }
        return ClientSocket(descriptor: fd)
    }

    /// Runs `body` with the descriptor while it is open; nil once it was closed.
    func withDescriptor<R>(_ body: (Int32) -> R?) -> R? {
        descriptor.withLock { fd in fd >= 0 ? body(fd) : nil }
    }

    /// Closes the descriptor; later calls find it closed.
    func close() {
        descriptor.withLock { fd in
            guard fd >= 0 else { return }
            System.close(fd)
            fd = -1
        }
    }

    deinit {
        close()
    }
}
