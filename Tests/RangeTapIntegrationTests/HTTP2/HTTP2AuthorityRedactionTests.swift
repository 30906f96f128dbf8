import Foundation
import RangeTapCore
import RangeTapProxy
import RangeTapTestSupport
import Testing

/// An HTTP/2 request whose `:authority` carries a password (`user:pw@host`): the capture keeps
/// the user and the host, never the password, as it does for URLs (unless `--keep-secrets`).
@Suite(.serialized)
struct HTTP2AuthorityRedactionTests {
    func h2c(_ proxy: ProxyHarness, authority: String) throws -> CommandResult {
        try runCommand(
            try Paths.tool("python3"),
            [
                Paths.root + "/Tests/Clients/h2_range_client.py",
                "--proxy", "127.0.0.1:\(proxy.port)", "--authority", authority, "--path", "/a.bin", "--ranges", "0-9",
            ])
    }

    @Test func aPasswordInTheAuthorityIsNotWrittenToTheCapture() async throws {
        let dir = Paths.temporaryDirectory("www-authority")
        try Data(repeating: 0x62, count: 1000).write(to: URL(fileURLWithPath: dir + "/a.bin"))
        let nginx = try NginxServer(root: dir)
        for keep in [false, true] {
            let proxy = try await ProxyHarness { $0.keepSecrets = keep }
            let r = try h2c(proxy, authority: "viewer:s3cret@127.0.0.1:\(nginx.port)")
            #expect(r.text.contains("\"status\": 206, \"bytes\": 10"), "\(r.text) \(r.stderr)")
            _ = try await proxy.stopAndRead()
            let events = try String(contentsOfFile: proxy.capturePath + "/events.jsonl", encoding: .utf8)
            let request = try #require(
                events.split(separator: "\n").first { $0.contains("\"type\":\"request\"") && $0.contains("\"stream\"") }
            )
            if keep {
                #expect(request.contains("viewer:s3cret@"), "--keep-secrets keeps it: \(request)")
            } else {
                #expect(!events.contains("s3cret"), "the password is nowhere in events.jsonl: \(request)")
                #expect(request.contains(":authority: viewer:<redacted>@127.0.0.1:\(nginx.port)"), "\(request)")
            }
        }
    }
}
