import Foundation
import RangeTapCore
import RangeTapTestSupport
import Testing

/// `inspect --host/--path/--status/--fail-on`, the host column of a capture with two hosts, and
/// ranges that are never cut.
@Suite
struct InspectFilterTests {
    /// Two hosts, a 206 and a 404 on one, a 200 on the other, one with a long Content-Range.
    struct TwoHostCapture {
        let path: String
        init() throws {
            path = Paths.temporaryRoot + "/rangetap-two-hosts-" + UUID().uuidString + ".rtap"
            try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
            let lines = [
                #"{"type":"capture","version":1,"tool":"rangetap test","startedAt":"2026-11-23T10:00:00.000Z","bodies":false,"redacted":true,"listen":"127.0.0.1:8080"}"#,
                #"{"type":"conn.open","t":1000,"conn":1,"peer":"127.0.0.1:50000"}"#,
                #"{"type":"request","t":2000,"ex":1,"conn":1,"method":"GET","target":"http://cdn.test:8081/v/seg-1.m4s","version":"HTTP/1.1","url":"http://cdn.test:8081/v/seg-1.m4s","headers":["Host: cdn.test:8081\r\n","Range: bytes=1000000000-1000000099\r\n"]}"#,
                #"{"type":"response","t":3000,"ex":1,"status":206,"reused":false,"upstreamPort":40000,"lines":["HTTP/1.1 206 Partial Content\r\n","Content-Range: bytes 1000000000-1000000099/2000000000\r\n","Content-Length: 100\r\n","Accept-Ranges: bytes\r\n","\r\n"]}"#,
                #"{"type":"end","t":5000,"ex":1,"bytes":0,"sha256":""}"#,
                #"{"type":"request","t":6000,"ex":2,"conn":1,"method":"GET","target":"http://cdn.test:8081/v/missing.m4s","version":"HTTP/1.1","url":"http://cdn.test:8081/v/missing.m4s","headers":["Host: cdn.test:8081\r\n"]}"#,
                #"{"type":"response","t":7000,"ex":2,"status":404,"reused":true,"upstreamPort":40000,"lines":["HTTP/1.1 404 Not Found\r\n","Content-Length: 0\r\n","\r\n"]}"#,
                #"{"type":"end","t":7500,"ex":2,"bytes":0,"sha256":""}"#,
                #"{"type":"conn.open","t":8000,"conn":2,"peer":"127.0.0.1:50001"}"#,
                #"{"type":"request","t":9000,"ex":3,"conn":2,"method":"GET","target":"http://manifest.test/index.m3u8","version":"HTTP/1.1","url":"http://manifest.test/index.m3u8","headers":["Host: manifest.test\r\n"]}"#,
                #"{"type":"response","t":9500,"ex":3,"status":200,"reused":false,"upstreamPort":40001,"lines":["HTTP/1.1 200 OK\r\n","Content-Length: 0\r\n","\r\n"]}"#,
                #"{"type":"end","t":9900,"ex":3,"bytes":0,"sha256":""}"#,
            ]
            try Data(lines.map { $0 + "\n" }.joined().utf8).write(to: URL(fileURLWithPath: path + "/events.jsonl"))
            try Data().write(to: URL(fileURLWithPath: path + "/body.bin"))
        }
        func remove() { try? FileManager.default.removeItem(atPath: path) }
    }

    func inspect(_ args: [String]) throws -> CommandResult {
        try runCommand(
            Paths.rangetap, ["inspect"] + args, environment: ["NO_COLOR": "1", "PATH": "/usr/bin:/bin"],
            directory: Paths.root)
    }

    /// Exchange ids of `inspect --json` output.
    func ids(_ r: CommandResult) throws -> [Int] {
        let doc = try #require(try JSONSerialization.jsonObject(with: r.stdout) as? [String: Any])
        return (doc["exchanges"] as? [[String: Any]] ?? []).compactMap { $0["id"] as? Int }
    }

