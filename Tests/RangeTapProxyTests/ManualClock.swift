@testable import RangeTapProxy
import RangeTapCore
import Synchronization

/// A clock a handler test sets by hand.
final class ManualClock: CaptureClock {
    private let t = Atomic<Int64>(0)

    func now() -> CaptureTime { t.load(ordering: .relaxed) }

    /// Moves the clock to `time`.
    func set(_ time: CaptureTime) { t.store(time, ordering: .relaxed) }
}
