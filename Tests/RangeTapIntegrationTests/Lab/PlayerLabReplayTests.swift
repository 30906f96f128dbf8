import Foundation
import RangeTapCore
import RangeTapProxy
import RangeTapTestSupport
import Testing

/// A capture made with `ignore-range` or `off-by-one` replayed into the seeds' caches: the
/// `prefix` cache (seed 001) files what it downloaded at the start of the range it asked for,
/// so a Range answered with the whole body breaks it and a shifted `Content-Range` does not;
/// the `sparse` cache trusts the response, so it is the other way round.
@Suite(.serialized)
struct PlayerLabReplayTests {
    /// What `rangetap replay --json` printed that these tests read.
    struct Report: Decodable {
        struct Mismatch: Decodable {
            var offset: Int64
            var exchange: Int
            var storedBy: String?
        }
        var verified: Bool
        var mismatches: [Mismatch]
        var bytesFromCache: Int64
        var bytesRequested: Int64
    }

    /// Records curl fetching `ranges` of a 64 KiB file from nginx one after another, through a
    /// proxy with `rule`; returns the capture's path.
    func record(rule: String, ranges: [String]) async throws -> String {
        let dir = Paths.temporaryDirectory("lab-replay")
        try Data((0..<65_536).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ $0 / 251) }).write(
            to: URL(fileURLWithPath: dir + "/seg.bin"))
        let nginx = try NginxServer(root: dir)
        defer { nginx.stop() }
        let parsed = try FaultRule(parsing: rule)
        let proxy = try await ProxyHarness { $0.faultRules = [parsed] }
        for range in ranges {
            let r = try runCommand(
                try Paths.tool("curl"),
                [
                    "-s", "--noproxy", "", "-x", proxy.url, "-r", range, "-o", "/dev/null", "-w", "%{http_code}",
                    nginx.url("seg.bin"),
                ])
            #expect(r.status == 0, "curl: \(r.stderr)")
        }
        let capture = try await proxy.stopAndRead()
        #expect(capture.events("fault").count == 1, "the rule fired once")
        return proxy.capturePath
    }

    func replay(_ capture: String, cache: String) throws -> (status: Int32, report: Report) {
        let r = try runCommand(Paths.rangetap, ["replay", capture, "--cache", cache, "--json"], timeout: 60)
        let report = try JSONDecoder().decode(Report.self, from: Data(r.text.utf8))
        return (r.status, report)
    }

    @Test func ignoreRangeBreaksThePrefixCacheAtTheRangeStartAndNotTheSparseOne() async throws {
        let capture = try await record(rule: "path=/seg.bin,nth=2,ignore-range", ranges: ["0-999", "1000-1999"])
        let prefix = try replay(capture, cache: "prefix")
        #expect(prefix.status == 1 && !prefix.report.verified)
        let m = try #require(prefix.report.mismatches.first)
        // The whole body (byte 0 on) was filed at 1000, where the second range started.
        #expect(m.offset == 1000, "\(prefix.report.mismatches)")
        #expect(
            m.storedBy?.contains("exchange 2") == true
                && m.storedBy?.contains("injected fault: path=/seg.bin,nth=2,ignore-range") == true,
            "\(m.storedBy ?? "nil")")
        let sparse = try replay(capture, cache: "sparse")
        #expect(sparse.status == 0 && sparse.report.verified, "\(sparse.report.mismatches)")
        #expect(sparse.report.bytesFromCache == sparse.report.bytesRequested)
    }

    @Test func offByOneLeavesThePrefixCacheExactAndBreaksTheSparseOne() async throws {
        // The second range overlaps the first, so the bytes filed one late are read back.
        let capture = try await record(rule: "path=/seg.bin,nth=2,off-by-one", ranges: ["0-999", "500-1499"])
        let prefix = try replay(capture, cache: "prefix")
        #expect(prefix.status == 0 && prefix.report.verified, "\(prefix.report.mismatches)")
        #expect(prefix.report.bytesFromCache == prefix.report.bytesRequested)
        let sparse = try replay(capture, cache: "sparse")
        #expect(sparse.status == 1 && !sparse.report.verified)
        let m = try #require(sparse.report.mismatches.first)
        #expect(m.offset == 501, "\(sparse.report.mismatches)")
        #expect(
            m.storedBy?.contains("injected fault: path=/seg.bin,nth=2,off-by-one") == true, "\(m.storedBy ?? "nil")")
    }
}
