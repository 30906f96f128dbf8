import Foundation
import RangeTapCore
import RangeTapProxy
import RangeTapTestSupport
import Testing

/// A proxy for the LAN that is not an open proxy (issue 39): a curl in a network namespace of the
/// test's own (its own address, reaching the proxy on the host side of a veth pair, as a phone
/// on the LAN would) is refused without credentials (407, recorded), served with them, gets the
/// CA page only once accepted, and never reaches the control endpoint; `--allow-client` closes
/// connections from other networks. Needs root for `ip netns` (tools/test.sh runs as root).
@Suite(.serialized)
struct LANAccessTests {
    let origins: SchemeOrigins

    init() throws {
        let dir = Paths.temporaryDirectory("lan-www")
        try Data("served to the LAN\n".utf8).write(to: URL(fileURLWithPath: dir + "/a.txt"))
        origins = try SchemeOrigins(root: dir)
    }

    static let credentials = ProxyCredentials(user: "player", password: "s3cret:with-colon")

    @Test func aClientOnTheLANMustAuthenticate() async throws {
        try #require(getuid() == 0, "ip netns needs root: run tools/test.sh as root")
        let ns = try NetworkNamespace()
        defer { ns.remove() }
        let proxy = try await origins.proxy {
            $0.listenHost = ns.hostAddress
            $0.proxyCredentials = Self.credentials
        }
        let curl = try Paths.tool("curl")
        let px = "http://\(ns.hostAddress):\(proxy.port)"
        let auth = "player:s3cret:with-colon"
        func fetch(_ args: [String]) throws -> CommandResult {
            try ns.run(curl, ["-s", "--noproxy", "", "-x", px, "-w", "\n%{http_code} %{http_connect}"] + args)
        }

        let bare = try fetch(["-D", "-", origins.url(.http, "a.txt")])
        #expect(bare.text.hasSuffix("407 000"), "\(bare.text)")
        #expect(bare.text.contains("Proxy-Authenticate: Basic realm=\"rangetap\""), "\(bare.text)")
        let wrong = try fetch(["-U", "player:guess", origins.url(.http, "a.txt")])
        #expect(wrong.text.hasSuffix("407 000") && wrong.text.contains("wrong proxy credentials"), "\(wrong.text)")
        let served = try fetch(["-U", auth, origins.url(.http, "a.txt")])
        #expect(served.text.hasPrefix("served to the LAN") && served.text.hasSuffix("200 000"), "\(served.text)")

        // A CONNECT carries the credentials for its whole tunnel.
        let tunnelRefused = try fetch(proxy.curlTrust + [origins.url(.https, "a.txt")])
        #expect(tunnelRefused.text.hasSuffix("000 407"), "\(tunnelRefused.text)")
        let tunnel = try fetch(proxy.curlTrust + ["-U", auth, origins.url(.https, "a.txt")])
        #expect(tunnel.text.hasPrefix("served to the LAN") && tunnel.text.hasSuffix("200 200"), "\(tunnel.text)")

        // The CA page only for accepted clients.
        let pageRefused = try fetch(["http://rangetap.invalid/rangetap-ca.cer"])
        #expect(pageRefused.text.hasSuffix("407 000"), "\(pageRefused.text)")
        let der = Paths.temporaryDirectory("lan-ca") + "/ca.cer"
        let page = try ns.run(
            curl, ["-s", "--noproxy", "", "-x", px, "-U", auth, "-o", der, "http://rangetap.invalid/rangetap-ca.cer"])
        #expect(page.status == 0)
        let parsed = try runCommand(try Paths.tool("openssl"), ["x509", "-inform", "DER", "-in", der, "-noout"])
        #expect(parsed.status == 0, "the CA page's .cer: \(parsed.stderr)")

        // The control endpoint is not on the proxy at all.
        let control = try fetch([
            "-U", auth, "-X", "POST", "-H", "Content-Type: \(LinkControlRequest.contentType)", "-H",
            "\(LinkControlRequest.tokenField): \(proxy.server.controlToken)",
            "http://rangetap.invalid/shape?rate=8kbit",
        ])
        #expect(control.text.hasSuffix("404 000"), "\(control.text)")

        let capture = try await proxy.stopAndRead()
        let refused = capture.events.compactMap { event -> ErrorEvent? in
            if case .error(let e) = event, e.status == 407 { return e }
            return nil
        }
        #expect(refused.count == 4, "every 407 is recorded: \(refused.map(\.message))")
        let text = try String(contentsOfFile: proxy.capturePath + "/events.jsonl", encoding: .utf8)
        let token = Data(auth.utf8).base64EncodedString()
        #expect(!text.contains("s3cret") && !text.contains(token), "the credentials never reach the capture")
    }

