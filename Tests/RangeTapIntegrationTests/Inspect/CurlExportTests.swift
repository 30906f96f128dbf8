import Foundation
import RangeTapCore
import RangeTapTestSupport
import Testing

/// `export --curl N`: the printed command, run by bash, sends the origin the header lines the
/// client sent through the proxy, in their order and spelling (checked on the raw bytes the
/// origin received), and says what it cannot carry.
@Suite(.serialized)
struct CurlExportTests {
    @Test(.timeLimit(.minutes(2)))
    func thePrintedCommandRepeatsTheRequestHeadLineForLine() async throws {
        let origin = try RawOrigin()
        defer { origin.stop() }
        try origin.respond(
            "a",
            with: "HTTP/1.1 206 Partial Content\r\nContent-Range: bytes 0-9/100\r\nContent-Length: 10\r\n\r\n0123456789"
        )
        let proxy = try await ProxyHarness()
        let curl = try Paths.tool("curl")
        let sent = try runCommand(
            curl,
            [
                "-sS", "-g", "-o", "/dev/null", "-x", proxy.url, "-r", "0-9", "-H",
                "x-Odd-CASE: it's \"quoted\" $HOME `x`",
                "-H", "Authorization: Bearer s3cret", "-H", "User-Agent:", origin.url("a") + "?q=[1]&CMCD=bl%3D1",
            ])
        #expect(sent.status == 0, "\(sent.stderr)")
        let capture = try await proxy.stopAndRead()
        let recorded = try #require(capture.exchanges.first)

        let printed = try runCommand(Paths.rangetap, ["export", proxy.capturePath, "--curl", "\(recorded.id)"])
        #expect(printed.status == 0, "\(printed.stderr)")
        let lines = printed.text.split(separator: "\n").map(String.init)
        #expect(lines.first?.hasPrefix("# exchange #\(recorded.id) of ") == true, "\(printed.text)")
        #expect(lines.contains { $0.hasPrefix("#") && $0.contains("redacted") }, "the redacted secret is named")
        let command = try #require(lines.last)
        #expect(command.hasPrefix("curl "))

        // Run it as a user would, straight to the origin.
        let run = try runCommand("/bin/bash", ["-c", command + " -sS -o /dev/null -w '%{http_code}'"])
        #expect(run.text == "206", "\(run.stderr)")
        let head = try origin.request("a").components(separatedBy: "\r\n\r\n")[0].components(separatedBy: "\r\n")
        #expect(head.first == "GET /r/a?q=[1]&CMCD=bl%3D1 HTTP/1.1", "\(head)")
        let asSent = recorded.requestHeaders.map { String($0.content) }
        #expect(Array(head.dropFirst()) == asSent, "repeated \(head.dropFirst()) recorded \(asSent)")
        #expect(asSent.contains("x-Odd-CASE: it's \"quoted\" $HOME `x`"))
        #expect(asSent.contains("Authorization: <redacted>"))
        #expect(!asSent.contains { $0.hasPrefix("User-Agent") }, "curl's own User-Agent is suppressed")
    }

    @Test func anExchangeThatIsNotThereOrATunnelIsAPlainError() throws {
        let root = Paths.temporaryDirectory("curl-export")
        defer { try? FileManager.default.removeItem(atPath: root) }
        let path = root + "/t.rtap"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        let lines = [
            #"{"type":"capture","version":1,"tool":"rangetap test","startedAt":"2026-11-29T10:00:00.000Z","bodies":false,"redacted":true,"listen":"127.0.0.1:8080"}"#,
            #"{"type":"conn.open","t":1,"conn":1,"peer":"127.0.0.1:50000"}"#,
            #"{"type":"request","t":2,"ex":1,"conn":1,"method":"CONNECT","target":"example.com:443","version":"HTTP/1.1","headers":["Host: example.com:443\r\n"]}"#,
        ]
        try Data(lines.map { $0 + "\n" }.joined().utf8).write(to: URL(fileURLWithPath: path + "/events.jsonl"))
        let tunnel = try runCommand(Paths.rangetap, ["export", path, "--curl", "1"])
        #expect(tunnel.status != 0)
        #expect(
            tunnel.stderr.contains("exchange #1 cannot be repeated with curl: it is a CONNECT tunnel"),
            "\(tunnel.stderr)")
        let missing = try runCommand(Paths.rangetap, ["export", path, "--curl", "7"])
        #expect(missing.status != 0)
        #expect(missing.stderr.contains("the capture has no exchange #7"), "\(missing.stderr)")
    }
}
