/// A `pause` or `resume` of one exchange's upstream body (back-pressure from a slow client).
///
/// While paused, body bytes wait in the kernel between the origin and rangetap, so a chunk's
/// `t` after a resume is when rangetap read it, not when it arrived: analysis subtracts paused
/// time before judging the origin's pace.
public struct FlowEvent: Sendable, Equatable {
    /// When the proxy stopped (or resumed) reading.
    public var t: CaptureTime
    /// Exchange id.
    public var exchange: Int

    /// Creates the event.
    public init(t: CaptureTime, exchange: Int) {
        self.t = t
        self.exchange = exchange
    }
}
