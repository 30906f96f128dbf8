import Foundation
import RangeTapProbe
import RangeTapTestSupport
import Testing

/// `rangetap probe` as a CI job runs it: exit codes 0, 1 and 2, text and JSON output.
@Suite(.serialized)
struct ProbeCLITests {
    func rangetap(_ args: [String]) throws -> CommandResult {
        try runCommand(Paths.rangetap, ["probe"] + args, timeout: 30)
    }

    @Test func exitZeroWhenNothingFailsWithATextReport() throws {
        let origin = try QuirkOrigin(size: 64 * 1024)
        defer { origin.stop() }
        let r = try rangetap([origin.url("/strict/head-206")])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.text.hasPrefix("rangetap probe \(origin.url("/strict/head-206"))\n"))
        #expect(r.text.contains("WARN  head-range"))
        #expect(r.text.contains("result: PASS with 1 warning"))
        // Areas with a warning come before areas that only pass.
        let warnArea = try #require(r.text.range(of: "Range on HEAD and HTTP/1.0"))
        let passArea = try #require(r.text.range(of: "single ranges"))
        #expect(warnArea.lowerBound < passArea.lowerBound)
    }

    @Test func exitOneWhenACheckFailsAndEvidenceShowsTheHeads() throws {
        let origin = try QuirkOrigin(size: 64 * 1024)
        defer { origin.stop() }
        let r = try rangetap([origin.url("/strict/clamp-416"), "--evidence"])
        #expect(r.status == 1, "\(r.stderr)")
        let lines = r.text.split(separator: "\n").map(String.init)
        // Failures first: the first check line of the report is the failed one.
        let first = try #require(
            lines.first {
                $0.hasPrefix("  FAIL") || $0.hasPrefix("  PASS") || $0.hasPrefix("  WARN") || $0.hasPrefix("  INFO")
            })
        #expect(first.hasPrefix("  FAIL  range-clamped"))
        #expect(r.text.contains("> Range: bytes=\(64 * 1024 - 100)-\(64 * 1024 + 999)"))
        #expect(r.text.contains("< HTTP/1.1 416 Requested Range Not Satisfiable"))
        #expect(r.text.contains("result: FAIL (1 check failed)"))
    }

    @Test func exitTwoWhenUnreachableOrArgumentsAreWrong() throws {
        let port = try freePort()
        let unreachable = try rangetap(["http://127.0.0.1:\(port)/x.mp4", "--timeout", "2"])
        #expect(unreachable.status == 2)
        #expect(unreachable.stderr.contains("cannot reach http://127.0.0.1:\(port)/x.mp4"), "\(unreachable.stderr)")
        #expect(unreachable.text.isEmpty)

        let badURL = try rangetap(["ftp://example/x"])
        #expect(badURL.status == 2)
        #expect(badURL.stderr.contains("is not an absolute http:// or https:// URL"))

        let badHeader = try rangetap(["http://127.0.0.1:\(port)/x", "--header", "no colon here"])
        #expect(badHeader.status == 2)
        #expect(badHeader.stderr.contains("expected 'Name: value'"))

        let badTimeout = try rangetap(["http://127.0.0.1:\(port)/x", "--timeout", "0"])
        #expect(badTimeout.status == 2)
        #expect(badTimeout.stderr.contains("--timeout"))

        let origin = try QuirkOrigin(size: 1024)
        defer { origin.stop() }
        let missing = try rangetap([origin.url("/no-such-file")])
        #expect(missing.status == 2)
        #expect(missing.stderr.contains("answered \"HTTP/1.1 404 Not Found\""), "\(missing.stderr)")
    }

    @Test func jsonParsesBackWithTheDocumentedFields() throws {
        let origin = try QuirkOrigin(size: 64 * 1024)
        defer { origin.stop() }
        let r = try rangetap([origin.url("/strict/if-range-etag"), "--json", "--header", "X-Probe: 1"])
        #expect(r.status == 1)
        let report = try JSONDecoder().decode(ProbeReport.self, from: r.stdout)
        #expect(report.schemaVersion == 1)
        #expect(report.url == origin.url("/strict/if-range-etag"))
        #expect(report.length.map(Int.init) == 64 * 1024)
        #expect(report.result == .fail)
        #expect(report.ids(.fail) == ["if-range-etag"])
        #expect(report.checks.count == ProbeCheckID.allCases.filter { $0.runs(http2: false) }.count)
        #expect(report.httpProtocol == "http/1.1")
        // The documented keys, read without the Swift types.
        let object = try #require(try JSONSerialization.jsonObject(with: r.stdout) as? [String: Any])
        for key in [
            "schemaVersion", "url", "protocol", "length", "durationMs", "result", "summary", "checks", "verdicts",
        ] {
            #expect(object[key] != nil, "top-level key \(key)")
        }
        let checks = try #require(object["checks"] as? [[String: Any]])
        let failed = try #require(checks.first { $0["id"] as? String == "if-range-etag" })
        for key in ["id", "area", "title", "result", "message", "rfc", "evidence"] {
            #expect(failed[key] != nil, "check key \(key)")
        }
        let evidence = try #require((failed["evidence"] as? [[String: Any]])?.last)
        for key in ["label", "request", "response", "status", "bodyBytes", "stoppedEarly", "durationMs", "httpVersion"]
        {
            #expect(evidence[key] != nil, "evidence key \(key)")
        }
        #expect((evidence["request"] as? [String])?.contains("X-Probe: 1\r\n") == true)
        #expect((evidence["response"] as? [String])?.first?.hasPrefix("HTTP/1.1 206") == true)
        let verdicts = try #require(object["verdicts"] as? [[String: Any]])
        #expect(verdicts.contains { $0["id"] as? String == "safe-resume" && $0["ok"] as? Bool == false })
    }
}
