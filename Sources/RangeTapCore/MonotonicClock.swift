#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

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

    /// Nanoseconds elapsed since the clock's zero.
    @inline(__always)
    public func now() -> Int64 {
        Int64(bitPattern: Self.rawNow() &- origin)
    }

    /// The platform's monotonic clock in nanoseconds.
    @inline(__always)
    public static func rawNow() -> UInt64 {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return UInt64(ts.tv_sec) &* 1_000_000_000 &+ UInt64(ts.tv_nsec)
    }
}
