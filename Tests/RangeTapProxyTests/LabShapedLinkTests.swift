import RangeTapCore
import RangeTapProxy
import RangeTapTestSupport
import Testing

private let ms: Int64 = 1_000_000
private let second: Int64 = 1_000_000_000

/// A spec from its text form, with an optional trace.
private func spec(_ text: String, trace: String? = nil) throws -> ShapeSpec {
    let spec = try ShapeSpec(parsing: text)
    guard let trace else { return spec }
    return try spec.withTrace(try MahimahiTrace(parsing: trace, name: "test.trace"), name: "test.trace")
}

/// A straightforward model of a trace-driven link: walks the opportunities one at a time.
private struct ReferenceTraceLink {
    let times: [Int64]
    var next = 0  // global index of the next unused opportunity
    var rest: Int64 = 0
    var restNs: Int64 = 0
    var busy: Int64 = 0

    func at(_ k: Int) -> Int64 { (Int64(k / times.count) * times[times.count - 1] + times[k % times.count]) * ms }

    mutating func departure(bytes: Int64, nowNs: Int64) -> Int64 {
        var left = bytes
        if rest > 0 && nowNs <= restNs {
            let used = min(left, rest)
            rest -= used
            left -= used
            if left == 0 { return restNs }
        }
        rest = 0
        while at(next) < max(nowNs, busy) { next += 1 }
        var last: Int64 = 0
        while left > 0 {
            last = at(next)
            next += 1
            left -= 1500
        }
        rest = -left
        restNs = last
        busy = last
        return last
    }
}

@Suite("Lab: shaped link departures")
struct LabShapedLinkTests {
    // MARK: Rate

    @Test func tenMegabytesAtEightMegabitLeaveAfterTenSeconds() throws {
        let link = ShapedLink(spec: try spec("rate=8mbit"), startNs: 0, seed: 1)
        #expect(link.sliceBytes == 5000)
        var left = 10_000_000
        var last: Int64 = 0
        var previous: Int64 = 0
        while left > 0 {
            let slice = min(left, link.sliceBytes)
            last = link.departure(bytes: slice, nowNs: 0)
            #expect(last > previous)
            previous = last
            left -= slice
        }
        #expect(abs(Double(last) - 10e9) <= 10e9 * 0.001)
    }

    @Test func theRateIsAFIFOThatIdlesWhenNothingIsQueued() throws {
        let link = ShapedLink(spec: try spec("rate=8mbit"), startNs: 0, seed: 1)
        // 1000 bytes at 8 Mbit/s take 1 ms.
        #expect(link.departure(bytes: 1000, nowNs: 0) == 1 * ms)
        #expect(link.departure(bytes: 1000, nowNs: 0) == 2 * ms)
        #expect(link.departure(bytes: 2000, nowNs: ms / 2) == 4 * ms)
        // After an idle gap the link starts from now, not from where it was free.
        #expect(link.departure(bytes: 1000, nowNs: 100 * ms) == 101 * ms)
        #expect(link.departure(bytes: 0, nowNs: 100 * ms) == 101 * ms)
    }

    @Test func concurrentCallersShareTheCapacity() async throws {
        let link = ShapedLink(spec: try spec("rate=8mbit"), startNs: 0, seed: 1)
        let departures = await withTaskGroup(of: Int64.self) { group in
            for _ in 0..<100 {
                group.addTask { link.departure(bytes: 10_000, nowNs: 0) }
            }
            var all: [Int64] = []
            for await d in group { all.append(d) }
            return all
        }
        // 100 × 10 kB = 1 MB = 8 Mbit: one second, each caller 10 ms after the one before.
        #expect(departures.sorted() == (1...100).map { Int64($0) * 10 * ms })
    }

    @Test(arguments: [
        ("rate=100kbit", 1460), ("rate=8mbit", 5000), ("rate=100mbit", 62_500), ("rate=1gbit", 65_536),
        ("latency=10ms", Int.max), ("off", Int.max),
    ])
    func slicesAreAboutFiveMillisecondsOfTheRate(text: String, bytes: Int) throws {
        #expect(ShapedLink(spec: try spec(text), startNs: 0, seed: 1).sliceBytes == bytes)
    }

    // MARK: Latency and jitter

    @Test func latencyAloneDelaysEveryDeparture() throws {
        let link = ShapedLink(spec: try spec("latency=80ms"), startNs: 0, seed: 1)
        #expect(link.departure(bytes: 1_000_000, nowNs: 5 * ms) == 85 * ms)
        #expect(link.departure(bytes: 1, nowNs: 5 * ms) == 85 * ms)
        let off = ShapedLink(spec: ShapeSpec(), startNs: 0, seed: 1)
        #expect(off.departure(bytes: 1_000_000, nowNs: 7) == 7)
        #expect(off.departure(bytes: 10, nowNs: -5) == 0)
    }

