import NIOCore
import RangeTapCore
import RangeTapSystem

/// The client socket as TCP sees it, on the connection's event loop: bytes the pipeline handed
/// to the socket, and bytes the client's TCP stack acknowledged (``System/tcpBytesAcknowledged(_:)``).
///
/// ``ClientWireHandler`` counts writes and takes the exact reading when the client's close or
/// reset is seen on a read, before NIO closes the socket; ``ProxyHandler`` refreshes the
/// reading as writes complete, which is all there is when a close is only seen by a failed write.
final class ClientWire {
    /// Bytes written to the socket so far (heads, body and chunk framing).
    private(set) var written: Int64 = 0
    /// The last reading of acknowledged bytes, and whether it was taken at the close.
    private(set) var acked: (bytes: Int64, atClose: Bool)?
    /// Whether there are no acknowledged bytes to read: the platform gives none, or the channel is no
    /// socket (an `EmbeddedChannel` in the handler tests). Delivery is then what the writes say.
    private(set) var unavailable = false

    /// A duplicate of the socket's descriptor, held so the acknowledged bytes can be read after NIO
    /// closed its own (the socket lives until both are closed); nil when it could not be had.
    private(set) var socket: ClientSocket?

    /// Whether a duplicate of the descriptor is held: then the reading at the close is exact
    /// and readings before each flush are not needed.
    var holdsDescriptor: Bool { socket != nil }

    /// Counts `n` more bytes handed to the socket.
    func wrote(_ n: Int) { written += Int64(n) }

    /// Channel active: holds a duplicate of the socket so the close can be measured whichever
    /// way NIO sees it (a read, a failed write, a hang-up), after NIO closed its descriptor.
    func hold(_ channel: any Channel) {
        guard socket == nil else { return }
        socket = ClientSocket.duplicating(channel)
        if socket == nil && !(channel is any SocketOptionProvider) { unavailable = true }
    }

    /// Channel inactive: the final reading from the held descriptor (unless one was already
    /// taken at the close), then lets it go.
    func release() {
        guard let socket else { return }
        defer {
            socket.close()
            self.socket = nil
        }
        guard acked?.atClose != true else { return }
        if let bytes = socket.withDescriptor(System.tcpBytesAcknowledged) { acked = (bytes, true) }
    }

    /// Reads the acknowledged bytes now, with one `getsockopt(2)`: from the held descriptor, else
    /// from NIO's own while the channel is open. `atClose` marks the reading taken when the close
    /// was seen: later reads cannot change it. On the event loop.
    func refresh(_ channel: any Channel, atClose: Bool = false) {
        if acked?.atClose == true { return }
        guard System.tellsAcknowledgedBytes else {
            unavailable = true
            return
        }
        if let socket {
            // Every settling check and write completion comes here: no future, no closure.
            if let bytes = socket.withDescriptor(System.tcpBytesAcknowledged) { acked = (bytes, atClose) }
            return
        }
        guard channel is any SocketOptionProvider, channel.isActive else { return }
        let reading = try? channel.pipeline.syncOperations.withUnsafeTransportIfAvailable(
            of: NIOBSDSocket.Handle.self, System.tcpBytesAcknowledged)
        if let reading, let bytes = reading { acked = (bytes, atClose) }
    }
}

@available(*, unavailable)
extension ClientWire: Sendable {}
