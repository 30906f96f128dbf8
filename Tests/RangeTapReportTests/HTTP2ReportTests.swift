import Foundation
import RangeTapCore
import RangeTapMedia
import RangeTapReport
import Testing

/// A capture with an HTTP/1.1 and an HTTP/2 connection (``HTTP2MixedCapture``) in every
/// rendering: versions and stream ids per exchange, streams grouped under their connection,
/// `h2` in the HAR, and header case judged only on responses received over HTTP/1.x.
@Suite struct HTTP2ReportTests {
    typealias Object = [String: Any]

    private func analysis(lines: [String] = HTTP2MixedCapture.lines, keepChunks: Bool = false) throws -> CaptureAnalysis
    {
        let capture = try HTTP2MixedCapture(lines: lines)
        defer { capture.remove() }
        return try MediaAnalysis.analyze(path: capture.path, keepChunks: keepChunks)
    }

    private func record(_ a: CaptureAnalysis, _ id: Int) throws -> ExchangeRecord {
        try #require(a.exchanges.first { $0.record.id == id }).record
    }

    @Test func exchangesCarryBothVersionsAndTheStream() throws {
        let a = try analysis()
        #expect(a.exchanges.map(\.record.id) == [1, 2, 3, 5, 4])
        let versions = a.exchanges.map {
            "\($0.record.id):\($0.record.clientHTTPVersion)/\($0.record.upstreamHTTPVersion ?? "-")/\($0.record.stream.map(String.init) ?? "-")"
        }
        #expect(versions == ["1:1.1/1.1/-", "2:2/2/1", "3:2/2/3", "5:1.1/2/-", "4:2/2/5"])
        let cancelled = try record(a, 4)
        #expect(cancelled.outcome == .cancelled)
        #expect(cancelled.deliveredBy == .h2WindowUpdate)
        #expect(cancelled.bytesDelivered == 200 && cancelled.bytesReceived == 300)
        #expect(try record(a, 2).deliveredBy == .h2StreamEnded)
        #expect(try record(a, 2).requestRange == "bytes=0-499", "the lower-case range field is the Range")
        let conns = a.connections.map { "\($0.id):\($0.clientHTTPVersion ?? "-"):\($0.streams):\($0.requests)" }
        #expect(conns == ["1:1.1:0:2", "2:2:3:3"])
    }