    @Test func jitterStaysWithinItsBoundsAndIsSeeded() throws {
        let shaping = try spec("latency=80ms,jitter=10ms")
        let link = ShapedLink(spec: shaping, startNs: 0, seed: 42)
        let now = 3 * second
        let delays = (0..<2000).map { _ in link.departure(bytes: 100, nowNs: now) - now }
        #expect(delays.allSatisfy { (70 * ms...90 * ms).contains($0) })
        // Uniform over 20 ms: 2000 samples reach within 1 ms of both ends.
        #expect(delays.min()! < 71 * ms)
        #expect(delays.max()! > 89 * ms)
        #expect(Set(delays).count > 1900)

        let same = ShapedLink(spec: shaping, startNs: 0, seed: 42)
        #expect((0..<2000).map { _ in same.departure(bytes: 100, nowNs: now) - now } == delays)
        let other = ShapedLink(spec: shaping, startNs: 0, seed: 43)
        #expect((0..<2000).map { _ in other.departure(bytes: 100, nowNs: now) - now } != delays)
    }

    @Test func jitterLargerThanTheLatencyNeverLeavesBeforeTheLinkHasCarried() throws {
        let link = ShapedLink(spec: try spec("rate=8mbit,latency=5ms,jitter=20ms"), startNs: 0, seed: 7)
        var carried: Int64 = 0
        var early = 0
        for _ in 0..<500 {
            carried += ms  // 1000 bytes at 8 Mbit/s
            let d = link.departure(bytes: 1000, nowNs: 0)
            #expect(d >= carried && d <= carried + 25 * ms)
            if d == carried { early += 1 }
        }
        // Samples below -5 ms (15 of 40 ms) are held at the carried time.
        #expect(early > 100)
    }

    // MARK: Traces

    @Test func aTraceCarriesItsPacketsThenRepeatsAfterItsLastTimestamp() throws {
        let link = ShapedLink(spec: try spec("scope=link", trace: "1\n1\n2"), startNs: 0, seed: 1)
        #expect(link.departure(bytes: 4500, nowNs: 0) == 2 * ms)
        #expect(link.departure(bytes: 1, nowNs: 0) == 3 * ms)
        #expect(link.departure(bytes: 1499, nowNs: 0) == 3 * ms)
        #expect(link.departure(bytes: 1501, nowNs: 0) == 4 * ms)
        #expect(link.departure(bytes: 1499, nowNs: 0) == 4 * ms)
        // Repetition 2 starts at 4 ms: opportunities at 5, 5, 6.
        #expect(link.departure(bytes: 1, nowNs: 0) == 5 * ms)
    }

    @Test func aPartlyUsedPacketCarriesTheNextCallsBytes() throws {
        let link = ShapedLink(spec: try spec("scope=link", trace: "1\n1\n2"), startNs: 0, seed: 1)
        #expect(link.departure(bytes: 1000, nowNs: 0) == 1 * ms)
        #expect(link.departure(bytes: 1000, nowNs: 0) == 1 * ms)  // 500 + 500 of the second packet
        #expect(link.departure(bytes: 1000, nowNs: ms) == 1 * ms)  // the second packet's last 1000
        #expect(link.departure(bytes: 1, nowNs: 0) == 2 * ms)
    }

    @Test func opportunitiesThatPassWithNothingQueuedAreLost() throws {
        let link = ShapedLink(spec: try spec("scope=link", trace: "1\n1\n2"), startNs: 0, seed: 1)
        #expect(link.departure(bytes: 1000, nowNs: 0) == 1 * ms)
        // The packet at 1 ms left with 500 bytes unused; at 1.5 ms they are gone.
        #expect(link.departure(bytes: 400, nowNs: ms + ms / 2) == 2 * ms)
        // Idle until 10.5 ms: repetition 5 (10 ms) has opportunities at 11, 11 and 12.
        #expect(link.departure(bytes: 1500, nowNs: 10 * ms + ms / 2) == 11 * ms)
        #expect(link.departure(bytes: 1500, nowNs: 10 * ms + ms / 2) == 11 * ms)
        #expect(link.departure(bytes: 1500, nowNs: 10 * ms + ms / 2) == 12 * ms)
        // An hour later: the opportunity at exactly now is still usable.
        let hour = 3600 * second
        #expect(link.departure(bytes: 3000, nowNs: hour + ms) == hour + ms)
        #expect(link.departure(bytes: 1, nowNs: hour + ms) == hour + 2 * ms)
    }