    @Test func twoHostsGetAHostColumnAndRangesAreNeverCut() throws {
        let c = try TwoHostCapture()
        defer { c.remove() }
        let r = try inspect([c.path])
        #expect(r.status == 0, "\(r.stderr)")
        let lines = r.text.split(separator: "\n").map(String.init)
        #expect(lines.contains { $0.contains(" host ") && $0.contains(" path ") }, "\(r.text)")
        let row1 = try #require(lines.first { $0.hasPrefix("  #1 ") })
        #expect(
            row1.contains("cdn.test:8081") && row1.contains("bytes=1000000000-1000000099")
                && row1.contains("bytes 1000000000-1000000099/2000000000"), "\(row1)")
        #expect(lines.contains { $0.hasPrefix("  #3 ") && $0.contains("manifest.test ") })
        // One host left: no host column.
        let one = try inspect([c.path, "--host", "manifest.test"])
        #expect(one.status == 0 && !one.text.contains(" host "), "\(one.text)")
    }

    @Test func filtersKeepWhatTheyMatchInJSONAndTheSummaryCountsThose() throws {
        let c = try TwoHostCapture()
        defer { c.remove() }
        #expect(try ids(inspect([c.path, "--json"])) == [1, 2, 3])
        #expect(
            try ids(inspect([c.path, "--json", "--host", "cdn.test"])) == [1, 2], "a host without port matches any port"
        )
        #expect(try ids(inspect([c.path, "--json", "--host", "cdn.test:80"])) == [])
        #expect(try ids(inspect([c.path, "--json", "--host", "CDN.test:8081", "--status", "2xx"])) == [1])
        #expect(try ids(inspect([c.path, "--json", "--path", "*.m4s"])) == [1, 2])
        #expect(try ids(inspect([c.path, "--json", "--path", "/index.m3u8", "--path", "seg-*.m4s"])) == [1, 3])
        #expect(try ids(inspect([c.path, "--json", "--status", "404", "--status", "200"])) == [2, 3])
        let text = try inspect([c.path, "--status", "4xx"])
        #expect(text.text.contains("#2 ") && !text.text.contains("#1 ") && !text.text.contains("#3 "), "\(text.text)")
        let doc = try #require(
            try JSONSerialization.jsonObject(with: inspect([c.path, "--json", "--host", "manifest.test"]).stdout)
                as? [String: Any])
        #expect((doc["summary"] as? [String: Any])?["requests"] as? Int == 1)
    }

    @Test func badFilterValuesNameWhatIsWrong() throws {
        let c = try TwoHostCapture()
        defer { c.remove() }
        for (args, words) in [
            (["--status", "2x"], "--status \"2x\""), (["--status", "600"], "--status \"600\""),
            (["--path", "v/*.m4s"], "must start with /"), (["--host", "a/b"], "--host \"a/b\""),
        ] {
            let r = try inspect([c.path] + args)
            #expect(r.status == 64 || r.status == 2, "\(args): \(r.status)")
            #expect(r.stderr.contains(words), "\(args): \(r.stderr)")
        }
    }

    @Test func failOnExitsOneOnlyWhenSuchAFindingExists() throws {
        // python-http-server: the origin ignored Range (errors and warnings); curl-ranges: info only.
        #expect(try inspect(["captures/python-http-server.rtap", "--fail-on", "error"]).status == 1)
        #expect(try inspect(["captures/python-http-server.rtap", "--fail-on", "warn", "--json"]).status == 1)
        #expect(try inspect(["captures/curl-ranges.rtap", "--fail-on", "warn"]).status == 0)
        #expect(try inspect(["captures/curl-ranges.rtap"]).status == 0)
        // Filtered to nothing: nothing to fail on.
        #expect(try inspect(["captures/python-http-server.rtap", "--fail-on", "warn", "--status", "5xx"]).status == 0)
        let bad = try inspect(["captures/curl-ranges.rtap", "--fail-on", "info"])
        #expect(bad.status != 0 && bad.status != 1)
    }
}

/// ``ExchangeFilter`` on its own.
struct ExchangeFilterUnitTests {
    @Test func statusPatterns() throws {
        #expect(throws: ExchangeFilterError.badStatus("2x")) { try ExchangeFilter(statuses: ["2x"]) }
        #expect(throws: ExchangeFilterError.badStatus("099")) { try ExchangeFilter(statuses: ["099"]) }
        #expect(throws: ExchangeFilterError.badStatus("6xx")) { try ExchangeFilter(statuses: ["6xx"]) }
        _ = try ExchangeFilter(statuses: ["206", "4XX", "1xx"])
    }
}
