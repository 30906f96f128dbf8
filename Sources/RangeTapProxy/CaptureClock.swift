import RangeTapCore

/// The one clock every event of a recording is stamped with: the recording's
/// ``MonotonicClock``, or a clock a handler test moves by hand.
protocol CaptureClock: Sendable {
    /// Nanoseconds since the recording's start.
    func now() -> CaptureTime
}

extension MonotonicClock: CaptureClock {}
