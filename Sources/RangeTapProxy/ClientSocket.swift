#if canImport(Glibc)
import Glibc
#endif
import Synchronization

/// A duplicate of a client connection's socket descriptor, held beside NIO's own: the event
/// loop reads `TCP_INFO` through it after NIO closed its descriptor (``ClientWire``), and the
/// upstream thread may send a response head through it (``DirectHeadOffer``).
///
/// The descriptor is only used under the lock and closed under it, so a send never reaches a
/// descriptor number the process has meanwhile given to another file.
final class ClientSocket: Sendable {
    private let descriptor: Mutex<Int32>

    /// Takes ownership of `descriptor`, a duplicate the caller made.
    init(descriptor: Int32) {
        self.descriptor = Mutex(descriptor)
    }

    /// Runs `body` with the descriptor while it is open; nil once it was closed.
    func withDescriptor<R>(_ body: (Int32) -> R?) -> R? {
        descriptor.withLock { fd in fd >= 0 ? body(fd) : nil }
    }

    /// Sends as much of `bytes` as the socket takes now, never waiting: the count sent, 0 when
    /// the socket is closed, full, or failed (the event loop sees a failure on its own writes).
    /// No `SIGPIPE`: a client that left makes this return 0.
    func sendNow(_ bytes: [UInt8]) -> Int {
        withDescriptor { fd -> Int? in
            var sent = 0
            while sent < bytes.count {
                let n = bytes.withUnsafeBytes { send(fd, $0.baseAddress! + sent, $0.count - sent, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
                if n > 0 {
                    sent += n
                } else if n < 0 && errno == EINTR {
                    continue
                } else {
                    break
                }
            }
            return sent
        } ?? 0
    }

    /// Closes the descriptor; later calls find it closed.
    func close() {
        descriptor.withLock { fd in
            guard fd >= 0 else { return }
            _ = Glibc.close(fd)
            fd = -1
        }
    }

    deinit {
        close()
    }
}
