import RangeTapCore
import RangeTapProxy
import Testing

/// `tools/traces/NAME` in this repository.
private func shippedTrace(_ name: String) -> String {
    var parts = "\(#filePath)".split(separator: "/", omittingEmptySubsequences: false)
    parts.removeLast(3)  // Tests/RangeTapCoreTests/<this file>
    return parts.joined(separator: "/") + "/tools/traces/" + name
}

/// The rate `trace` carries between `fromMs` (included) and `toMs` (excluded), in bits per second.
private func rate(_ trace: MahimahiTrace, fromMs: Int64, toMs: Int64) -> Double {
    let packets = trace.opportunitiesMs.filter { $0 >= fromMs && $0 < toMs }.count
    return Double(packets * 1500 * 8) * 1000 / Double(toMs - fromMs)
}

/// Whether `value` is within `tolerance` (a fraction) of `expected`.
private func near(_ value: Double, _ expected: Double, tolerance: Double = 0.05) -> Bool {
    abs(value - expected) <= expected * tolerance
}

@Suite("Lab: the traces shipped in tools/traces")
struct LabShippedTraceTests {
    @Test func steadyFourMegabitCarriesFourMegabit() throws {
        let trace = try MahimahiTrace.load(path: shippedTrace("steady-4mbit.trace"))
        #expect(near(trace.averageBitsPerSecond, 4_000_000))
        #expect(near(rate(trace, fromMs: 0, toMs: 1000), 4_000_000))
        // Driven through a link: 10 s of 4 Mbit/s carry 5 MB.
        let link = ShapedLink(spec: try ShapeSpec().withTrace(trace, name: "steady-4mbit.trace"), startNs: 0, seed: 1)
        #expect(link.sliceBytes == 2500)
        var last: Int64 = 0
        for _ in 0..<2000 { last = link.departure(bytes: 2500, nowNs: 0) }
        #expect(near(Double(last), 10e9, tolerance: 0.001))
    }

    @Test func theDropTraceFallsFromFifteenHundredToThreeHundredKilobitAndRecovers() throws {
        let trace = try MahimahiTrace.load(path: shippedTrace("drop-1500kbit-300kbit.trace"))
        #expect(trace.periodMs == 12_000)
        #expect(near(rate(trace, fromMs: 0, toMs: 4000), 1_500_000))
        #expect(near(rate(trace, fromMs: 4000, toMs: 8000), 300_000))
        #expect(near(rate(trace, fromMs: 8000, toMs: 12_000), 1_500_000))
        #expect(near(trace.averageBitsPerSecond, 1_100_000))
    }
}
