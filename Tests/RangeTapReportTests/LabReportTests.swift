import Foundation
import RangeTapCore
import RangeTapMedia
import RangeTapReport
import RangeTapTestSupport
import Testing

/// A player lab capture (``LabCapture``) in every rendering: injected findings marked and
/// counted apart, faults, deliveries and shaping shown; captures without those events render
/// exactly as before.
@Suite struct LabReportTests {
    typealias Object = [String: Any]

    private func analysis(lines: [String] = LabCapture.lines, keepChunks: Bool = false) throws -> CaptureAnalysis {
        let capture = try LabCapture(lines: lines)
        defer { capture.remove() }
        return try MediaAnalysis.analyze(path: capture.path, keepChunks: keepChunks)
    }

    private func json(_ a: CaptureAnalysis) throws -> Object {
        try #require(try JSONSerialization.jsonObject(with: try InspectJSON(a, path: "lab.rtap").encoded()) as? Object)
    }

    private func exchange(_ doc: Object, _ id: Int) throws -> Object {
        try #require((doc["exchanges"] as? [Object])?.first { $0["id"] as? Int == id })
    }

    @Test func jsonMarksInjectedFindingsAndCarriesFaultsDeliveriesAndShapes() throws {
        let doc = try json(try analysis())
        let one = try exchange(doc, 1)
        let findings = try #require(one["findings"] as? [Object])
        #expect(findings.map { $0["code"] as? String } == ["header-case", "header-case"])
        #expect(
            findings.allSatisfy { $0["injected"] as? Bool == true && $0["rules"] as? [String] == ["header-case=lower"] }
        )
        let faults = try #require(one["faults"] as? [Object])
        #expect(faults.count == 1)
        #expect(faults[0]["rule"] as? String == "header-case=lower")
        #expect(faults[0]["action"] as? String == "header-case")
        #expect(faults[0]["detail"] as? String == "respelled 2 names")
        #expect(faults[0]["atMs"] as? Double == 3)
        let deliveries = try #require(one["deliveries"] as? [Object])
        #expect(deliveries.map { $0["bytes"] as? Int } == [60, 100])
        #expect(deliveries.map { $0["atMs"] as? Double } == [6, 9])

        let two = try exchange(doc, 2)
        #expect(two["faults"] == nil && two["deliveries"] == nil)
        let origin = try #require(two["findings"] as? [Object])
        #expect(origin.map { $0["code"] as? String } == ["header-case"])
        #expect(origin.allSatisfy { $0["injected"] == nil && $0["rules"] == nil })

        let reset = try exchange(doc, 3)
        #expect((reset["faults"] as? [Object])?.first?["action"] as? String == "reset-after")
        #expect((reset["findings"] as? [Object] ?? []).allSatisfy { $0["rules"] as? [String] == ["reset-after=10"] })

        let shapes = try #require(doc["shapes"] as? [Object])
        #expect(shapes.map { $0["spec"] as? String } == ["rate=2mbit,latency=80ms,scope=link", "off"])
        #expect(shapes.map { $0["atMs"] as? Double } == [0, 40])
        #expect(shapes[0]["trace"] as? String == "cell.trace" && shapes[1]["trace"] == nil)

