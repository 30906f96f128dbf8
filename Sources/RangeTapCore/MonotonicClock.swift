import RangeTapSystem

/// The one clock every capture event is stamped with: monotonic nanoseconds since the capture began.
///
/// Wall-clock time appears once, in the capture header, as the anchor for `t == 0`.
public struct MonotonicClock: Sendable {
    /// Raw monotonic nanoseconds at the capture's `t == 0`.
    public let origin: UInt64

    /// A clock whose zero is now.
    public init() {
        self.origin = Self.rawNow()
    }

    /// A clock whose zero is `origin` raw monotonic nanoseconds.
    public init(origin: UInt64) {
        self.origin = origin
    }

    /// A clock whose zero is now, and the wall-clock time of that zero in microseconds since
    /// the Unix epoch. The two clocks are read back to back (`clock_gettime` both, nothing in
    /// between); the wall time is the middle of two reads around the monotonic one.
    public static func anchoredToWallClock() -> (clock: MonotonicClock, wallMicros: Int64) {
        let b = System.wallClockNanoseconds()
        let origin = rawNow()
        let a = System.wallClockNanoseconds()
        return (MonotonicClock(origin: origin), (b + (a - b) / 2) / 1000)
    }

    /// Nanoseconds elapsed since the clock's zero.
    @inline(__always)
    public func now() -> Int64 {
        Int64(bitPattern: Self.rawNow() &- origin)
    }

    /// The platform's monotonic clock in nanoseconds.
    @inline(__always)
    public static func rawNow() -> UInt64 {
        System.monotonicNanoseconds()
    }
}
