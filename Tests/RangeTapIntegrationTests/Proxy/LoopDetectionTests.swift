import Foundation
import Logging
import RangeTapCore
@testable import RangeTapProxy
import RangeTapTestSupport
import Testing

/// A target or `--upstream` that reaches rangetap itself is recognised by address, not by
/// spelling: `0.0.0.0`, `[::ffff:127.0.0.1]`, `2130706433` and `0x7f000001` used to pass the
/// string match and recurse until descriptors ran out.
@Suite("Loop detection")
struct LoopDetectionTests {
    private func refusal(_ result: Result<String, RequestTarget.Refusal>) -> RequestTarget.Refusal? {
        if case .failure(let r) = result { r } else { nil }
    }

    @Test(arguments: [
        "http://0.0.0.0:8080/a", "http://[::ffff:127.0.0.1]:8080/a", "http://2130706433:8080/a",
        "http://0x7f000001:8080/a",
        "http://0177.0.0.1:8080/a", "http://127.1:8080/a", "http://[::]:8080/a", "http://[0:0:0:0:0:0:0:1]:8080/",
        "http://0:8080/",
        "http://localhost.:8080/", "http://0.0.0.0:/", "http://127.0.0.1:/",
    ])
    func numericSpellingsOfThisMachineAreLoops(target: String) throws {
        let ownPort = target.contains(":8080") ? 8080 : 80
        let r = try #require(refusal(RequestTarget.resolve(target, upstream: nil, ownPort: ownPort)))
        #expect(r.status == .loopDetected)
    }

    @Test(arguments: [
        "http://0.0.0.0:8080", "http://[::ffff:127.0.0.1]:8080/", "http://2130706433:8080", "http://[::]:8080",
    ])
    func upstreamSpellingsOfThisMachineAreLoops(upstream: String) throws {
        let r = try #require(refusal(RequestTarget.resolve("/a.mp4", upstream: upstream, ownPort: 8080)))
        #expect(r.status == .loopDetected)
    }

    @Test func otherHostsAndPortsAreForwarded() {
        for target in [
            "http://127.example.com:8080/", "http://0.0.0.0:8081/", "http://10.255.255.1:8080/", "http://[::2]:8080/",
            "http://2130706434:8081/",
        ] {
            #expect(RequestTarget.resolve(target, upstream: nil, ownPort: 8080) == .success(target), "\(target)")
        }
    }

    /// A name that resolves to loopback (here: one /etc/hosts maps to 127.x) on the proxy's
    /// port is the proxy too.
    @Test func aNameResolvingToLoopbackIsALoop() throws {
        #expect(ProxyAddress.addresses(of: "localhost").contains { $0.isLoopback })
        let hosts = (try? String(contentsOfFile: "/etc/hosts", encoding: .utf8)) ?? ""
        let name = hosts.split(separator: "\n").compactMap { line -> String? in
            let f = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard f.count >= 2, f[0].hasPrefix("127."), !f[0].hasPrefix("#") else { return nil }
            return f.dropFirst().map(String.init).first { !$0.lowercased().contains("localhost") }
        }.first
        guard let name else { return }
        #expect(ProxyAddress.reachesProxy(host: name, port: 8080, ownPort: 8080), "\(name)")
        #expect(!ProxyAddress.reachesProxy(host: name, port: 8081, ownPort: 8080))
    }

    @Test func theListenAddressItselfIsTheProxy() throws {
        // Listening on all addresses: any address of this machine on the port is the proxy.
        #expect(ProxyAddress.reachesProxy(host: "192.0.2.7", port: 8080, ownPort: 8080, listenHost: "192.0.2.7"))
        #expect(!ProxyAddress.reachesProxy(host: "192.0.2.8", port: 8080, ownPort: 8080, listenHost: "192.0.2.7"))
        // A machine with only a loopback interface has nothing more to check.
        guard
            let own = ProxyAddress.localInterfaceAddresses().first(where: {
                !$0.isLoopback && !($0.bytes.first == 0xFE && $0.bytes.count == 16)
            })
        else { return }
        let host = own.bytes.count == 16 ? "[\(own)]" : "\(own)"
        #expect(ProxyAddress.reachesProxy(host: host, port: 8080, ownPort: 8080, listenHost: "0.0.0.0"))
        #expect(!ProxyAddress.reachesProxy(host: host, port: 8080, ownPort: 8080, listenHost: "127.0.0.1"))
    }

