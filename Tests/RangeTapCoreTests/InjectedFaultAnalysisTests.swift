import Foundation
import RangeTapCore
import Testing

/// Findings about exchanges a `--fault` rule was injected into are marked injected and counted
/// apart; head checks judge the head the client got (``FaultCapture``).
@Suite("Injected fault analysis")
struct InjectedFaultAnalysisTests {
    private func analyze(_ lines: [String] = FaultCapture.lines) throws -> CaptureAnalysis {
        let capture = try FaultCapture(lines: lines)
        defer { capture.remove() }
        return try CaptureAnalysis.analyze(path: capture.path)
    }

    private func exchange(_ a: CaptureAnalysis, _ id: Int) throws -> CaptureAnalysis.Exchange {
        try #require(a.exchanges.first { $0.record.id == id })
    }

    @Test func headerCaseIsJudgedOnTheHeadTheClientGotAndMarkedInjected() throws {
        let e = try exchange(try analyze(), 1)
        #expect(e.findings.map(\.code) == ["header-case", "header-case"])
        #expect(e.findings.allSatisfy { $0.injected && $0.rules == ["header-case=lower"] })
        #expect(e.findings.map(\.evidence) == [["content-range: bytes 0-99/1000\r\n"], ["content-length: 100\r\n"]])
        // The origin's head is kept as it was.
        #expect(e.record.responseLines.map(\.raw).contains("Content-Range: bytes 0-99/1000\r\n"))
    }

    @Test func anExchangeWithoutFaultsKeepsItsFindingsAsTheOrigins() throws {
        let a = try analyze()
        let e = try exchange(a, 2)
        #expect(e.findings.map(\.code) == ["header-case"])
        #expect(e.findings.allSatisfy { !$0.injected && $0.rules == nil })
        let plain = try exchange(try analyze(FaultCapture.withoutLabEvents), 2)
        #expect(plain.findings == e.findings)
    }

    @Test func eachFaultActionYieldsInjectedFindings() throws {
        let a = try analyze()
        let synthesized = try exchange(a, 3)
        #expect(synthesized.findings.map(\.code) == ["connection-close"])
        #expect(synthesized.findings.first?.rules == ["path=*.mp4,nth=3,status=503"])
        let ignored = try exchange(a, 4)
        #expect(ignored.findings.map(\.code).contains("range-ignored"))
        #expect(ignored.findings.allSatisfy { $0.rules == ["ignore-range"] })
        let truncated = try exchange(a, 5)
        let finding = try #require(truncated.findings.first { $0.code == "truncated" })
        #expect(finding.rules == ["truncate-after=50"])
        #expect(finding.evidence == ["delivered=50", "received=100"])
    }

    /// A `status=` answer's body is rangetap's own: the end's `served` is what the client was
    /// sent, measured against the Content-Length rangetap wrote (issue 40: "Content-Length says 84
    /// bytes but 0 arrived" was false). Without `served` (an origin that really sent nothing),
    /// the mismatch stays.
    @Test func aServedAnswerIsMeasuredByWhatRangetapServed() throws {
        let answer = FaultCapture.lines.map {
            $0.replacingOccurrences(of: #""Content-Length: 0\r\n""#, with: #""Content-Length: 81\r\n""#)
        }
        let served = answer.map {
            $0.replacingOccurrences(
                of: #""ex":3,"bytes":0,"sha256":"00","delivered":0,"deliveredBy":"complete"}"#,
                with: #""ex":3,"bytes":0,"sha256":"00","deliveredBy":"complete","served":81}"#)
        }
        let e = try exchange(try analyze(served), 3)
        #expect(e.record.bytesServed == 81 && e.record.bytesReceived == 0)
        #expect(e.record.bytesToClient == 81)
        #expect(!e.findings.map(\.code).contains("content-length-mismatch"), "\(e.findings)")
        let unserved = try exchange(try analyze(answer), 3)
        #expect(unserved.record.bytesServed == nil)
        #expect(unserved.findings.map(\.code).contains("content-length-mismatch"))
    }

    @Test func theSummaryCountsInjectedFindingsApart() throws {
        let s = try analyze().summary
        // Only #2's header-case is the origin's.
        #expect(s.findings == [.warn: 1])
        #expect(s.injectedFindings == [.error: 2, .warn: 3, .info: 2])
        #expect(s.injectedCount == 7)
    }

    @Test func withoutLabEventsNothingIsInjected() throws {
        let a = try analyze(FaultCapture.withoutLabEvents)
        #expect(a.allFindings.allSatisfy { !$0.injected })
        #expect(a.summary.injectedFindings.isEmpty)
        #expect(a.shapes.isEmpty)
        // The origin's own head, 503 and 200 are judged as before; no truncation is invented.
        #expect(try exchange(a, 1).findings.isEmpty)
        #expect(try exchange(a, 4).findings.map(\.code).contains("range-ignored"))
        #expect(try exchange(a, 5).findings.allSatisfy { $0.code != "truncated" })
    }

    @Test func shapesAndDeliveriesReachTheAnalysis() throws {
        let a = try analyze()
        #expect(a.shapes.map(\.spec) == ["rate=2mbit,latency=80ms,scope=link", "off"])
        #expect(try exchange(a, 1).record.deliveries.map(\.bytes) == [60, 100])
        #expect(try exchange(a, 1).record.faultRules == ["header-case=lower"])
        #expect(try exchange(a, 2).record.faultRules == nil)
    }

    @Test func findingJSONCarriesInjectedAndRulesOnlyWhenInjected() throws {
        var f = Finding(.headerCase, "m", evidence: ["e"], exchange: 1)
        let plain = String(decoding: try JSONEncoder().encode(f), as: UTF8.self)
        #expect(!plain.contains("injected") && !plain.contains("rules"))
        f.rules = ["header-case=lower"]
        let data = try JSONEncoder().encode(f)
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(object["injected"] as? Bool == true)
        #expect(object["rules"] as? [String] == ["header-case=lower"])
        #expect(try JSONDecoder().decode(Finding.self, from: data) == f)
    }

    @Test func theSummaryCommandSaysShapingAndFaults() throws {
        let capture = try FaultCapture()
        defer { capture.remove() }
        let text = try CaptureSummaryReport(path: capture.path).text
        let lines = text.split(separator: "\n").map(String.init)
        #expect(lines.contains("link shaped from 0.0 ms: rate=2mbit,latency=80ms,scope=link"))
        #expect(lines.contains { $0.hasPrefix("#1 ") && $0.hasSuffix(" FAULT header-case=lower") })
        #expect(lines.contains { $0.hasPrefix("#2 ") && !$0.contains("FAULT") })
        #expect(lines.contains("link shaping off from 40.0 ms"))
        #expect(text.contains(", 4 with faults injected by --fault or --map rules"))
        let plain = try FaultCapture(lines: FaultCapture.withoutLabEvents)
        defer { plain.remove() }
        let before = try CaptureSummaryReport(path: plain.path).text
        #expect(!before.contains("FAULT") && !before.contains("shaped") && !before.contains("injected"))
    }
}