        let summary = try #require(doc["summary"] as? Object)
        #expect(summary["findings"] as? [String: Int] == ["error": 0, "warn": 1, "info": 0])
        // #1's two header-case warnings; #3's cancel (info).
        #expect(summary["injectedFindings"] as? [String: Int] == ["error": 0, "warn": 2, "info": 1])
    }

    @Test func jsonWithoutLabEventsHasNoneOfTheNewKeys() throws {
        let data = try InspectJSON(try analysis(lines: LabCapture.withoutLabEvents), path: "lab.rtap").encoded()
        let text = String(decoding: data, as: UTF8.self)
        for key in ["injected", "rules", "faults", "deliveries", "shapes", "injectedFindings"] {
            #expect(!text.contains("\"\(key)\""), "\(key)")
        }
    }

    @Test func textMarksFaultsInjectedFindingsAndTheShapedLink() throws {
        let text = TimelineText(colour: false).render(try analysis())
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines[1] == "link shaped from 0.0 ms: rate=2mbit,latency=80ms,scope=link (trace cell.trace)")
        #expect(lines[2] == "link shaping off from 40.0 ms")
        let row1 = try #require(lines.first { $0.hasPrefix("  #1 ") })
        #expect(row1.contains("FAULT header-case=lower [header-case,header-case]"))
        let row2 = try #require(lines.first { $0.hasPrefix("  #2 ") })
        #expect(!row2.contains("FAULT") && row2.hasSuffix("ok [header-case]"))
        #expect(try #require(lines.first { $0.hasPrefix("  #3 ") }).contains("FAULT reset-after=10"))
        #expect(lines.contains("findings (4, 3 of them injected by --fault or --map rules)"))
        #expect(
            lines.filter {
                $0.contains("#1 header-case [injected: header-case=lower]: response header \"content-range\"")
            }.count == 1)
        #expect(
            lines.contains { $0.hasPrefix("WARN") && $0.contains(" #2 header-case: response header \"content-range\"") }
        )
        #expect(lines.contains("  findings: 0 error, 1 warn, 0 info"))
        #expect(
            lines.contains(
                "  injected by --fault or --map rules into 2 exchanges, not counted above: 0 error, 2 warn, 1 info"))
    }

    @Test(arguments: ["avplayer-nginx", "ffmpeg-moov-at-end", "curl-ranges", "python-http-server"])
    func samplesWithoutLabEventsRenderAsTheirGoldens(_ name: String) throws {
        let a = try MediaAnalysis.analyze(path: Paths.root + "/captures/\(name).rtap")
        let text = try String(contentsOfFile: Paths.root + "/captures/golden/\(name).inspect.txt", encoding: .utf8)
        #expect(TimelineText(colour: false).render(a) == text)
        let json = try Data(contentsOf: URL(fileURLWithPath: Paths.root + "/captures/golden/\(name).inspect.json"))
        #expect(try InspectJSON(a, path: "captures/\(name).rtap").encoded() + Data("\n".utf8) == json)
    }

    @Test func htmlDrawsWhatTheClientGotAndMarksFaults() throws {
        let page = HTMLReport.render(try analysis(keepChunks: true), title: "lab.rtap")
        #expect(
            page.contains(
                "<p class=\"shaped\">client link shaped: <code>rate=2mbit,latency=80ms,scope=link</code> (trace <code>cell.trace</code>) from 0.0 ms · off from 40.0 ms</p>"
            ))
        #expect(
            page.components(separatedBy: "<polyline class=\"client c").count - 1 == 2,
            "one client line in #1, one in the legend")
        #expect(page.contains("client got (shaped link)"))
        #expect(page.components(separatedBy: "<g class=\"mark-fault\" data-ex=").count - 1 == 2)
        #expect(page.contains("<title>#1 fault injected by --fault header-case=lower: respelled 2 names</title>"))
        #expect(
            page.contains(
                "<title>#3 fault injected by --fault reset-after=10: reset the client connection after 10 body bytes</title>"
            ))
        #expect(page.contains("injected by --fault <code>header-case=lower</code>"))
        #expect(page.contains("error / warn / info; 3 more injected by --fault or --map rules"))
        #expect(page.contains("as the client got it (rewritten by --fault):"))
        // The exchange without faults has no badge in its row.
        let row2 = try #require(
            page.components(separatedBy: "<tr id=\"ex-2\"").dropFirst().first?.components(separatedBy: "</tr>").first)
        #expect(!row2.contains("inj"))
    }

    @Test func htmlWithoutLabEventsHasNoneOfTheLabMarks() throws {
        let page = HTMLReport.render(
            try analysis(lines: LabCapture.withoutLabEvents, keepChunks: true), title: "lab.rtap")
        for mark in ["class=\"client", "mark-fault", "client got", "class=\"shaped\"", "inj", "--fault", ".shaped {"] {
            #expect(!page.contains(mark), "\(mark)")
        }
    }

    @Test func harShowsTheHeadTheClientGotAndTheFaults() throws {
        let data = HARExport.render(try analysis(keepChunks: true))
        let doc = try #require(try JSONSerialization.jsonObject(with: data) as? Object)
        let entries = try #require((doc["log"] as? Object)?["entries"] as? [Object])
        #expect(entries.count == 3)
        let one = try #require(entries.first { $0["_rangetapExchange"] as? Int == 1 })
        let headers = try #require((one["response"] as? Object)?["headers"] as? [Object])
        #expect(headers.map { $0["name"] as? String } == ["content-range", "content-length"])
        #expect(
            (one["response"] as? Object)?["headersSize"] as? Int == 85,
            "the three lines and the blank line the wire had")
        let faults = try #require(one["_rangetapFaults"] as? [Object])
        #expect(faults.map { $0["rule"] as? String } == ["header-case=lower"])
        #expect(faults.first?["t"] as? Double == 1)
        let two = try #require(entries.first { $0["_rangetapExchange"] as? Int == 2 })
        #expect(two["_rangetapFaults"] == nil)
        #expect(
            ((two["response"] as? Object)?["headers"] as? [Object])?.map { $0["name"] as? String } == [
                "content-range", "Content-Length",
            ])
        let three = try #require(entries.first { $0["_rangetapExchange"] as? Int == 3 })
        #expect((three["_rangetapFaults"] as? [Object])?.first?["action"] as? String == "reset-after")
        // No head was rewritten: the origin's.
        #expect(((three["response"] as? Object)?["headers"] as? [Object])?.first?["name"] as? String == "Content-Range")
    }

    @Test func harWithoutLabEventsIsUnchanged() throws {
        let data = HARExport.render(try analysis(lines: LabCapture.withoutLabEvents, keepChunks: true))
        #expect(!String(decoding: data, as: UTF8.self).contains("_rangetapFaults"))
    }
}
