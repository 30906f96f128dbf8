import Synchronization

/// Bounds the body bytes of one exchange that are read from upstream but not yet accepted by
/// the client's socket.
///
/// The upstream thread asks ``admit(_:)`` before handing a chunk to the event loop; when the
/// window is full it pauses the libcurl transfer (`CURL_WRITEFUNC_PAUSE`). The event loop calls
/// ``complete(_:)`` as each write finishes and resumes the transfer when the window drains to
/// the low mark. Exactly one side wins the `paused` flag, so a resume is never lost or doubled.
final class FlowControl: Sendable {
    /// Pause above this many bytes in flight.
    let highWater: Int
    /// Resume at or below this many.
    let lowWater: Int
    private let inFlight = Atomic<Int>(0)
    private let paused = Atomic<Bool>(false)

    init(highWater: Int, lowWater: Int) {
        precondition(lowWater < highWater)
        self.highWater = highWater
        self.lowWater = lowWater
    }

    /// Upstream thread: may `n` more bytes go to the client now? `false` means pause and wait
    /// for the event loop to resume the transfer.
    func admit(_ n: Int) -> Bool {
        if inFlight.load(ordering: .acquiring) < highWater {
            inFlight.add(n, ordering: .acquiringAndReleasing)
            return true
        }
        paused.store(true, ordering: .sequentiallyConsistent)
        // The event loop may have drained the window between the check and the store.
        if inFlight.load(ordering: .sequentiallyConsistent) <= lowWater,
           paused.compareExchange(expected: true, desired: false, ordering: .sequentiallyConsistent).exchanged {
            inFlight.add(n, ordering: .acquiringAndReleasing)
            return true
        }
        return false
    }

    /// Upstream thread: `n` bytes go to the client whatever the window, because libcurl holds
    /// them in memory already (what it kept while the transfer was paused): pausing again would
    /// not keep them out of memory, only make libcurl copy them once more.
    func admitHeld(_ n: Int) {
        inFlight.add(n, ordering: .acquiringAndReleasing)
    }

    /// Event loop: `n` bytes were written to the client socket (or dropped). Returns true when
    /// the caller must resume the paused upstream transfer.
    func complete(_ n: Int) -> Bool {
        let now = inFlight.subtract(n, ordering: .sequentiallyConsistent).newValue
        guard now <= lowWater else { return false }
        return paused.compareExchange(expected: true, desired: false, ordering: .sequentiallyConsistent).exchanged
    }

    /// Bytes currently in flight.
    var bytesInFlight: Int { inFlight.load(ordering: .relaxed) }
    /// Whether the upstream is paused waiting for the client.
    var isPaused: Bool { paused.load(ordering: .relaxed) }
}