    @Test func headerCaseIsJudgedOnlyOverHTTP1AndHTTP2OriginsGetOneNoteEach() throws {
        let a = try analysis()
        let headerCase = a.allFindings.filter { $0.code == "header-case" }
        #expect(headerCase.count == 1)
        #expect(headerCase.first?.exchange == 1)
        #expect(headerCase.first?.evidence == ["content-range: bytes 0-99/1000\r\n"])
        let notes = a.allFindings.filter { $0.code == "h2-header-case-unknown" }
        #expect(notes.count == 2)
        #expect(notes.map(\.exchange) == [2, 5])
        #expect(notes.allSatisfy { $0.severity == .info && $0.evidence == ["HTTP/2 206\r\n"] })
        #expect(notes[0].message.contains("https://cdn.example came over HTTP/2"))
        #expect(notes[1].message.contains("http://origin.example came over HTTP/2"))
        #expect(
            notes.allSatisfy {
                $0.message.contains("HTTP/1.1 clients of the same origin") && $0.message.contains("rangetap probe URL")
            })
        // Not tied to the exchange list: the note is a capture-level finding.
        #expect(a.exchanges.flatMap(\.findings).filter { $0.code == "h2-header-case-unknown" }.isEmpty)
        #expect(a.summary.findings[.warn] == 1)
    }

    @Test func inspectJSONHasVersionsAndStreamsWhereThereIsOne() throws {
        let a = try analysis()
        let doc = try #require(
            try JSONSerialization.jsonObject(with: InspectJSON(a, path: "x.rtap").encoded()) as? Object)
        let exchanges = try #require(doc["exchanges"] as? [Object])
        #expect(exchanges.count == 5)
        let byID = Dictionary(uniqueKeysWithValues: exchanges.map { ($0["id"] as? Int ?? -1, $0) })
        let h1 = try #require(byID[1])
        #expect(h1["clientHTTPVersion"] as? String == "1.1")
        #expect(h1["upstreamHTTPVersion"] as? String == "1.1")
        #expect(h1["stream"] == nil)
        let s5 = try #require(byID[4])
        #expect(s5["clientHTTPVersion"] as? String == "2")
        #expect(s5["upstreamHTTPVersion"] as? String == "2")
        #expect(s5["stream"] as? Int == 5)
        #expect(s5["bytesDelivered"] as? Int == 200)
        let mixed = try #require(byID[5])
        #expect(mixed["clientHTTPVersion"] as? String == "1.1")
        #expect(mixed["upstreamHTTPVersion"] as? String == "2")
        #expect(mixed["stream"] == nil)
        let connections = try #require(doc["connections"] as? [Object])
        #expect(connections.count == 2)
        #expect(connections[0]["clientHTTPVersion"] as? String == "1.1" && connections[0]["streams"] == nil)
        #expect(connections[1]["clientHTTPVersion"] as? String == "2" && connections[1]["streams"] as? Int == 3)
    }

    @Test func upstreamVersionIsAbsentWithoutAResponse() throws {
        var lines = Array(HTTP2MixedCapture.lines.prefix(3))
        lines.append(
            #"{"type":"error","t":2500000,"ex":1,"conn":1,"kind":"upstream","message":"upstream failed","status":502}"#)
        let a = try analysis(lines: lines)
        #expect(try record(a, 1).upstreamHTTPVersion == nil)
        let doc = try #require(
            try JSONSerialization.jsonObject(with: InspectJSON(a, path: "x.rtap").encoded()) as? Object)
        let exchange = try #require((doc["exchanges"] as? [Object])?.first)
        #expect(exchange["upstreamHTTPVersion"] == nil)
        #expect(exchange["clientHTTPVersion"] as? String == "1.1")
    }

    @Test func timelineGroupsStreamsUnderTheirConnection() throws {
        let text = TimelineText(colour: false).render(try analysis())
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        let header = try #require(lines.firstIndex(of: "conn 2 · HTTP/2 · 3 streams · upstream HTTP/2"), "\(text)")
        #expect(lines.filter { $0.hasPrefix("conn 2 ·") }.count == 1)
        // The connection's three streams right below it, each marked with its id, then #5 (conn 1).
        let rows = lines[(header + 1)...].prefix(4).map { $0.split(separator: " ").prefix(3).joined(separator: " ") }
        #expect(rows == ["#2 7.0 s1", "#3 7.1 s3", "#4 7.3 s5", "#5 7.2 1"], "\(text)")
        #expect(lines[header - 1].hasPrefix("  #1 "), "the HTTP/1.1 row before the group is unchanged")
        #expect(text.contains("CANCELLED at byte 200 (received 300)"))
        #expect(text.contains("  1 HTTP/2 connection carried 3 streams\n"))
    }

    @Test func longStreamIdsWidenTheConnColumnInsteadOfBeingCut() throws {
        let lines = HTTP2MixedCapture.lines.map {
            $0.replacingOccurrences(of: #""stream":5,"#, with: #""stream":2147483647,"#)
        }
        let a = try analysis(lines: lines)
        let text = TimelineText(colour: false).render(a)
        #expect(text.contains(" s2147483647 "), "\(text)")
        let rows = text.split(separator: "\n").filter { $0.hasPrefix("  #") }
        #expect(rows.count == 5)
        // The method column lines up in every row, and the heading's with it.
        let heading = try #require(text.split(separator: "\n").first { $0.hasPrefix("   # ") })
        func column(_ line: Substring, _ needle: String) -> Int? {
            line.range(of: needle).map { line.distance(from: line.startIndex, to: $0.lowerBound) }
        }
        let methodColumns = Set(rows.compactMap { column($0, " GET ") })
        #expect(methodColumns.count == 1, "\(text)")
        #expect(column(heading, " method") == methodColumns.first, "\(text)")
        let follow = TimelineText(colour: false).row(try #require(a.exchanges.first { $0.record.id == 4 }))
        #expect(follow.contains(" s2147483647 "))
    }

    @Test func followModeHeaderNamesTheConnection() {
        #expect(TimelineText(colour: false).connectionHeader(connection: 7, streams: nil) == "conn 7 · HTTP/2")
        #expect(
            TimelineText(colour: false).connectionHeader(connection: 7, streams: 1, upstreamVersions: ["1.1", "2"])
                == "conn 7 · HTTP/2 · 1 stream · upstream HTTP/1.1 and HTTP/2")
    }

    @Test func httpOneCapturesRenderWithoutHTTP2Marks() throws {
        let capture = try HostileTextCapture()
        defer { capture.remove() }
        let a = try MediaAnalysis.analyze(path: capture.path)
        let text = TimelineText(colour: false).render(a)
        #expect(!text.contains("HTTP/2") && !text.contains(" streams"))
        let html = HTMLReport.render(a)
        #expect(!html.contains("h2conn") && !html.contains("HTTP/2"))
        let har = String(decoding: HARExport.render(a), as: UTF8.self)
        #expect(!har.contains("_stream") && !har.contains("\"h2\""))
    }

    @Test func harSaysH2AsChromeDoes() throws {
        let data = HARExport.render(try analysis(keepChunks: true), creatorVersion: "9.9.9")
        let root = try #require(try JSONSerialization.jsonObject(with: data) as? Object)
        let entries = try #require((root["log"] as? Object)?["entries"] as? [Object])
        let byID = Dictionary(uniqueKeysWithValues: entries.map { ($0["_rangetapExchange"] as? Int ?? -1, $0) })
        func messages(_ id: Int) throws -> (Object, Object, Object) {
            let e = try #require(byID[id])
            return (e, try #require(e["request"] as? Object), try #require(e["response"] as? Object))
        }
        let (h1, h1Request, h1Response) = try messages(1)
        #expect(h1Request["httpVersion"] as? String == "HTTP/1.1")
        #expect(h1Response["httpVersion"] as? String == "HTTP/1.1")
        #expect(h1["_stream"] == nil)
        #expect((h1Request["headersSize"] as? Int ?? -1) > 0)

        let (s1, s1Request, s1Response) = try messages(2)
        #expect(s1Request["httpVersion"] as? String == "h2")
        #expect(s1Response["httpVersion"] as? String == "h2")
        #expect(s1Response["statusText"] as? String == "")
        #expect(s1Request["headersSize"] as? Int == -1 && s1Response["headersSize"] as? Int == -1)
        #expect(s1["_stream"] as? Int == 1)
        let headers = (s1Request["headers"] as? [Object] ?? []).map {
            "\($0["name"] as? String ?? "?")=\($0["value"] as? String ?? "?")"
        }
        #expect(
            headers == [
                ":method=GET", ":path=/b.mp4", ":scheme=https", ":authority=cdn.example", "range=bytes=0-499",
                "user-agent=test",
            ])
        #expect(s1Request["url"] as? String == "https://cdn.example/b.mp4")

        let (_, mixedRequest, mixedResponse) = try messages(5)
        #expect(mixedRequest["httpVersion"] as? String == "HTTP/1.1")
        #expect(mixedResponse["httpVersion"] as? String == "h2")

        let (s5, _, _) = try messages(4)
        #expect(s5["_stream"] as? Int == 5)
        #expect((s5["_cancelled"] as? Object)?["delivered"] as? Int == 200)
    }

    @Test func htmlGroupsStreamsAndMarksEachRow() throws {
        let html = HTMLReport.render(try analysis(keepChunks: true))
        #expect(html.components(separatedBy: "<tr class=\"h2conn\">").count - 1 == 1)
        #expect(
            html.contains(
                "<tr class=\"h2conn\"><td colspan=\"15\"><i class=\"sw c1\"></i>conn 2 · HTTP/2 · 3 streams · upstream HTTP/2</td></tr>"
            ))
        // The legend names the HTTP/2 connection; the HTTP/1.1 one reads as before.
        #expect(html.contains("</i>conn 2 · HTTP/2 · 3 streams <small>(closed by client)</small></span>"))
        #expect(html.contains("</i>conn 1 <small>(2 req, closed by client)</small></span>"))
        for (id, stream) in [(2, 1), (3, 3), (4, 5)] {
            #expect(
                html.contains("<tr id=\"ex-\(id)\" class=\"\(id == 4 ? "cancelled" : "complete")\"><td>\(id)</td><td>"),
                "row \(id)")
            #expect(html.contains("\"></i>2 s\(stream)</td>"), "stream \(stream) marked")
            #expect(html.contains("conn 2 stream \(stream) (HTTP/2), upstream reused"), "tooltip of \(id)")
        }
        // Rows of the group follow its line, and #5 of conn 1 comes after them.
        let order = ["h2conn", "id=\"ex-2\"", "id=\"ex-3\"", "id=\"ex-4\"", "id=\"ex-5\""].map {
            html.range(of: $0)!.lowerBound
        }
        #expect(order == order.sorted())
        #expect(html.contains("tr.h2conn td"))
    }
}