    @Test func refusalMessagesDoNotRepeatAURLPassword() throws {
        let r = try #require(
            refusal(RequestTarget.resolve("http://user:hunter2@0.0.0.0:8080/x", upstream: nil, ownPort: 8080)))
        #expect(r.message.contains("http://user:<redacted>@0.0.0.0:8080/x"))
        #expect(!r.message.contains("hunter2"))
    }

    /// The real proxy answers 508 to a request for 0.0.0.0 on its own port instead of
    /// forwarding it to itself.
    @Test(.timeLimit(.minutes(1))) func proxyAnswers508ForItsOwnPortOnTheUnspecifiedAddress() async throws {
        let proxy = try await ProxyHarness()
        for host in ["0.0.0.0", "[::ffff:127.0.0.1]", "2130706433"] {
            let client = try RawClient(port: proxy.port)
            try client.send(
                "GET http://\(host):\(proxy.port)/x HTTP/1.1\r\nHost: \(host):\(proxy.port)\r\nConnection: close\r\n\r\n"
            )
            let reply = try client.readToClose().latin1
            #expect(reply.hasPrefix("HTTP/1.1 508"), "\(host): \(reply.prefix(200))")
            #expect(reply.contains("loop"))
        }
        let capture = try await proxy.stopAndRead()
        #expect(capture.exchanges.count == 3)
        #expect(proxy.server.summary.connections == 3)
    }

    /// A CONNECT to the proxy's own port (issue 37, item 6): with `--no-intercept '*'`, 3,000
    /// of them in one write nested 3,000 self-connections (9,018 descriptors, 255 MiB). Now the
    /// first is answered 508 and the connection closed; opaque or intercepted alike.
    @Test(.timeLimit(.minutes(1)), arguments: [true, false])
    func aConnectToItselfIsALoop(opaque: Bool) async throws {
        let proxy =
            opaque
            ? try await ProxyHarness { $0.noIntercept = [HostPattern("*")!] }
            : try await TestTLS.shared().interceptingProxy()
        #expect((proxy.caCertificate == nil) == opaque)
        let client = try RawClient(port: proxy.port)
        let connect = "CONNECT 127.0.0.1:\(proxy.port) HTTP/1.1\r\nHost: 127.0.0.1:\(proxy.port)\r\n\r\n"
        try client.send(String(repeating: connect, count: 500))
        let reply = try client.readToClose().latin1
        #expect(reply.hasPrefix("HTTP/1.1 508"), "\(reply.prefix(200))")
        #expect(reply.contains("points back at rangetap itself"))
        let capture = try await proxy.stopAndRead()
        // A tunnel to itself would have been a second client connection.
        #expect(capture.events("conn.open").count == 1)
        #expect(capture.events("tunnel").isEmpty)
        let errors = capture.events("error").compactMap { if case .error(let e) = $0 { e } else { nil } }
        #expect(errors.count == 1 && errors.first?.status == 508, "\(errors)")
    }

    @Test func upstreamThatIsTheListenAddressIsRefusedBeforeBinding() throws {
        for upstream in [
            "http://0.0.0.0:8080", "http://[::ffff:127.0.0.1]:8080/base", "http://localhost:8080",
            "http://127.0.0.1:8080",
        ] {
            let config = ProxyConfiguration(
                listenHost: "127.0.0.1", listenPort: 8080, upstream: upstream, capturePath: "/nonexistent")
            #expect(throws: ProxyError.upstreamIsProxy(upstream, listen: "127.0.0.1:8080")) {
                try config.validateUpstream()
            }
        }
        #expect(throws: ProxyError.badUpstream("ftp://x")) {
            try ProxyConfiguration(upstream: "ftp://x", capturePath: "/x").validateUpstream()
        }
        try ProxyConfiguration(listenPort: 8080, upstream: "http://127.0.0.1:8081", capturePath: "/x")
            .validateUpstream()
        try ProxyConfiguration(listenPort: 0, upstream: "http://127.0.0.1:8080", capturePath: "/x").validateUpstream()
    }

    @Test func recordCommandRefusesItsOwnAddressAsUpstream() throws {
        let port = try freePort()
        let path = Paths.temporaryDirectory("self-upstream") + "/s.rtap"
        let r = try runCommand(
            Paths.rangetap,
            ["record", "--listen", "127.0.0.1:\(port)", "--upstream", "http://0.0.0.0:\(port)", "-o", path], timeout: 20
        )
        #expect(r.status == 2)
        #expect(
            r.stderr.contains("--upstream http://0.0.0.0:\(port) is rangetap's own listen address (127.0.0.1:\(port))"),
            "\(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: path), "nothing is created before the check")
    }

    /// `127.example.com` used to count as loopback because it starts with "127.".
    @Test func aNameStartingWith127IsNotALoopbackListenAddress() throws {
        #expect(!ProxyConfiguration(listenHost: "127.example.com", capturePath: "/x").listensOnLoopback)
        #expect(ProxyConfiguration(listenHost: "127.0.0.2", capturePath: "/x").listensOnLoopback)
        #expect(ProxyConfiguration(listenHost: "::1", capturePath: "/x").listensOnLoopback)
        let path = Paths.temporaryDirectory("remote127") + "/r.rtap"
        #expect(throws: ProxyError.remoteListenNotAllowed("127.example.com")) {
            _ = try ProxyServer(
                configuration: ProxyConfiguration(listenHost: "127.example.com", listenPort: 0, capturePath: path),
                logger: Logger(label: "t"))
        }
    }
}
