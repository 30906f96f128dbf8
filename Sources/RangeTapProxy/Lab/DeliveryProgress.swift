import RangeTapCore

/// A shaped exchange's client-side progress, turned into `delivered` events at a bounded rate:
/// at most one every ``interval``, and the last count when the exchange settles.
struct DeliveryProgress {
    /// The least time between two events of one exchange.
    static let interval: CaptureTime = 50_000_000

    private(set) var bytes: Int64 = 0
    private var recorded: Int64 = 0
    private var recordedAt: CaptureTime = .min

    /// `n` more body bytes reached the socket at `now`: the event to record, if one is due.
    mutating func wrote(_ n: Int, exchange: Int, now: CaptureTime) -> DeliveredEvent? {
        bytes += Int64(n)
        guard now.subtractingSaturating(recordedAt) >= Self.interval else { return nil }
        return take(exchange: exchange, now: now)
    }

    /// The final count, unless already recorded.
    mutating func last(exchange: Int, now: CaptureTime) -> DeliveredEvent? {
        guard bytes > recorded else { return nil }
        return take(exchange: exchange, now: now)
    }

    private mutating func take(exchange: Int, now: CaptureTime) -> DeliveredEvent {
        recorded = bytes
        recordedAt = now
        return DeliveredEvent(t: now, exchange: exchange, bytes: bytes)
    }
}
