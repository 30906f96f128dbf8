import NIOHTTP2

/// One HTTP/2 client connection, shared by its connection-level handlers and its streams, all on
/// its event loop: the connection's id and request count, where each stream's DATA frames went
/// on the socket (``H2FrameLedger``: the measure of a stream's delivery), and what the client
/// granted back per stream with `WINDOW_UPDATE` (what it consumed, a second figure).
final class H2ConnectionState {
    /// The client connection's id.
    let connection: Int
    /// Requests seen on the connection (a CONNECT before the tunnel among them).
    var requests: Int
    /// The socket's send buffer.
    let sendBuffer: Int?
    /// The client socket's written and acknowledged byte counts.
    let wire: ClientWire
    /// Where each stream's DATA frames sit in the socket's byte stream.
    let ledger: H2FrameLedger
    /// Whether rangetap closed the connection (a protocol error), rather than the client.
    var closedByProxy = false
    /// Stream-level `WINDOW_UPDATE` increments received, by stream id, for open streams.
    private var grants: [Int: Int64] = [:]
    /// What to run when the connection closes, by stream: streams whose last frame is written and
    /// that wait for the client's TCP to acknowledge it settle then, at once.
    private var onClose: [Int: () -> Void] = [:]

    /// The part of the body budget the connection's streams share.
    let share: ConnectionShare

    init(_ inherited: ClientSession.Inherited, wire: ClientWire, share: Int) {
        self.share = ConnectionShare(limit: share)
        self.wire = wire
        ledger = H2FrameLedger(wire: wire)
        connection = inherited.connection
        requests = inherited.requests
        sendBuffer = inherited.sendBuffer
    }

    /// Notes a `WINDOW_UPDATE` for `stream`.
    func granted(_ increment: Int, stream: Int) {
        grants[stream, default: 0] += Int64(increment)
    }

    /// Bytes the client granted back on `stream` so far.
    func granted(stream: Int) -> Int64 { grants[stream] ?? 0 }

    /// Forgets a closed stream.
    func closed(stream: Int) {
        grants[stream] = nil
        ledger.closed(stream: stream)
        onClose[stream] = nil
    }

    /// Runs `body` when the connection closes (unless `stream` is forgotten first).
    func whenConnectionCloses(stream: Int, _ body: @escaping () -> Void) {
        onClose[stream] = body
    }

    /// The connection closed: runs what streams asked for, in stream order.
    func connectionClosed() {
        let pending = onClose.sorted { $0.key < $1.key }.map(\.value)
        onClose = [:]
        for body in pending { body() }
    }
}

@available(*, unavailable)
extension H2ConnectionState: Sendable {}

extension HTTP2StreamID {
    /// The id as an `Int`.
    var number: Int { Int(Int32(self)) }
}