    @Test func onlyTheListedNetworksConnect() async throws {
        try #require(getuid() == 0, "ip netns needs root: run tools/test.sh as root")
        let ns = try NetworkNamespace()
        defer { ns.remove() }
        let curl = try Paths.tool("curl")
        for (network, served) in [(ns.hostAddress + "/32", false), (ns.clientAddress + "/30", true)] {
            let proxy = try await origins.proxy {
                $0.listenHost = ns.hostAddress
                $0.allowedClients = [try! ClientNetwork(parsing: network)]
            }
            let r = try ns.run(
                curl,
                [
                    "-s", "--noproxy", "", "-x", "http://\(ns.hostAddress):\(proxy.port)", "-w", " %{http_code}",
                    origins.url(.http, "a.txt"),
                ])
            // From this namespace (loopback) the proxy always serves.
            let local = try runCommand(
                curl,
                [
                    "-s", "--noproxy", "", "-x", "http://\(ns.hostAddress):\(proxy.port)", "-o", "/dev/null", "-w",
                    "%{http_code}", origins.url(.http, "a.txt"),
                ])
            let capture = try await proxy.stopAndRead()
            let refusals = capture.events.compactMap { event -> String? in
                if case .error(let e) = event, e.kind == .refused { return e.message }
                return nil
            }
            if served {
                #expect(r.text.hasSuffix(" 200"), "allowed \(network): \(r.text)")
                #expect(refusals.isEmpty, "\(refusals)")
            } else {
                #expect(r.text.hasSuffix(" 000") && r.status != 0, "not in \(network): \(r.text) \(r.status)")
                #expect(
                    refusals.count == 1 && refusals[0].contains(ns.clientAddress)
                        && refusals[0].contains("--allow-client"),
                    "\(refusals)")
            }
            #expect(local.text == "200", "loopback may always connect: \(local.text)")
        }
    }

    @Test func recordRefusesAnOpenProxyAndMakesCredentialsForAllowRemote() async throws {
        try #require(getuid() == 0, "ip netns needs root: run tools/test.sh as root")
        let capture = Paths.temporaryDirectory("lan-cli")
        let open = try runCommand(Paths.rangetap, ["record", "--listen", "0.0.0.0:0", "-o", capture + "/a.rtap"])
        #expect(open.status == 2 && open.stderr.contains("--proxy-auth"), "\(open.stderr)")
        let ns = try NetworkNamespace()
        defer { ns.remove() }
        let port = try freePort()
        let record = try TestProcess(
            Paths.rangetap,
            ["record", "--listen", "\(ns.hostAddress):\(port)", "--allow-remote", "-o", capture + "/b.rtap"])
        defer { record.stop(signal: SIGINT) }
        let deadline = Date().addingTimeInterval(20)
        while !record.stderrText.contains("clients must authenticate") && Date() < deadline {
            try await Task.sleep(for: .milliseconds(100))
        }
        let line = try #require(
            record.stderrText.split(separator: "\n").first { $0.contains("clients must authenticate") }.map(
                String.init),
            "record printed no credentials: \(record.stderrText)")
        let password = try #require(
            line.components(separatedBy: "password ").dropFirst().first?.split(separator: " ").first.map(String.init))
        #expect(password.count == 20, "\(line)")
        let curl = try Paths.tool("curl")
        let px = [
            "-s", "--noproxy", "", "-x", "http://\(ns.hostAddress):\(port)", "-o", "/dev/null", "-w", "%{http_code}",
        ]
        #expect(try ns.run(curl, px + [origins.url(.http, "a.txt")]).text == "407")
        #expect(try ns.run(curl, px + ["-U", "rangetap:\(password)", origins.url(.http, "a.txt")]).text == "200")
    }
}
