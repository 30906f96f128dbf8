import Foundation
import RangeTapCore
import RangeTapTestSupport
import Testing

/// The player's account (CMCD, CTA-5004) recorded from real clients: no player on this machine
/// emits CMCD, so curl and ffmpeg send the specification's example (query and header forms)
/// and malformed payloads through the proxy to nginx. The decoded values must appear in
/// `inspect` (text, JSON, HTML), the fleet rows and HAR; DuckDB joins two captures on `sid`.
@Suite(.serialized)
struct CMCDRecordingTests {
    static let sid = "6e2fb550-c457-11e9-bb97-0800200c9a66"
    /// CTA-5004's example, percent-encoded for the query.
    static let specQuery =
        "bl%3D21300%2Cbr%3D3200%2Cbs%2Ccid%3D%22faec5fc2-ac30-11eabb37-0242ac130002%22%2Cd%3D4004%2Cdl%3D18500%2Cmtp%3D48100%2Cnor%3D%22moov-at-end.mp4%22%2Cnrr%3D%2212323-48763%22%2Cot%3Dv%2Cpr%3D1.08%2Crtp%3D12000%2Csf%3Dd%2Csid%3D%22\(sid)%22%2Cst%3Dv%2Csu%2Ctb%3D6000"

    typealias Object = [String: Any]

    /// Records `clients` (given the proxy's URL) into the capture `name`.rtap (the capture id of
    /// its fleet rows); returns its path.
    private func record(_ name: String, _ clients: (String) throws -> Void) async throws -> String {
        let proxy = try await ProxyHarness {
            $0.capturePath = Paths.temporaryDirectory("cmcd-capture") + "/\(name).rtap"
        }
        try clients(proxy.url)
        _ = try await proxy.stopAndRead()
        return proxy.capturePath
    }

    private func curl(_ proxy: String, _ url: String, _ extra: [String] = []) throws {
        let r = try runCommand(try Paths.tool("curl"), ["-sS", "-o", "/dev/null", "-x", proxy] + extra + [url])
        #expect(r.status == 0, "curl \(url): \(r.stderr)")
    }

