import Foundation
import RangeTapCore
import RangeTapReport
import RangeTapTestSupport
import Testing

/// The HAR export of the real capture in ``ReportFixture``, read back with JSONSerialization.
@Suite struct HARExportTests {
    typealias Object = [String: Any]

    func har() async throws -> (CaptureAnalysis, Object) {
        let analysis = try await ReportFixture.analysis()
        let data = HARExport.render(analysis, creatorVersion: "9.9.9")
        let root = try #require(try JSONSerialization.jsonObject(with: data) as? Object)
        return (analysis, root)
    }

    func entries(_ root: Object) throws -> [Object] {
        let log = try #require(root["log"] as? Object)
        return try #require(log["entries"] as? [Object])
    }

    func headers(_ message: Object) throws -> [(String, String)] {
        let list = try #require(message["headers"] as? [Object])
        return list.map { ($0["name"] as? String ?? "<no name>", $0["value"] as? String ?? "<no value>") }
    }

    func number(_ o: Object?, _ key: String) -> Double? { (o?[key] as? NSNumber)?.doubleValue }

    @Test func logHasTheRequiredFields() async throws {
        let (_, root) = try await har()
        let log = try #require(root["log"] as? Object)
        #expect(log["version"] as? String == "1.2")
        let creator = try #require(log["creator"] as? Object)
        #expect(creator["name"] as? String == "rangetap")
        #expect(creator["version"] as? String == "9.9.9")
        let pages = try #require(log["pages"] as? [Object])
        for p in pages {
            for key in ["startedDateTime", "id", "title", "pageTimings"] { #expect(p[key] != nil, "page.\(key)") }
        }
        for (i, e) in try entries(root).enumerated() {
            for key in ["startedDateTime", "time", "request", "response", "cache", "timings"] {
                #expect(e[key] != nil, "entries[\(i)].\(key)")
            }
            let request = try #require(e["request"] as? Object)
            for key in ["method", "url", "httpVersion", "cookies", "headers", "queryString", "headersSize", "bodySize"]
            {
                #expect(request[key] != nil, "entries[\(i)].request.\(key)")
            }
            let response = try #require(e["response"] as? Object)
            for key in [
                "status", "statusText", "httpVersion", "cookies", "headers", "content", "redirectURL", "headersSize",
                "bodySize",
            ] {
                #expect(response[key] != nil, "entries[\(i)].response.\(key)")
            }
            let content = try #require(response["content"] as? Object)
            #expect(content["size"] != nil && content["mimeType"] is String)
            let timings = try #require(e["timings"] as? Object)
            let send = try #require(number(timings, "send"))
            let wait = try #require(number(timings, "wait"))
            let receive = try #require(number(timings, "receive"))
            #expect(send >= 0 && wait >= 0 && receive >= 0)
            #expect(
                number(timings, "blocked") == -1 && number(timings, "dns") == -1 && number(timings, "connect") == -1)
            let time = try #require(number(e, "time"))
            #expect(abs(time - (send + wait + receive)) < 0.002, "time is the sum of the known timings")
            #expect(e["cache"] is Object)
        }
    }

