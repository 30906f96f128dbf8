import Foundation
import RangeTapCore
import RangeTapProxy
import RangeTapTestSupport
import Testing

/// A transfer that failed upstream leaves nothing behind for the next one: a name that does not
/// resolve, a refused connection, then requests to a healthy nginx over HTTP/1.1 and h2c, each
/// answered by the origin (its access log) with no error recorded against it.
@Suite(.serialized)
struct UpstreamFailureRecoveryTests {
    let dir: String
    let nginx: NginxServer

    init() throws {
        dir = Paths.temporaryDirectory("www-recovery")
        try Data(repeating: 0x61, count: 100_000).write(to: URL(fileURLWithPath: dir + "/a.bin"))
        nginx = try NginxServer(root: dir)
    }

    func curl(_ args: [String]) throws -> CommandResult {
        try runCommand(try Paths.tool("curl"), ["-s", "--noproxy", ""] + args)
    }

    func h2c(_ proxy: ProxyHarness, authority: String) throws -> CommandResult {
        try runCommand(
            try Paths.tool("python3"),
            [
                Paths.root + "/Tests/Clients/h2_range_client.py",
                "--proxy", "127.0.0.1:\(proxy.port)", "--authority", authority, "--path", "/a.bin", "--ranges", "0-9",
            ])
    }

    @Test func aNameThatDoesNotResolveBreaksNoLaterRequest() async throws {
        let proxy = try await ProxyHarness()
        let refused = try freePort()
        for round in 0..<3 {
            // The failures first, each on a handle that then goes back to libcurl's pool, if any.
            let bad = try curl(["-x", proxy.url, "-o", "/dev/null", "-w", "%{http_code}", "http://nx.invalid/a"])
            #expect(bad.text == "502", "round \(round): \(bad.text) \(bad.stderr)")
            let closed = try curl([
                "-x", proxy.url, "-o", "/dev/null", "-w", "%{http_code}", "http://127.0.0.1:\(refused)/a",
            ])
            #expect(closed.text == "502", "round \(round): \(closed.text)")
            let good = try curl([
                "-x", proxy.url, "-r", "0-9", "-o", "/dev/null", "-w", "%{http_code} %{size_download}",
                nginx.url("a.bin"),
            ])
            #expect(good.text == "206 10", "round \(round): HTTP/1.1 after a failure: \(good.text) \(good.stderr)")
            let badH2 = try h2c(proxy, authority: "nx.invalid")
            #expect(badH2.text.contains("\"status\": 502"), "round \(round): \(badH2.text) \(badH2.stderr)")
            let goodH2 = try h2c(proxy, authority: "127.0.0.1:\(nginx.port)")
            #expect(
                goodH2.text.contains("\"status\": 206, \"bytes\": 10"),
                "round \(round): h2c after a failure: \(goodH2.text) \(goodH2.stderr)")
        }
        let capture = try await proxy.stopAndRead()
        let healthy = capture.requests.filter { ($0.url ?? "").contains("127.0.0.1:\(nginx.port)") }
        #expect(healthy.count == 6)
        #expect(healthy.allSatisfy { $0.status == 206 && $0.outcome == .complete }, "\(healthy.map(\.summaryLine))")
        // Every error names a failing origin, none the healthy one.
        let errored = Set(capture.events("error").compactMap { if case .error(let e) = $0 { e.exchange } else { nil } })
        #expect(Set(healthy.map(\.id)).isDisjoint(with: errored))
        // nginx's own log: every healthy request reached it.
        #expect(nginx.accessLog().filter { $0.contains("/a.bin") }.count == 6)
    }
}
