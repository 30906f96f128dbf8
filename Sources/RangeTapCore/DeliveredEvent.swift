/// Progress of one exchange's body towards the client while the link is shaped: `bytes` body
/// bytes had been written to the client's socket by `t`.
///
/// Chunk events say when the origin delivered; these say when the shaped client got it. The
/// proxy writes them at a bounded rate (at most one per exchange every 50 ms, plus the last).
public struct DeliveredEvent: Sendable, Equatable {
    /// When the bytes had been written.
    public var t: CaptureTime
    /// Exchange id.
    public var exchange: Int
    /// Body bytes written to the client so far (cumulative).
    public var bytes: Int64

    /// Creates the event.
    public init(t: CaptureTime, exchange: Int, bytes: Int64) {
        self.t = t
        self.exchange = exchange
        self.bytes = bytes
    }
}
