import Foundation
import RangeTapProbe
import RangeTapTestSupport
import Testing

/// Python's http.server ignores Range and speaks HTTP/1.0: every range check fails with a
/// clear reason, nothing hangs, and no check downloads the whole file where it asked a range.
@Suite(.serialized)
struct PythonProbeTests {
    @Test func pythonHTTPServerFailsWithClearReasonsInBoundedTime() async throws {
        let size = 8 << 20
        let dir = try ProbeFixture.directory(file: "clip.mp4", size: size)
        let server = try PythonHTTPServer(root: dir)
        defer { server.stop() }
        let report = try await ProbeFixture.probe(server.url("clip.mp4"))
        // Bounded by bytes, not timed: the server answers every range with the whole 8 MiB; the
        // probe reads it whole only for the reference GET (whose evidence several checks show)
        // and cuts every other answer short.
        let evidence = report.checks.flatMap(\.evidence)
        let whole = evidence.filter { $0.bodyBytes >= Int64(size) }
        #expect(!whole.isEmpty && whole.allSatisfy { $0.label == "GET" }, "\(whole.map(\.label))")
        let others = evidence.filter { $0.label != "GET" }
        #expect(
            others.allSatisfy { $0.bodyBytes < Int64(size) / 8 }, "\(others.map { "\($0.label): \($0.bodyBytes)" })")
        #expect(
            report.ids(.fail) == [
                "range-probe", "range-middle", "range-open", "range-suffix", "range-last-byte", "range-clamped",
            ], "\(report.table)")
        #expect(
            report.ids(.warn) == [
                "range-from-zero", "unsatisfiable-past-end", "multi-range", "multi-overlap", "keepalive-reuse",
                "header-case",
            ], "\(report.table)")
        #expect(report.hasFailures)
        let probe = try #require(report.check(.rangeProbe))
        #expect(probe.message.contains("200 with the whole body (Content-Length \(size))"))
        #expect(probe.message.contains("downloads from byte 0"))
        // A 200 where a range was asked is read no further than the first 16 KiB.
        for id in [ProbeCheckID.rangeProbe, .rangeMiddle, .rangeOpen, .rangeSuffix, .rangeLastByte, .rangeClamped] {
            let e = try #require(report.check(id)?.evidence.first)
            #expect(e.status == 200)
            #expect(e.stoppedEarly && e.bodyBytes <= 16 * 1024, "\(id.rawValue) read \(e.bodyBytes) bytes")
        }
        #expect(report.check(.keepAliveReuse)?.message.contains("HTTP/1.0 response without keep-alive") == true)
        #expect(report.check(.headerCase)?.message.contains("\"Content-type\"") == true)
        #expect(
            report.verdicts.first { $0.id == "seek-cost" }?.text.contains("seeks will download from byte 0") == true)
    }
}