    @Test func entriesFollowTheExchanges() async throws {
        let (analysis, root) = try await har()
        let entries = try entries(root)
        #expect(entries.count == analysis.exchanges.count)
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let captureStart = try #require(formatter.date(from: analysis.header.startedAt))
        var previous = Date.distantPast
        for (i, (entry, e)) in zip(entries, analysis.exchanges).enumerated() {
            let r = e.record
            #expect(entry["_rangetapExchange"] as? Int == r.id)
            #expect(entry["_connection"] as? Int == r.connection)
            let stamp = try #require(entry["startedDateTime"] as? String)
            let started = try #require(formatter.date(from: stamp))
            #expect(started >= previous, "entries in time order")
            #expect(abs(started.timeIntervalSince(captureStart) - Double(r.start) / 1e9) < 0.002)
            previous = started
            let request = try #require(entry["request"] as? Object)
            #expect(request["method"] as? String == "GET")
            #expect(request["url"] as? String == r.url)
            #expect(try headers(request).contains { $0.0 == "Range" && $0.1 == ReportFixture.ranges[i] })
            let response = try #require(entry["response"] as? Object)
            #expect(response["status"] as? Int == 206)
            #expect(response["statusText"] as? String == "Partial Content")
            #expect(response["httpVersion"] as? String == "HTTP/1.1")
            #expect(try headers(response).contains { $0.0 == "Content-Range" && $0.1 == r.contentRange })
        }
        // The slow resource's query string is split out.
        let slow = try #require(entries[1]["request"] as? Object)
        let query = try #require(slow["queryString"] as? [Object])
        #expect(query.map { $0["name"] as? String } == ["delay_ms", "piece"])
        #expect(query.map { $0["value"] as? String } == ["5", "16384"])
        // Header text is kept as recorded (JSON escapes it, nothing else does).
        let first = try #require(entries[0]["request"] as? Object)
        let note = ReportFixture.scriptHeader.split(separator: ":", maxSplits: 1)
        #expect(
            try headers(first).contains { $0.0 == "X-Note" && $0.1 == note[1].trimmingCharacters(in: .whitespaces) })
    }

    @Test func chunksAddUpAndCancelsAndErrorsAreMarked() async throws {
        let (analysis, root) = try await har()
        let entries = try entries(root)
        for (entry, e) in zip(entries, analysis.exchanges) {
            let r = e.record
            let chunks = try #require(entry["_chunks"] as? [Object])
            #expect(chunks.count == r.chunkCount)
            let sizes = chunks.compactMap { $0["size"] as? Int }
            #expect(sizes.reduce(0, +) == Int(r.bytesReceived), "#\(r.id): chunks add up to the bytes received")
            let response = try #require(entry["response"] as? Object)
            // bodySize is what the client got: for a cancel, the bytes delivered.
            let clientGot = r.outcome == .cancelled ? min(r.bytesDelivered ?? 0, r.bytesReceived) : r.bytesReceived
            #expect(response["bodySize"] as? Int == Int(clientGot))
            // content.size too (issue 40: content.text holds what was delivered, and so does its size).
            #expect((response["content"] as? Object)?["size"] as? Int == Int(clientGot))
            var offset = 0
            var lastT = 0.0
            for c in chunks {
                #expect(c["offset"] as? Int == offset)
                offset += c["size"] as? Int ?? 0
                let t = try #require(number(c, "t"))
                #expect(t >= lastT)
                lastT = t
            }
            #expect(entry["_findings"] as? [String] == e.findings.map(\.code))
        }
        // Exchange 3 was cancelled after the client read 100000 bytes.
        let cancelled = try #require(entries[2]["_cancelled"] as? Object)
        let delivered = try #require(cancelled["delivered"] as? Int)
        let received = try #require(cancelled["received"] as? Int)
        #expect(delivered >= 100_000 && delivered <= received)
        #expect(entries.enumerated().filter { $0.element["_cancelled"] != nil }.map(\.offset) == [2])
        // Exchange 4's origin hung up half-way.
        let error = try #require(entries[3]["_error"] as? String)
        #expect(error.contains("curl error 18"))
        #expect(entries.enumerated().filter { $0.element["_error"] != nil }.map(\.offset) == [3])
        #expect((entries[3]["_findings"] as? [String])?.contains("truncated") == true)
    }

    @Test func outputIsStable() async throws {
        let analysis = try await ReportFixture.analysis()
        #expect(HARExport.render(analysis) == HARExport.render(analysis))
        let text = String(decoding: HARExport.render(analysis), as: UTF8.self)
        #expect(text.hasPrefix("{\"log\":{\"comment\":"), "keys sorted")
    }

    @Test func exportCommandWritesBothFiles() async throws {
        let capture = try await ReportFixture.capture.value
        let dir = Paths.temporaryDirectory("export")
        let r = try runCommand(Paths.rangetap, ["export", capture, "--har", dir + "/a.har", "--html", dir + "/a.html"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.split(separator: "\n").count == 1)
        #expect(r.stderr.contains("exported 6 exchanges"))
        let har = try Data(contentsOf: URL(fileURLWithPath: dir + "/a.har"))
        let root = try #require(try JSONSerialization.jsonObject(with: har) as? Object)
        #expect(try entries(root).count == 6)
        #expect(((root["log"] as? Object)?["creator"] as? Object)?["version"] as? String == "0.1.0")
        let html = try String(contentsOfFile: dir + "/a.html", encoding: .utf8)
        #expect(html.contains("<svg class=\"waterfall\""))

        let missing = try runCommand(Paths.rangetap, ["export", dir + "/none.rtap", "--har", dir + "/b.har"])
        #expect(missing.status == 2)
        #expect(missing.stderr.hasPrefix("rangetap: "))
        let nothing = try runCommand(Paths.rangetap, ["export", capture])
        #expect(nothing.status != 0)
        #expect(nothing.stderr.contains("--har"))
    }
}