    @Test func aLargeWriteSkipsWholeRepetitions() throws {
        let link = ShapedLink(spec: try spec("scope=link", trace: "1\n1\n2"), startNs: 0, seed: 1)
        // 3001 packets: 1000 whole repetitions (2 ms each), then the first opportunity of the next.
        #expect(link.departure(bytes: 3001 * 1500, nowNs: 0) == 2001 * ms)
    }

    @Test func traceTimeZeroIsTheStartAndLatencyIsAdded() throws {
        let link = ShapedLink(spec: try spec("latency=40ms", trace: "0\n10"), startNs: 5 * second, seed: 1)
        #expect(link.departure(bytes: 1500, nowNs: 5 * second) == 5 * second + 40 * ms)
        #expect(link.departure(bytes: 1500, nowNs: 5 * second) == 5 * second + 50 * ms)
        // Repetition 1 starts at 10 ms: opportunities at 10 and 20.
        #expect(link.departure(bytes: 1500, nowNs: 5 * second) == 5 * second + 50 * ms)
        #expect(link.departure(bytes: 1500, nowNs: 5 * second) == 5 * second + 60 * ms)
    }

    @Test(arguments: [UInt64(1), 2, 3, 4, 5])
    func traceSchedulingAgreesWithAPacketByPacketModel(seed: UInt64) throws {
        let text = "0\n2\n2\n2\n3\n7\n7\n9\n15"
        let link = ShapedLink(spec: try spec("scope=link", trace: text), startNs: 0, seed: 1)
        var model = ReferenceTraceLink(times: [0, 2, 2, 2, 3, 7, 7, 9, 15])
        var random = SeededGenerator(seed: seed)
        var now: Int64 = 0
        for _ in 0..<3000 {
            now += Int64.random(in: 0...(3 * ms), using: &random)
            let bytes = Int.random(in: 1...(Bool.random(using: &random) ? 2000 : 40_000), using: &random)
            #expect(link.departure(bytes: bytes, nowNs: now) == model.departure(bytes: Int64(bytes), nowNs: now))
        }
    }

    // MARK: Changes while running

    @Test func aRateDropAppliesToLaterBytesOnly() throws {
        let link = ShapedLink(spec: try spec("rate=8mbit"), startNs: 0, seed: 1)
        #expect(link.departure(bytes: 1_000_000, nowNs: 0) == second)
        link.update(try spec("rate=800kbit,latency=30ms"), nowNs: second / 2)
        #expect(link.spec.rateBitsPerSecond == 800_000)
        // Queued behind the first megabyte, then 1000 bytes at 800 kbit/s (10 ms), then latency.
        #expect(link.departure(bytes: 1000, nowNs: second / 2) == second + 10 * ms + 30 * ms)
        #expect(link.sliceBytes == 1460)
    }

    @Test func aNewTraceStartsWhenItIsSetAndTheSameTraceKeepsItsPlace() throws {
        let link = ShapedLink(spec: ShapeSpec(), startNs: 0, seed: 1)
        let traced = try spec("scope=link", trace: "1\n1\n2")
        link.update(traced, nowNs: 5 * ms)
        #expect(link.departure(bytes: 1500, nowNs: 5 * ms) == 6 * ms)
        // Only the latency changes: the trace goes on where it was.
        var slower = traced
        slower.latencyNs = 10 * ms
        link.update(slower, nowNs: 5 * ms)
        #expect(link.departure(bytes: 1500, nowNs: 5 * ms) == 16 * ms)
        #expect(link.departure(bytes: 1500, nowNs: 5 * ms) == 17 * ms)
        // A different trace restarts at the update's time, after what is already queued.
        link.update(try spec("scope=link", trace: "3\n4"), nowNs: 6 * ms)
        #expect(link.departure(bytes: 1500, nowNs: 6 * ms) == 9 * ms)
    }

    @Test func switchingFromARateToATraceKeepsTheQueue() throws {
        let link = ShapedLink(spec: try spec("rate=8mbit"), startNs: 0, seed: 1)
        #expect(link.departure(bytes: 100_000, nowNs: 0) == 100 * ms)
        link.update(try spec("scope=link", trace: "1\n2"), nowNs: 0)
        // The trace starts at 0, but its opportunities before 100 ms are behind queued bytes.
        #expect(link.departure(bytes: 1500, nowNs: 0) == 100 * ms)
        #expect(link.departure(bytes: 1500, nowNs: 0) == 101 * ms)
    }
}