    @Test(.timeLimit(.minutes(4)))
    func curlAndFFmpegCMCDIsDecodedInEveryViewAndJoinsCapturesOnSid() async throws {
        let media = try Media.directory()
        let origin = try NginxServer(root: media)
        defer { origin.stop() }
        let video = origin.url("moov-at-end.mp4")
        let session = #"CMCD-Session: sid="\#(Self.sid)",sf=d,st=v"#

        let first = try await record("first") { proxy in
            // 1: the example in the query; 2: the same keys in headers (bs while bytes arrived);
            // 3: malformed, with markup in it.
            try curl(proxy, video + "?CMCD=" + Self.specQuery, ["-r", "0-999999"])
            try curl(
                proxy, video,
                [
                    "-r", "1000000-1999999", "-H", #"CMCD-Request: bl=1200,mtp=900,nor="moov-at-end.mp4""#,
                    "-H", "CMCD-Object: br=3200,d=4004,ot=v", "-H", "CMCD-Status: bs", "-H", session,
                ])
            try curl(
                proxy, video,
                [
                    "-r", "0-99", "-H", "CMCD-Request: bl=fast,<script>x</script>", "-H", "CMCD-Object: ot=zz", "-H",
                    session,
                ])
            // ffmpeg plays the file (moov at end: several ranges), every request with the headers.
            let ff = try runCommand(
                try Paths.tool("ffmpeg"),
                [
                    "-v", "error", "-http_proxy", proxy, "-headers", "\(session)\r\nCMCD-Request: bl=5000,su\r\n",
                    "-i", video, "-t", "2", "-f", "null", "-",
                ], timeout: 60)
            #expect(ff.status == 0, "ffmpeg: \(ff.stderr)")
        }
        let second = try await record("second") { proxy in
            try curl(proxy, video + "?CMCD=" + "bl%3D900%2Csid%3D%22\(Self.sid)%22", ["-r", "0-9"])
            try curl(proxy, video + "?CMCD=" + "bl%3D100%2Csid%3D%22other%22", ["-r", "0-9"])
        }

        // serve: a request with another player's report is the same resource.
        let port = try freePort()
        let server = try TestProcess(
            Paths.rangetap, ["serve", first, "--ideal", "--listen", "127.0.0.1:\(port)", "--quiet"])
        defer { server.stop(signal: SIGINT) }
        try waitForPort(port)
        let piece = try runCommand(
            try Paths.tool("curl"),
            ["-sS", "-f", "-r", "1000-1099", "http://127.0.0.1:\(port)/moov-at-end.mp4?CMCD=bl%3D1%2Csu"])
        #expect(piece.status == 0, "\(piece.stderr)")
        let file = try Data(contentsOf: URL(fileURLWithPath: media + "/moov-at-end.mp4"))
        #expect(piece.stdout == file[1000..<1100])

        // inspect, text: the column and the finding quoting the malformed payload.
        let text = try runCommand(Paths.rangetap, ["inspect", first, "--color", "never"])
        #expect(text.status == 0, "\(text.stderr)")
        let lines = text.text.split(separator: "\n").map(String.init)
        #expect(lines.contains { $0.contains(" cmcd ") && $0.contains("outcome") }, "heading: \(text.text)")
        #expect(lines.contains { $0.contains("ot=v br=3200 bl=21300 mtp=48100 d=4004 bs su") }, "\(text.text)")
        #expect(lines.contains { $0.contains("cmcd-invalid") && $0.contains("bl=fast is not an integer") })
        #expect(lines.contains { $0.contains("CMCD-Request: bl=fast,<script>x</script>") }, "the raw value quoted")
        #expect(lines.contains { $0.contains("cmcd-starved-while-arriving") }, "\(text.text)")
        #expect(lines.contains { $0.contains("bl=5000 su") }, "ffmpeg's rows: \(text.text)")

        // inspect --json: decoded keys, their sources, problems.
        let json = try runCommand(Paths.rangetap, ["inspect", first, "--json"])
        let doc = try #require(try JSONSerialization.jsonObject(with: json.stdout) as? Object)
        let exchanges = try #require(doc["exchanges"] as? [Object])
        let cmcds = exchanges.compactMap { $0["cmcd"] as? Object }
        #expect(cmcds.count == exchanges.count, "every request carried CMCD")
        let spec = try #require(cmcds.first)
        let keys = try #require(spec["keys"] as? Object)
        #expect((keys["bl"] as? NSNumber)?.intValue == 21300)
        #expect(keys["sid"] as? String == Self.sid)
        #expect(keys["bs"] as? Bool == true)
        #expect((spec["sources"] as? Object)?["bl"] as? String == "query")
        #expect((spec["problems"] as? [String])?.isEmpty == true)
        let headerForm = try #require(cmcds.dropFirst().first)
        #expect((headerForm["sources"] as? Object)?["bs"] as? String == "CMCD-Status")
        let malformed = try #require(cmcds.dropFirst(2).first)
        #expect((malformed["problems"] as? [String])?.count ?? 0 >= 2, "\(malformed)")
        let ffmpegRows = cmcds.dropFirst(3)
        #expect(ffmpegRows.count >= 2, "ffmpeg made several range requests")
        #expect(ffmpegRows.allSatisfy { ($0["keys"] as? Object)?["bl"] as? NSNumber == 5000 })
        // One resource for the file, whatever CMCD the URLs carried.
        let resources = try #require(doc["resources"] as? [Object])
        #expect(resources.compactMap { $0["url"] as? String } == [video], "\(resources)")

        // HTML: the buffer chart, and the hostile value inert.
        let root = Paths.temporaryDirectory("cmcd")
        defer { try? FileManager.default.removeItem(atPath: root) }
        let html = try runCommand(Paths.rangetap, ["inspect", first, "--html", root + "/r.html"])
        #expect(html.status == 0, "\(html.stderr)")
        let page = try String(contentsOfFile: root + "/r.html", encoding: .utf8)
        #expect(page.contains("id=\"player-buffer\""))
        #expect(page.contains("<g class=\"bl starved\""), "the bs request is marked")
        #expect(!page.contains("<script>x</script>"))
        #expect(page.contains("&lt;script&gt;x&lt;/script&gt;"))

        // HAR.
        let har = try runCommand(Paths.rangetap, ["export", first, "--har", root + "/r.har"])
        #expect(har.status == 0, "\(har.stderr)")
        let harDoc = try #require(
            try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: root + "/r.har"))) as? Object)
        let entries = try #require((harDoc["log"] as? Object)?["entries"] as? [Object])
        #expect(((entries.first?["_cmcd"] as? Object)?["keys"] as? Object)?["mtp"] as? NSNumber == 48100)

        // Fleet rows, and DuckDB joining the two captures on the session id.
        let exports = root + "/exports"
        try FileManager.default.createDirectory(atPath: exports, withIntermediateDirectories: true)
        for (name, capture) in [("first", first), ("second", second)] {
            let r = try runCommand(Paths.rangetap, ["export", capture, "--exchanges", exports + "/\(name).jsonl"])
            #expect(r.status == 0, "\(r.stderr)")
        }
        let rows = try String(contentsOfFile: exports + "/first.jsonl", encoding: .utf8).split(separator: "\n")
        let row = try #require(try JSONSerialization.jsonObject(with: Data(rows[0].utf8)) as? Object)
        #expect(row["cmcdSid"] as? String == Self.sid)
        #expect(row["cmcdBl"] as? NSNumber == 21300)
        #expect(row["cmcdBs"] as? Bool == true)
        let q = try runCommand(
            "/usr/bin/env", ["python3", Paths.root + "/tools/fleet-query.py", exports, "--json"], timeout: 120)
        #expect(q.status == 0, "\(q.stderr)")
        let fleet = try #require(try JSONSerialization.jsonObject(with: q.stdout) as? Object)
        let sessions = try #require(fleet["per_session"] as? [Object])
        let joined = try #require(sessions.first { $0["sid"] as? String == Self.sid }, "\(sessions)")
        #expect((joined["captures"] as? NSNumber)?.intValue == 2)
        #expect(
            (joined["requests"] as? NSNumber)?.intValue == cmcds.count + 1,
            "every request of the first capture and one of the second: \(joined)")
        #expect((joined["min_buffer_ms"] as? NSNumber)?.intValue == 900)
        #expect(sessions.contains { $0["sid"] as? String == "other" && ($0["captures"] as? NSNumber)?.intValue == 1 })
    }
}
