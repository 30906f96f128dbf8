import Synchronization

/// The body bytes rangetap holds on behalf of its clients, across every exchange of the
/// process: response bytes read from upstream and not yet taken by a client's socket, and
/// request bytes read from a client and not yet taken by libcurl. Each exchange's
/// ``FlowControl`` charges its bytes here; an exchange that finds the budget spent pauses its
/// upstream transfer (or stops reading its client) and waits in line, and exchanges are woken
/// in the order they waited as bytes drain.
///
/// Why: a window per exchange alone let 500 HTTP/2 streams that a client never read hold
/// 1.4 MiB each (748 MiB) with nothing across streams or connections; the budget caps the total,
/// and ``ConnectionShare`` the part one connection's streams may take of it.
final class BodyBudget: Sendable {
    /// Bytes that may be held at once. Exceeded by at most one read per exchange: an exchange
    /// with nothing in flight may always send one on (``FlowControl``), so a spent budget slows
    /// clients that read but never stalls them.
    let limit: Int
    private let used = Atomic<Int>(0)
    private let waiting = Mutex<[FlowControl]>([])
    private let waiters = Atomic<Int>(0)

    /// A budget of `limit` bytes.
    init(limit: Int) {
        precondition(limit > 0)
        self.limit = limit
    }

    /// Bytes held now.
    var bytesHeld: Int { used.load(ordering: .relaxed) }
    /// Whether more may be taken.
    var hasRoom: Bool { used.load(ordering: .sequentiallyConsistent) < limit }
    /// Exchanges waiting for room.
    var waitingCount: Int { waiters.load(ordering: .relaxed) }

    /// Takes `n` bytes when there is room, else nothing (`false`).
    func take(_ n: Int) -> Bool {
        guard used.load(ordering: .acquiring) < limit else { return false }
        used.add(n, ordering: .acquiringAndReleasing)
        return true
    }

    /// Takes `n` bytes whatever the room: bytes that are in memory already.
    func force(_ n: Int) {
        used.add(n, ordering: .acquiringAndReleasing)
    }

    /// Gives `n` bytes back, and wakes the exchanges first in line while there is room: one per
    /// quarter of the room, at least one.
    func give(_ n: Int) {
        let now = used.subtract(n, ordering: .sequentiallyConsistent).newValue
        guard waiters.load(ordering: .sequentiallyConsistent) > 0, now < limit else { return }
        let count = max(1, (limit - now) / max(1, limit / 4))
        let woken: [FlowControl] = waiting.withLock { line in
            let k = min(count, line.count)
            let first = Array(line.prefix(k))
            line.removeFirst(k)
            waiters.subtract(k, ordering: .sequentiallyConsistent)
            return first
        }
        for flow in woken { flow.wake() }
    }

    /// Puts `flow` in line for room (once: ``FlowControl`` calls this only while it is paused
    /// and not already waiting).
    func wait(_ flow: FlowControl) {
        waiting.withLock { line in
            line.append(flow)
            waiters.add(1, ordering: .sequentiallyConsistent)
        }
    }

    /// Takes `flow` out of the line (its exchange ended).
    func leave(_ flow: FlowControl) {
        waiting.withLock { line in
            if let i = line.firstIndex(where: { $0 === flow }) {
                line.remove(at: i)
                waiters.subtract(1, ordering: .sequentiallyConsistent)
            }
        }
    }
}

/// What the exchanges of one client connection may hold together: each gets a window of the
/// share divided by the exchanges open on the connection (at most its own window), so streams a
/// client stopped reading cannot take the room its other streams need.
final class ConnectionShare: Sendable {
    /// Bytes the connection's exchanges may hold together.
    let limit: Int
    private let open = Atomic<Int>(0)

    /// A share of `limit` bytes.
    init(limit: Int) {
        precondition(limit > 0)
        self.limit = limit
    }

    /// Exchanges open on the connection.
    var openExchanges: Int { open.load(ordering: .relaxed) }

    func join() { open.add(1, ordering: .relaxed) }
    func leave() { open.subtract(1, ordering: .relaxed) }

    /// The window of each exchange, at most `highWater`, at least `floor`.
    func window(highWater: Int, floor: Int) -> Int {
        let n = max(1, open.load(ordering: .relaxed))
        return max(floor, min(highWater, limit / n))
    }
}
