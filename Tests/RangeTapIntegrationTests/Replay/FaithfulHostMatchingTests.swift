import Foundation
import RangeTapCore
@testable import RangeTapReplay
import RangeTapTestSupport
import Testing

/// `serve --faithful` on a capture of two origins with the same path: each request is answered
/// from the origin its Host header or absolute-form target names; `--match path` keeps the old
/// path-only matching.
@Suite(.serialized)
struct FaithfulHostMatchingTests {
    /// Two python http.server origins, each serving `/same.bin` with its own bytes, recorded
    /// through the proxy. Returns the capture and both origins' `host:port`.
    func twoOriginCapture() async throws -> (path: String, a: String, b: String) {
        var authorities: [String] = []
        var servers: [PythonHTTPServer] = []
        for fill in ["A", "B"] {
            let root = Paths.temporaryDirectory("origin-\(fill)")
            try Data(String(repeating: fill, count: 3000).utf8).write(to: URL(fileURLWithPath: root + "/same.bin"))
            let server = try PythonHTTPServer(root: root)
            servers.append(server)
            authorities.append("127.0.0.1:\(server.port)")
        }
        let proxy = try await ProxyHarness()
        for a in authorities {
            let r = try runCommand(
                try Paths.tool("curl"),
                ["-s", "--noproxy", "", "-x", proxy.url, "-o", "/dev/null", "http://\(a)/same.bin"])
            #expect(r.status == 0)
        }
        let capture = try await proxy.stopAndRead()
        servers.forEach { $0.stop() }
        #expect(capture.requests.count == 2)
        return (proxy.capturePath, authorities[0], authorities[1])
    }

    /// curl with `args`: through `--proxy` when they name one (no host bypasses it), else direct.
    func curl(_ args: [String]) throws -> String {
        let r = try runCommand(try Paths.tool("curl"), ["-s", "--noproxy", args.contains("--proxy") ? "" : "*"] + args)
        #expect(r.status == 0, "\(args): \(r.stderr)")
        return r.text
    }

    @Test func eachOriginGetsItsOwnBytesByHostOrAbsoluteTarget() async throws {
        let capture = try await twoOriginCapture()
        let fixture = try FixtureServer(capturePath: capture.path, mode: .faithful, speed: 0)
        let port = try await fixture.start()
        defer { Task { await fixture.stop() } }
        let serve = "http://127.0.0.1:\(port)"
        let a = String(repeating: "A", count: 3000), b = String(repeating: "B", count: 3000)
        // As a proxy: absolute-form targets name the origin. Asked B first, A second: order does not decide.
        #expect(try curl(["--proxy", serve, "http://\(capture.b)/same.bin"]) == b)
        #expect(try curl(["--proxy", serve, "http://\(capture.a)/same.bin"]) == a)
        // As the origin, with the recorded Host header.
        #expect(try curl(["-H", "Host: \(capture.b)", serve + "/same.bin"]) == b)
        #expect(try curl(["-H", "Host: \(capture.a)", serve + "/same.bin"]) == a)
        // Repeated: the last match for that host again, never the other origin's.
        #expect(try curl(["-H", "Host: \(capture.b)", serve + "/same.bin"]) == b)
        // An origin the capture never saw with that path: 404 naming the host it looked on.
        let other = try runCommand(
            try Paths.tool("curl"),
            ["-s", "--noproxy", "", "-w", "%{http_code}", "--proxy", serve, "http://\(capture.b)/other.bin"])
        #expect(other.text.hasSuffix("404"))
        #expect(other.text.contains("GET /other.bin on \(capture.b)"), "\(other.text)")
        #expect(other.text.contains("(host \(capture.a))") && other.text.contains("(host \(capture.b))"))
    }

    @Test func matchPathIgnoresTheHostAsBefore() async throws {
        let capture = try await twoOriginCapture()
        let fixture = try FixtureServer(capturePath: capture.path, mode: .faithful, speed: 0, matching: .path)
        let port = try await fixture.start()
        defer { Task { await fixture.stop() } }
        // Recorded order, whatever the host: A (first), then B, then B again (the last match).
        #expect(
            try curl(["-H", "Host: \(capture.b)", "http://127.0.0.1:\(port)/same.bin"])
                == String(repeating: "A", count: 3000))
        #expect(
            try curl(["-H", "Host: \(capture.b)", "http://127.0.0.1:\(port)/same.bin"])
                == String(repeating: "B", count: 3000))
    }

    @Test func whichRecordedOriginsAnswerARequest() {
        func ex(_ id: Int, _ url: String) -> RecordedExchange {
            RecordedExchange(
                id: id, method: "GET", path: RequestPath.originForm(url), range: nil, origin: RequestOrigin(url: url),
                requestAt: 0)
        }
        let index = RecordedExchanges(exchanges: [
            ex(1, "http://media.test/a"), ex(2, "https://media.test/a"), ex(3, "http://media.test:8080/a"),
            ex(4, "http://[::1]:9000/a"),
        ])
        let plain = RequestOrigin(host: "media.test", port: 80), tls = RequestOrigin(host: "media.test", port: 443),
            alt = RequestOrigin(host: "media.test", port: 8080)
        // Same host and port; no port written means the default ports.
        #expect(index.origins(answering: RequestOrigin(hostHeader: "MEDIA.test:8080", defaultPort: nil)) == [alt])
        #expect(index.origins(answering: RequestOrigin(hostHeader: "media.test.", defaultPort: nil)) == [plain, tls])
        #expect(index.origins(answering: RequestOrigin(url: "https://media.test/a")) == [tls])
        // The same host on a port it never had (serve's own): that host on any port.
        #expect(
            index.origins(answering: RequestOrigin(hostHeader: "media.test:8081", defaultPort: nil)) == [
                plain, tls, alt,
            ])
        #expect(
            index.origins(answering: RequestOrigin(hostHeader: "[::1]:8081", defaultPort: nil)) == [
                RequestOrigin(host: "::1", port: 9000)
            ])
        // A host the capture never saw: any origin (the client named serve itself).
        #expect(index.origins(answering: RequestOrigin(hostHeader: "127.0.0.1:8081", defaultPort: nil)) == nil)
        #expect(index.origins(answering: nil) == nil)
        #expect(
            RecordedExchanges(exchanges: [ex(1, "http://media.test/a")], matching: .path).origins(answering: alt) == nil
        )
        #expect(RequestOrigin(url: "http://user:pw@Example.COM:81/x")?.description == "example.com:81")
        #expect(RequestOrigin(hostHeader: "h:99999", defaultPort: nil) == nil)
    }
}
