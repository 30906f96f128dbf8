import Foundation
@testable import RangeTapProxy
import Synchronization
import Testing

/// Counts the wakes a flow's handler received.
private final class WakeCount: Sendable {
    let count = Atomic<Int>(0)
}

@Suite("BodyBudget")
struct BodyBudgetTests {
    @Test func aSpentBudgetLetsAnExchangeOneReadThenPausesItUntilAnotherDrains() {
        let budget = BodyBudget(limit: 100)
        let a = FlowControl(highWater: 1000, lowWater: 200, budget: budget)
        let b = FlowControl(highWater: 1000, lowWater: 200, budget: budget)
        let woken = WakeCount()
        b.onWake { woken.count.add(1, ordering: .relaxed) }
        #expect(a.admit(60))
        #expect(a.admit(60))  // 60 < 100: admitted, the budget overshoots by one chunk
        #expect(budget.bytesHeld == 120)
        #expect(
            b.admit(10),
            "b has nothing in flight: one read goes whatever the budget, so a spent budget never stalls a reader")
        #expect(!b.admit(10), "a second read waits for room")
        #expect(b.isPaused && budget.waitingCount == 1)
        #expect(!a.complete(10), "120: still no room")
        #expect(woken.count.load(ordering: .relaxed) == 0)
        #expect(!a.complete(50), "a was never paused; its completion wakes b")
        #expect(woken.count.load(ordering: .relaxed) == 1 && !b.isPaused && budget.waitingCount == 0)
        #expect(b.admit(10))
        #expect(budget.bytesHeld == 80)
    }

    @Test func aDrainedWindowWaitsForTheBudgetAndResumesOnce() {
        let budget = BodyBudget(limit: 100)
        let a = FlowControl(highWater: 50, lowWater: 10, budget: budget)
        let other = FlowControl(highWater: 1000, lowWater: 10, budget: budget)
        let woken = WakeCount()
        a.onWake { woken.count.add(1, ordering: .relaxed) }
        #expect(a.admit(60))
        #expect(!a.admit(10), "a's own window is full")
        #expect(other.admit(100))  // 60 < 100
        #expect(!a.complete(55), "a drained to 5, but the budget (105) has no room: it waits in line")
        #expect(a.isPaused && budget.waitingCount == 1)
        #expect(!other.complete(100), "the budget's give wakes a; its own completion does not resume it")
        #expect(woken.count.load(ordering: .relaxed) == 1 && !a.isPaused)
        #expect(!a.complete(5), "not paused any more: no second resume")
        #expect(woken.count.load(ordering: .relaxed) == 1)
        #expect(budget.bytesHeld == 0)
    }

    @Test func aClosedExchangeGivesItsBytesBackAndLeavesTheLine() {
        let budget = BodyBudget(limit: 100)
        let a = FlowControl(highWater: 1000, lowWater: 10, budget: budget)
        let b = FlowControl(highWater: 1000, lowWater: 10, budget: budget)
        let c = FlowControl(highWater: 1000, lowWater: 10, budget: budget)
        let woken = WakeCount()
        c.onWake { woken.count.add(1, ordering: .relaxed) }
        #expect(a.admit(150))
        #expect(b.admit(1) && c.admit(1), "one read each whatever the budget")
        #expect(!b.admit(1) && !c.admit(1))
        #expect(budget.waitingCount == 2)
        b.close()
        #expect(budget.waitingCount == 1 && budget.bytesHeld == 151)
        a.close()  // its 150 bytes never completed (a client gone): they come back, and c is woken
        #expect(budget.bytesHeld == 1 && budget.waitingCount == 0)
        #expect(woken.count.load(ordering: .relaxed) == 1)
        a.close()
        #expect(budget.bytesHeld == 1, "closing twice gives nothing twice")
        c.close()
        #expect(budget.bytesHeld == 0)
    }

    @Test func aConnectionShareNarrowsEachExchangesWindow() {
        let share = ConnectionShare(limit: 512 * 1024)
        let flows = (0..<4).map { _ in FlowControl(highWater: 1 << 20, lowWater: 256 << 10, share: share) }
        #expect(share.openExchanges == 4)
        #expect(flows[0].admit(130 * 1024))
        #expect(!flows[0].admit(1), "512 KiB over 4 exchanges: a window of 128 KiB")
        for f in flows.dropFirst() { f.close() }
        #expect(share.openExchanges == 1)
        #expect(flows[0].complete(130 * 1024 - 1), "alone again: the window is the exchange's own")
        #expect(share.window(highWater: 1 << 20, floor: FlowControl.smallestWindow) == 512 * 1024)
        let many = ConnectionShare(limit: 512 * 1024)
        for _ in 0..<100 { many.join() }
        #expect(many.window(highWater: 1 << 20, floor: FlowControl.smallestWindow) == FlowControl.smallestWindow)
    }

    /// Eight upstream threads against one event-loop thread, through a budget an eighth of their
    /// windows: every byte admitted is completed, every pause resumed (none lost: the threads
    /// would hang), and the budget ends empty.
    @Test(.timeLimit(.minutes(1)))
    func noWakeIsLostAcrossThreads() {
        let budget = BodyBudget(limit: 1000)
        let producers = 8
        let chunks = 4_000
        let done = Atomic<Int>(0)
        let queue = Mutex<[(FlowControl, Int)]>([])
        let flows = (0..<producers).map { _ in FlowControl(highWater: 1000, lowWater: 250, budget: budget) }
        let gates = (0..<producers).map { _ in DispatchSemaphore(value: 0) }
        for (i, f) in flows.enumerated() {
            let gate = gates[i]
            f.onWake { gate.signal() }
        }
        let consumer = Thread {
            while done.load(ordering: .acquiring) < producers || !queue.withLock({ $0.isEmpty }) {
                let batch = queue.withLock { q -> [(FlowControl, Int)] in
                    defer { q.removeAll() }
                    return q
                }
                for (f, n) in batch {
                    if f.complete(n), let i = flows.firstIndex(where: { $0 === f }) { gates[i].signal() }
                }
                if batch.isEmpty { usleep(50) }
            }
        }
        consumer.start()
        let finished = DispatchSemaphore(value: 0)
        for i in 0..<producers {
            let f = flows[i]
            let gate = gates[i]
            Thread {
                for k in 0..<chunks {
                    let n = 1 + (k &* 7919 &+ i) % 97
                    if !f.admit(n) {
                        gate.wait()
                        f.admitHeld(n)
                    }
                    queue.withLock { $0.append((f, n)) }
                }
                done.add(1, ordering: .releasing)
                finished.signal()
            }.start()
        }
        for _ in 0..<producers { finished.wait() }
        while !queue.withLock({ $0.isEmpty }) { usleep(1000) }
        usleep(10_000)
        #expect(budget.bytesHeld == 0)
        #expect(flows.allSatisfy { $0.bytesInFlight == 0 })
    }
}
