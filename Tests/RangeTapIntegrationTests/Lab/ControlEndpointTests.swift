import Foundation
import RangeTapCore
import RangeTapProxy
import RangeTapTestSupport
import Testing

/// The control endpoint (`rangetap shape`) against what a web page in a browser that uses the
/// proxy can send (issues 37 and 39; mitmproxy's CVE-2025-23217): the endpoint is the run's Unix
/// socket, which no request through the proxy reaches; on the proxy `rangetap.invalid/shape` is
/// only a 404 of the CA page. On the socket only a POST with rangetap's own content type and this
/// run's token changes the link; a request carrying `Origin` gets no answer at all. The link's
/// spec is read back from the capture's `shape` events.
@Suite(.serialized)
struct ControlEndpointTests {
    let origins: SchemeOrigins

    init() throws {
        let dir = Paths.temporaryDirectory("control-www")
        try Data("not the control endpoint\n".utf8).write(to: URL(fileURLWithPath: dir + "/shape"))
        origins = try SchemeOrigins(root: dir)
    }

    func curl(_ args: [String]) throws -> CommandResult {
        try runCommand(try Paths.tool("curl"), ["-s", "--noproxy", "", "-w", " %{http_code}"] + args)
    }

    /// The specs of the capture's shape events (the first is the one record started with).
    func specs(_ proxy: ProxyHarness) async throws -> [String] {
        try await proxy.stopAndRead().events("shape").compactMap { if case .shape(let e) = $0 { e.spec } else { nil } }
    }

    static let url = "http://rangetap.invalid/shape?rate=8kbit"

    @Test func noRequestThroughTheProxyChangesTheLink() async throws {
        let proxy = try await ProxyHarness { $0.shape = try? ShapeSpec(parsing: "rate=40mbit") }
        let token = ["-H", "\(LinkControlRequest.tokenField): \(proxy.server.controlToken)"]
        let type = ["-H", "Content-Type: \(LinkControlRequest.contentType)"]
        // Exactly what rangetap shape sends, token included, but through the proxy: the CA page's 404.
        let through = try curl(["-x", proxy.url, "-X", "POST"] + type + token + [Self.url])
        #expect(
            through.text.hasSuffix(" 404") && through.text.contains("never through the proxy"), "\(through.text)")
        // Through the proxy to the socket's file is no URL at all; to the listener itself is a loop.
        let loop = try curl(
            ["-x", proxy.url, "-X", "POST"] + type + token + ["http://127.0.0.1:\(proxy.port)/shape?rate=8kbit"])
        #expect(!loop.text.hasSuffix(" 200"), "\(loop.text)")
        let all = try await specs(proxy)
        #expect(all.count == 1, "a request through the proxy changed the link: \(all)")
    }

    @Test func onTheSocketOnlyTheTokensRequestChangesTheLink() async throws {
        let proxy = try await ProxyHarness { $0.shape = try? ShapeSpec(parsing: "rate=40mbit") }
        let socket = ["--unix-socket", ControlToken.socketPath(port: proxy.port)]
        let token = ["-H", "\(LinkControlRequest.tokenField): \(proxy.server.controlToken)"]
        let type = ["-H", "Content-Type: \(LinkControlRequest.contentType)"]
        // A form a page would post: no answer at all (curl: empty reply, code 000).
        let form = try curl(
            socket + [
                "-X", "POST", "-H", "Origin: http://evil.example", "-H",
                "Content-Type: application/x-www-form-urlencoded", "-d", "", Self.url,
            ])
        #expect(form.text.hasSuffix(" 000"), "\(form.text)")
        // Even with the right type and token, a request from a page (Origin) is not answered.
        let fromPage = try curl(
            socket + ["-X", "POST", "-H", "Origin: http://evil.example"] + type + token + [Self.url])
        #expect(fromPage.text.hasSuffix(" 000"), "\(fromPage.text)")
        // A type a page may send without a preflight.
        let plain = try curl(
            socket + ["-X", "POST", "-H", "Content-Type: text/plain"] + token + [
                "http://rangetap.invalid/shape?latency=5000ms"
            ])
        #expect(plain.text.hasSuffix(" 415"), "\(plain.text)")
        // No token, a wrong one, another method.
        let bare = try curl(socket + ["-X", "POST"] + type + [Self.url])
        #expect(bare.text.hasSuffix(" 403") && bare.text.contains(LinkControlRequest.tokenField), "\(bare.text)")
        let wrong = try curl(
            socket + [
                "-X", "POST", "-H", "\(LinkControlRequest.tokenField): \(String(repeating: "0", count: 32))",
            ] + type + [Self.url])
        #expect(wrong.text.hasSuffix(" 403"), "\(wrong.text)")
        let put = try curl(socket + ["-X", "PUT"] + type + token + [Self.url])
        #expect(put.text.hasSuffix(" 405"), "\(put.text)")
        let get = try curl(socket + [Self.url])
        #expect(get.text.hasSuffix(" 405"), "\(get.text)")
        // The proxy keeps serving.
        let normal = try curl(["-x", proxy.url, "-o", "/dev/null", origins.url(.http, "shape")])
        #expect(normal.text.hasSuffix(" 200"), "\(normal.text)")
        // What rangetap shape sends does change it.
        let shape = try curl(socket + ["-X", "POST"] + type + token + ["http://rangetap.invalid/shape?rate=2mbit"])
        #expect(shape.text.hasSuffix(" 200") && shape.text.contains("rate=2mbit"), "\(shape.text)")
        let all = try await specs(proxy)
        #expect(
            all.count == 2 && all.last?.contains("rate=2mbit") == true,
            "only the token's request changed the link: \(all)")
    }

    @Test func insideATunnelTheHostIsTheOriginsBusiness() async throws {
        let proxy = try await origins.proxy { $0.shape = try? ShapeSpec(parsing: "rate=40mbit") }
        // The same request rangetap shape sends, inside a tunnel to the origin.
        let inside = try curl(
            ["-x", proxy.url] + proxy.curlTrust + [
                "-X", "POST", "-H", "Host: rangetap.invalid",
                "-H", "Content-Type: \(LinkControlRequest.contentType)", "-H",
                "\(LinkControlRequest.tokenField): \(proxy.server.controlToken)",
                origins.url(.https, "shape?rate=8kbit"),
            ])
        #expect(!inside.text.contains("rate=8kbit"), "the control endpoint answered inside a tunnel: \(inside.text)")
        let all = try await specs(proxy)
        #expect(all.count == 1, "the link changed from inside a tunnel: \(all)")
    }

    @Test func theTokenFileIsThisUsersOnlyAndGoesWithTheRun() async throws {
        let proxy = try await ProxyHarness()
        let path = ControlToken.path(port: proxy.port)
        #expect(ControlToken.read(port: proxy.port) == proxy.server.controlToken)
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
        let socket = ControlToken.socketPath(port: proxy.port)
        #expect(
            (try FileManager.default.attributesOfItem(atPath: socket)[.type] as? FileAttributeType) == .typeSocket)
        let dir = try FileManager.default.attributesOfItem(atPath: ControlToken.directory)
        #expect((dir[.posixPermissions] as? Int) == 0o700)
        let other = try await ProxyHarness()
        #expect(
            proxy.server.controlToken.count == 32 && proxy.server.controlToken != other.server.controlToken,
            "a token per run")
        _ = try await other.stopAndRead()
        _ = try await proxy.stopAndRead()
        #expect(!FileManager.default.fileExists(atPath: path), "the token outlived its run")
        #expect(!FileManager.default.fileExists(atPath: socket), "the control socket outlived its run")
    }
}
