import Synchronization

/// Bounds the body bytes of one exchange that are read from upstream but not yet accepted by
/// the client's socket, within the process's ``BodyBudget`` and its connection's
/// ``ConnectionShare``.
///
/// The upstream thread asks ``admit(_:)`` before handing a chunk to the event loop; when the
/// window is full, or the budget spent, it pauses the libcurl transfer
/// (`CURL_WRITEFUNC_PAUSE`). The event loop calls ``complete(_:)`` as each write finishes and
/// resumes the transfer when the window drains to the low mark and the budget has room; an
/// exchange that waited for the budget is woken (``wake()``, from whichever exchange gave bytes
/// back) through the handler set with ``onWake(_:)``. Exactly one side wins the `paused` flag, so
/// a resume is never lost or doubled.
final class FlowControl: Sendable {
    /// Pause above this many bytes in flight (the most; a connection's share may make it less).
    let highWater: Int
    /// Resume at or below this many.
    let lowWater: Int
    /// The smallest window a connection's share leaves an exchange.
    static let smallestWindow = 64 * 1024
    private let budget: BodyBudget?
    private let share: ConnectionShare?
    private let inFlight = Atomic<Int>(0)
    private let paused = Atomic<Bool>(false)
    /// Whether the flow stands in the budget's line.
    private let queued = Atomic<Bool>(false)
    private let closed = Atomic<Bool>(false)
    private let wakeHandler = Mutex<(@Sendable () -> Void)?>(nil)

    /// A window of `highWater`/`lowWater` bytes, charged to `budget` (when given), narrowed by
    /// `share` (when given) to the connection's part.
    init(highWater: Int, lowWater: Int, budget: BodyBudget? = nil, share: ConnectionShare? = nil) {
        precondition(lowWater < highWater)
        self.highWater = highWater
        self.lowWater = lowWater
        self.budget = budget
        self.share = share
        share?.join()
    }

    /// What resumes the transfer when the budget wakes this flow (the upstream half's resume).
    func onWake(_ handler: @escaping @Sendable () -> Void) {
        wakeHandler.withLock { $0 = handler }
    }

    /// The window now and its low mark.
    private var marks: (high: Int, low: Int) {
        guard let share else { return (highWater, lowWater) }
        let high = share.window(highWater: highWater, floor: Self.smallestWindow)
        return high >= highWater ? (highWater, lowWater) : (high, high / 4)
    }

    /// Upstream thread: may `n` more bytes go to the client now? `false` means pause and wait
    /// for the event loop (or the budget) to resume the transfer.
    func admit(_ n: Int) -> Bool {
        let (high, low) = marks
        let now = inFlight.load(ordering: .acquiring)
        if now < high, charge(n, inFlight: now) {
            inFlight.add(n, ordering: .acquiringAndReleasing)
            return true
        }
        paused.store(true, ordering: .sequentiallyConsistent)
        // The event loop may have drained the window, or the budget room made, between the
        // check and the store; a window drained while the budget is spent waits in its line.
        let again = inFlight.load(ordering: .sequentiallyConsistent)
        if again <= low, claimResume(inFlight: again) {
            budget?.force(n)
            inFlight.add(n, ordering: .acquiringAndReleasing)
            return true
        }
        return false
    }

    /// Upstream thread: `n` bytes go to the client whatever the window, because libcurl holds
    /// them in memory already (what it kept while the transfer was paused): pausing again would
    /// not keep them out of memory, only make libcurl copy them once more.
    func admitHeld(_ n: Int) {
        budget?.force(n)
        inFlight.add(n, ordering: .acquiringAndReleasing)
    }

    /// Event loop: `n` bytes were written to the client socket (or dropped). Returns true when
    /// the caller must resume the paused upstream transfer.
    func complete(_ n: Int) -> Bool {
        let now = inFlight.subtract(n, ordering: .sequentiallyConsistent).newValue
        budget?.give(n)
        guard now <= marks.low, paused.load(ordering: .sequentiallyConsistent) else { return false }
        return claimResume(inFlight: now)
    }

    /// Charges `n` bytes to the budget when it has room, or whatever the room when the exchange
    /// has nothing in flight: each exchange may always have one read on its way, so a spent
    /// budget slows a client that reads but never stalls it (clients that stopped reading hold
    /// the rest). The budget may thus be exceeded by one read per exchange.
    private func charge(_ n: Int, inFlight now: Int) -> Bool {
        guard let budget else { return true }
        if budget.take(n) { return true }
        guard now == 0 else { return false }
        budget.force(n)
        return true
    }

    /// Whether the budget has room (or the exchange has nothing in flight); else (once) the flow
    /// joins its line.
    private func budgetAllows(inFlight now: Int) -> Bool {
        guard let budget else { return true }
        if budget.hasRoom || now == 0 { return true }
        if queued.compareExchange(expected: false, desired: true, ordering: .sequentiallyConsistent).exchanged {
            budget.wait(self)
        }
        // Room may have been made before the flow stood in line, by a give that saw no one.
        return budget.hasRoom
    }

    /// Takes the `paused` flag when the budget allows: the caller resumes the transfer.
    private func claimResume(inFlight now: Int) -> Bool {
        budgetAllows(inFlight: now)
            && paused.compareExchange(expected: true, desired: false, ordering: .sequentiallyConsistent).exchanged
    }

    /// Any thread: the budget made room for this flow, first in its line. Resumes the transfer
    /// when its own window has drained too (else its own completions will).
    func wake() {
        queued.store(false, ordering: .sequentiallyConsistent)
        let now = inFlight.load(ordering: .sequentiallyConsistent)
        guard !closed.load(ordering: .relaxed), now <= marks.low, claimResume(inFlight: now) else { return }
        wakeHandler.withLock { $0 }?()
    }

    /// The exchange is gone: what it still counted goes back to the budget, and it leaves the
    /// budget's line and its connection's share.
    func close() {
        guard closed.compareExchange(expected: false, desired: true, ordering: .sequentiallyConsistent).exchanged else {
            return
        }
        share?.leave()
        wakeHandler.withLock { $0 = nil }
        guard let budget else { return }
        budget.leave(self)
        let left = inFlight.exchange(0, ordering: .sequentiallyConsistent)
        if left != 0 { budget.give(left) }
    }

    /// Bytes currently in flight.
    var bytesInFlight: Int { inFlight.load(ordering: .relaxed) }
    /// Whether the upstream is paused waiting for the client.
    var isPaused: Bool { paused.load(ordering: .relaxed) }
}
