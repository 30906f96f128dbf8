import Foundation
import RangeTapCore
import RangeTapProxy
import RangeTapTestSupport
import Testing

/// `--upstream` serves its upstream only (issue 37, item 2): before, the reverse-proxy listener
/// also fetched absolute-form requests for any other host, opened CONNECT tunnels and took h2c
/// requests whose `:path` was another origin's URL: an open proxy with `--allow-remote`. Two
/// nginx origins; the second one's access log is the truth of whether anything reached it.
@Suite(.serialized)
struct ReverseProxyConfinementTests {
    let upstream: NginxServer
    let other: NginxServer

    init() throws {
        let dir = Paths.temporaryDirectory("confined-www")
        try Data(repeating: 7, count: 1000).write(to: URL(fileURLWithPath: dir + "/f.bin"))
        upstream = try NginxServer(root: dir)
        other = try NginxServer(root: dir)
    }

    func curl(_ args: [String]) throws -> CommandResult {
        try runCommand(try Paths.tool("curl"), ["-s", "--noproxy", "", "-o", "/dev/null", "-w", "%{http_code}"] + args)
    }

    func h2c(_ proxy: ProxyHarness, path: String) throws -> Int? {
        let r = try runCommand(
            try Paths.tool("python3"),
            [
                Paths.root + "/Tests/Clients/h2_range_client.py",
                "--proxy", "127.0.0.1:\(proxy.port)", "--authority", "127.0.0.1:\(other.port)", "--path", path,
                "--ranges", "0-9",
            ])
        try #require(r.status == 0, "\(r.stderr)")
        struct Out: Decodable {
            struct S: Decodable { var status: Int? }
            var streams: [S]
        }
        return try JSONDecoder().decode(Out.self, from: r.stdout).streams.first?.status
    }

    @Test func aReverseProxyRefusesEveryOtherOrigin() async throws {
        let proxy = try await ProxyHarness { $0.upstream = "http://127.0.0.1:\(upstream.port)" }
        #expect(try curl(["\(proxy.url)/f.bin"]).text == "200", "origin-form goes to the upstream")
        #expect(
            try curl(["-x", proxy.url, upstream.url("f.bin")]).text == "200",
            "the upstream's own URL in absolute form is fine")
        #expect(try curl(["-x", proxy.url, other.url("f.bin")]).text == "403")
        let tunnel = try curl(["-x", proxy.url, "-p", other.url("f.bin")])
        #expect(tunnel.text == "000" && tunnel.status != 0, "curl: CONNECT refused")
        #expect(try h2c(proxy, path: other.url("f.bin")) == 403)
        // The proxy keeps serving its upstream.
        #expect(try curl(["\(proxy.url)/f.bin"]).text == "200")
        #expect(other.accessLog().isEmpty, "a request reached the other origin: \(other.accessLog())")
        let capture = try await proxy.stopAndRead()
        let refusals = capture.events("error").compactMap {
            if case .error(let e) = $0, e.kind == .refused { e } else { nil }
        }
        #expect(
            refusals.count == 3 && refusals.allSatisfy { $0.status == 403 && $0.message.contains("--forward") },
            "\(refusals)")
    }

    @Test func forwardMakesItAForwardProxyToo() async throws {
        let proxy = try await ProxyHarness {
            $0.upstream = "http://127.0.0.1:\(upstream.port)"
            $0.forward = true
        }
        #expect(try curl(["-x", proxy.url, other.url("f.bin")]).text == "200")
        #expect(try h2c(proxy, path: other.url("f.bin")) == 206)
        #expect(other.accessLog().count == 2)
        _ = try await proxy.stopAndRead()
    }
}
