import Foundation
import RangeTapCore
import RangeTapMedia
import RangeTapReport
import RangeTapTestSupport
import Testing

/// HAR bodies (`content.text`, `export --har-max-body`) and `rangetap import`: a HAR back into a
/// capture that inspects, replays and serves.
@Suite struct HARBodyImportTests {
    typealias Object = [String: Any]

    static let sample = "captures/avplayer-nginx.rtap"

    func entries(_ harPath: String) throws -> [Object] {
        let root = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: harPath))) as? Object)
        return try #require((root["log"] as? Object)?["entries"] as? [Object])
    }

    /// The body bytes the client got in each exchange of the capture at `path`, by exchange id.
    func clientBodies(_ path: String) throws -> [Int: Data] {
        let reader = try CaptureReader(path: path)
        var received: [Int: Data] = [:]
        var delivered: [Int: Int64] = [:]
        for event in try reader.events() {
            switch event {
            case .chunk(let c): received[c.exchange, default: Data()].append(try reader.bytes(of: c))
            case .cancel(let c): delivered[c.exchange] = c.delivered
            default: break
            }
        }
        return received.mapValues { $0 }.reduce(into: [:]) { out, pair in
            out[pair.key] = delivered[pair.key].map { Data(pair.value.prefix(Int($0))) } ?? pair.value
        }
    }

    @Test func contentTextIsWhatTheClientGot() throws {
        let dir = Paths.temporaryDirectory("har-bodies")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let r = try runCommand(Paths.rangetap, ["export", Self.sample, "--har", dir + "/a.har"], directory: Paths.root)
        #expect(r.status == 0, "\(r.stderr)")
        let expected = try clientBodies(Paths.root + "/" + Self.sample)
        let analysis = try MediaAnalysis.analyze(path: Paths.root + "/" + Self.sample)
        let list = try entries(dir + "/a.har")
        #expect(list.count == analysis.exchanges.count)
        var cancels = 0
        for (entry, e) in zip(list, analysis.exchanges) {
            let id = e.record.id
            let response = try #require(entry["response"] as? Object)
            let content = try #require(response["content"] as? Object)
            let want = expected[id] ?? Data()
            if want.isEmpty {
                #expect(content["text"] == nil, "#\(id)")
                continue
            }
            #expect(content["encoding"] as? String == "base64", "#\(id)")
            let text = try #require(content["text"] as? String, "#\(id)")
            let got = try #require(Data(base64Encoded: text))
            #expect(got == want, "#\(id): content.text is the client's bytes")
            #expect(response["bodySize"] as? Int == want.count, "#\(id)")
            if e.record.outcome == .cancelled {
                cancels += 1
                #expect(Int64(got.count) == e.record.bytesDelivered, "#\(id): a cancel's body is what was delivered")
            }
        }
        #expect(cancels > 0, "the sample has cancelled exchanges")
    }

    @Test func bodiesOverTheLimitAreLeftOutWithAComment() throws {
        let dir = Paths.temporaryDirectory("har-max-body")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let r = try runCommand(
            Paths.rangetap, ["export", Self.sample, "--har", dir + "/a.har", "--har-max-body", "1k"],
            directory: Paths.root)
        #expect(r.status == 0, "\(r.stderr)")
        var small = 0
        var big = 0
        for entry in try entries(dir + "/a.har") {
            let response = try #require(entry["response"] as? Object)
            let content = try #require(response["content"] as? Object)
            let size = response["bodySize"] as? Int ?? 0
            if size > 1024 {
                big += 1
                #expect(content["text"] == nil)
                #expect((content["comment"] as? String)?.contains("over the limit of 1024 bytes") == true, "\(content)")
            } else if size > 0 {
                small += 1
                #expect(content["text"] is String && content["comment"] == nil)
            }
        }
        #expect(big > 0 && small > 0)
        let none = try runCommand(
            Paths.rangetap, ["export", Self.sample, "--har", dir + "/b.har", "--har-max-body", "0"],
            directory: Paths.root)
        #expect(none.status == 0)
        #expect(
            try entries(dir + "/b.har").allSatisfy {
                (($0["response"] as? Object)?["content"] as? Object)?["text"] == nil
            })
        let bad = try runCommand(
            Paths.rangetap, ["export", Self.sample, "--har", dir + "/c.har", "--har-max-body", "lots"],
            directory: Paths.root)
        #expect(bad.status == 2 && bad.stderr.contains("--har-max-body"), "\(bad.stderr)")
    }

    /// The exchanges of `inspect --json` reduced to what a HAR keeps.
    func inspected(_ capture: String) throws -> [String] {
        let r = try runCommand(Paths.rangetap, ["inspect", capture, "--json"], directory: Paths.root)
        #expect(r.status == 0, "\(r.stderr)")
        let root = try #require(try JSONSerialization.jsonObject(with: r.stdout) as? Object)
        let exchanges = try #require(root["exchanges"] as? [Object])
        return exchanges.map { e in
            "\(e["method"] ?? "") \(e["url"] ?? "") \(e["status"] ?? "") \(e["bytesDelivered"] ?? e["bytesReceived"] ?? "") \(e["outcome"] ?? "")"
        }
    }

    @Test func exportedHARImportsToTheSameExchangesAndReplays() throws {
        let dir = Paths.temporaryDirectory("har-roundtrip")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let export = try runCommand(
            Paths.rangetap, ["export", Self.sample, "--har", dir + "/a.har"], directory: Paths.root)
        #expect(export.status == 0, "\(export.stderr)")
        let imported = dir + "/back.rtap"
        let r = try runCommand(Paths.rangetap, ["import", dir + "/a.har", "-o", imported])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains("no chunk times"), "\(r.stderr)")
        #expect(try inspected(imported) == inspected(Self.sample))
        let header = try CaptureReader(path: imported).header
        #expect(header.bodies && header.tool.contains("imported from a HAR"))
        let replay = try runCommand(Paths.rangetap, ["replay", imported, "--cache", "sparse"], timeout: 60)
        #expect(replay.status == 0, "\(replay.text) \(replay.stderr)")
        // -o must be new.
        let again = try runCommand(Paths.rangetap, ["import", dir + "/a.har", "-o", imported])
        #expect(again.status == 2 && again.stderr.contains("already exists"), "\(again.stderr)")
    }

    static let resource = (0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 3) }

    /// A small HAR as Chrome writes it: an HTTP/2 206 (base64) and an HTTP/1.1 200 (plain text).
    static func chromeHAR() -> String {
        let part = Data(resource[1000..<2000]).base64EncodedString()
        return """
            {"log": {"version": "1.2", "creator": {"name": "WebInspector", "version": "537.36"},
              "pages": [{"startedDateTime": "2026-11-23T10:00:00.000Z", "id": "page_1", "title": "t", "pageTimings": {}}],
              "entries": [
                {"_initiator": {"type": "other"}, "_priority": "High", "cache": {}, "connection": "4711", "pageref": "page_1",
                 "request": {"method": "GET", "url": "https://media.example/v.mp4", "httpVersion": "h2",
                   "headers": [{"name": ":authority", "value": "media.example"}, {"name": ":method", "value": "GET"},
                               {"name": ":path", "value": "/v.mp4"}, {"name": ":scheme", "value": "https"},
                               {"name": "range", "value": "bytes=1000-1999"}],
                   "queryString": [], "cookies": [], "headersSize": -1, "bodySize": 0},
                 "response": {"status": 206, "statusText": "", "httpVersion": "h2",
                   "headers": [{"name": "content-type", "value": "video/mp4"}, {"name": "content-range", "value": "bytes 1000-1999/4096"},
                               {"name": "content-length", "value": "1000"}],
                   "cookies": [], "content": {"size": 1000, "mimeType": "video/mp4", "text": "\(part)", "encoding": "base64"},
                   "redirectURL": "", "headersSize": -1, "bodySize": 1000, "_transferSize": 1100, "_error": null},
                 "serverIPAddress": "127.0.0.1", "startedDateTime": "2026-11-23T10:00:00.100Z", "time": 52.5,
                 "timings": {"blocked": 1.5, "dns": -1, "ssl": -1, "connect": -1, "send": 0.5, "wait": 40, "receive": 10.5, "_blocked_queueing": 1}},
                {"cache": {}, "connection": "4712", "pageref": "page_1",
                 "request": {"method": "GET", "url": "http://media.example/notes.txt?x=1", "httpVersion": "http/1.1",
                   "headers": [{"name": "Host", "value": "media.example"}], "queryString": [{"name": "x", "value": "1"}], "cookies": [], "headersSize": 60, "bodySize": 0},
                 "response": {"status": 200, "statusText": "OK", "httpVersion": "http/1.1",
                   "headers": [{"name": "Content-Type", "value": "text/plain"}, {"name": "Content-Length", "value": "11"}],
                   "cookies": [], "content": {"size": 11, "mimeType": "text/plain", "text": "hello, HAR\\n"},
                   "redirectURL": "", "headersSize": 80, "bodySize": 11},
                 "startedDateTime": "2026-11-23T10:00:00.000Z", "time": 20,
                 "timings": {"blocked": -1, "dns": 2, "connect": 5, "ssl": -1, "send": 0, "wait": 10, "receive": 3}}
              ]}}
            """
    }

    @Test func aChromeHARImportsAndServes() throws {
        let dir = Paths.temporaryDirectory("har-chrome")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try Self.chromeHAR().write(toFile: dir + "/chrome.har", atomically: true, encoding: .utf8)
        let capture = dir + "/chrome.rtap"
        let r = try runCommand(Paths.rangetap, ["import", dir + "/chrome.har", "-o", capture])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains("imported 2 exchanges"), "\(r.stderr)")

        let analysis = try MediaAnalysis.analyze(path: capture, keepChunks: true)
        let records = analysis.exchanges.map(\.record)
        try #require(records.count == 2)
        // In time order: the 200 started first. Times follow the HAR's timings.
        #expect(records[0].status == 200 && records[0].start == 0)
        #expect(records[0].responseAt == 17_000_000 && records[0].end == 20_000_000)
        #expect(records[0].responseLines.first?.raw == "HTTP/1.1 200 OK\r\n")
        #expect(records[1].isHTTP2Client && records[1].isHTTP2Upstream && records[1].target == "/v.mp4")
        #expect(records[1].responseLines.first?.raw == "HTTP/2 206\r\n")
        #expect(
            records[1].start == 100_000_000 && records[1].responseAt == 142_000_000
                && records[1].lastChunkAt == 152_500_000)
        #expect(records[1].chunks.first?.resourceOffset == 1000)
        #expect(records.map(\.bytesReceived) == [11, 1000])
        #expect(records.allSatisfy { $0.outcome == .complete && $0.chunkCount == 1 })

        let port = try freePort()
        let server = try TestProcess(
            Paths.rangetap, ["serve", capture, "--ideal", "--listen", "127.0.0.1:\(port)", "--quiet"])
        defer { server.stop(signal: SIGINT) }
        try waitForPort(port)
        let piece = try runCommand("/usr/bin/curl", ["-sS", "-r", "1200-1299", "http://127.0.0.1:\(port)/v.mp4"])
        #expect(piece.status == 0, "\(piece.stderr)")
        #expect(piece.stdout == Data(Self.resource[1200..<1300]))
        let notes = try runCommand("/usr/bin/curl", ["-sS", "http://127.0.0.1:\(port)/notes.txt?x=1"])
        #expect(notes.text == "hello, HAR\n", "\(notes.stderr)")
    }

    @Test(arguments: [
        ("not json at all", "is not JSON"),
        (#"{"version": "1.2"}"#, "log is missing"),
        (#"{"log": {"entries": {}}}"#, "log.entries is not a list"),
        (
            #"{"log": {"entries": [{"startedDateTime": "2026-11-23T10:00:00Z", "request": {"method": "GET"}, "response": {"status": 200}}]}}"#,
            "log.entries[0].request.url is missing"
        ),
        (
            #"{"log": {"entries": [{"startedDateTime": "yesterday", "request": {"method": "GET", "url": "http://a/"}, "response": {"status": 200}}]}}"#,
            "log.entries[0].startedDateTime is not an ISO 8601 date"
        ),
        (
            #"{"log": {"entries": [{"startedDateTime": "2026-11-23T10:00:00Z", "request": {"method": "GET", "url": "http://a/"}, "response": {"status": "ok"}}]}}"#,
            "log.entries[0].response.status is not a whole number"
        ),
        (
            #"{"log": {"entries": [{"startedDateTime": "2026-11-23T10:00:00Z", "request": {"method": "GET", "url": "http://a/"}, "response": {"status": 200, "content": {"size": 3, "text": "!!!", "encoding": "base64"}}}]}}"#,
            "log.entries[0].response.content.text is not valid base64"
        ),
    ])
    func malformedHARExits2NamingTheProblem(input: String, message: String) throws {
        let dir = Paths.temporaryDirectory("har-bad")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try input.write(toFile: dir + "/bad.har", atomically: true, encoding: .utf8)
        let r = try runCommand(Paths.rangetap, ["import", dir + "/bad.har", "-o", dir + "/bad.rtap"])
        #expect(r.status == 2)
        #expect(r.stderr.hasPrefix("rangetap: ") && r.stderr.contains(message), "\(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir + "/bad.rtap"), "no capture left behind")
    }
}
