import Foundation
import RangeTapCore
import RangeTapProxy
import RangeTapTestSupport
import Testing

/// The CA page (issue 39): what a device using the proxy gets for `http://rangetap.invalid/`,
/// checked with the tools the devices' formats are defined by (openssl for DER, Python's
/// plistlib for the profile), and the page's steps run as printed by the clients they name.
@Suite(.serialized)
struct CAPageTests {
    let origins: SchemeOrigins

    init() throws {
        let dir = Paths.temporaryDirectory("ca-page-www")
        try Data(repeating: 7, count: 100_000).write(to: URL(fileURLWithPath: dir + "/m.bin"))
        origins = try SchemeOrigins(root: dir)
    }

    func curl(_ args: [String]) throws -> CommandResult {
        try runCommand(try Paths.tool("curl"), ["-s", "--noproxy", ""] + args)
    }

    func fingerprint(_ file: String, der: Bool) throws -> String {
        let r = try runCommand(
            try Paths.tool("openssl"),
            ["x509", "-in", file, "-noout", "-fingerprint", "-sha256"] + (der ? ["-inform", "DER"] : []))
        #expect(r.status == 0, "openssl cannot read \(file): \(r.stderr)")
        return (r.text.split(separator: "=").last ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test func thePageOffersTheCAInEveryFormADeviceTakes() async throws {
        let proxy = try await origins.proxy()
        let pem = try #require(proxy.caCertificate)
        let expected = try fingerprint(pem, der: false)
        let dir = Paths.temporaryDirectory("ca-page")

        let page = try curl(["-x", proxy.url, "-w", "\n%{http_code} %{content_type}", "http://rangetap.invalid/"])
        #expect(page.text.hasSuffix("200 text/html; charset=utf-8"), "\(page.text.suffix(80))")
        for needle in [
            expected, "/rangetap-ca.cer", "/rangetap-ca.mobileconfig", "/rangetap-ca.pem", "127.0.0.1:\(proxy.port)",
            "Certificate Trust Settings", "add-root-cert", "network_security_config", "certutil", "keytool",
            "NODE_EXTRA_CA_CERTS", "-tls_verify 1", "ssl-ca-file", "rangetap ca trust --nss",
        ] {
            #expect(page.text.contains(HTMLEscaping.escape(needle)), "the page lacks \(needle)")
        }

        let pemCopy = dir + "/ca.pem"
        let gotPEM = try curl([
            "-x", proxy.url, "-o", pemCopy, "-w", "%{http_code}", "http://rangetap.invalid/rangetap-ca.pem",
        ])
        #expect(gotPEM.text == "200")
        #expect(try Data(contentsOf: URL(fileURLWithPath: pemCopy)) == Data(contentsOf: URL(fileURLWithPath: pem)))

        let der = dir + "/ca.cer"
        let gotDER = try curl([
            "-x", proxy.url, "-o", der, "-D", "-", "-w", "%{http_code}", "http://rangetap.invalid/rangetap-ca.cer",
        ])
        #expect(gotDER.text.hasSuffix("200"))
        #expect(gotDER.text.lowercased().contains("content-type: application/x-x509-ca-cert"))
        #expect(gotDER.text.contains("filename=\"rangetap-ca.cer\""))
        #expect(try fingerprint(der, der: true) == expected, "the .cer is the CA's certificate")

        let profile = dir + "/ca.mobileconfig"
        let gotProfile = try curl([
            "-x", proxy.url, "-o", profile, "-w", "%{http_code} %{content_type}",
            "http://rangetap.invalid/rangetap-ca.mobileconfig",
        ])
        #expect(gotProfile.text == "200 application/x-apple-aspen-config")
        // plistlib parses it; its one payload is a root certificate whose data is the .cer's bytes.
        let check = try runCommand(
            try Paths.tool("python3"),
            [
                "-c",
                """
                import plistlib, sys, uuid
                p = plistlib.load(open(sys.argv[1], 'rb'))
                c = p['PayloadContent'][0]
                assert p['PayloadType'] == 'Configuration', p['PayloadType']
                assert c['PayloadType'] == 'com.apple.security.root', c['PayloadType']
                assert c['PayloadContent'] == open(sys.argv[2], 'rb').read(), 'payload is not the DER certificate'
                assert uuid.UUID(p['PayloadUUID']) != uuid.UUID(c['PayloadUUID'])
                assert p['PayloadIdentifier'] != c['PayloadIdentifier']
                print(c['PayloadDisplayName'])
                """, profile, der,
            ])
        #expect(check.status == 0, "\(check.stderr)")
        #expect(check.text.contains("rangetap local CA"), "\(check.text)")
        // The same CA gives the same profile (installing it again replaces it).
        let again = try curl(["-x", proxy.url, "http://rangetap.invalid/rangetap-ca.mobileconfig"])
        #expect(again.stdout == (try Data(contentsOf: URL(fileURLWithPath: profile))))

        let head = try curl(["-x", proxy.url, "-I", "http://rangetap.invalid/rangetap-ca.cer"])
        let size = try FileManager.default.attributesOfItem(atPath: der)[.size] as? Int
        #expect(head.text.lowercased().contains("content-length: \(size ?? -1)"), "\(head.text)")
        let missing = try curl(["-x", proxy.url, "-w", " %{http_code}", "http://rangetap.invalid/nothing"])
        #expect(missing.text.hasSuffix(" 404") && missing.text.contains("/rangetap-ca.cer"), "\(missing.text)")
        let post = try curl(["-x", proxy.url, "-X", "POST", "-w", " %{http_code}", "http://rangetap.invalid/"])
        #expect(post.text.hasSuffix(" 405"), "\(post.text)")
        // By its Host field, as a client that sends origin-form requests to its proxy.
        let byHost = try curl([
            "-w", " %{http_code}", "-H", "Host: rangetap.invalid", "http://127.0.0.1:\(proxy.port)/rangetap-ca.pem",
        ])
        #expect(byHost.text.contains("BEGIN CERTIFICATE") && byHost.text.hasSuffix(" 200"), "\(byHost.text)")

        let capture = try await proxy.stopAndRead()
        #expect(capture.exchanges.isEmpty, "the CA page is not recorded: \(capture.exchanges.map(\.url))")
    }

    @Test func withoutInterceptionThePageSaysThereIsNoCA() async throws {
        let proxy = try await ProxyHarness()
        let page = try curl(["-x", proxy.url, "-w", " %{http_code}", "http://rangetap.invalid/"])
        #expect(page.text.contains("no CA to trust") && page.text.hasSuffix(" 200"), "\(page.text)")
        let cer = try curl(["-x", proxy.url, "-w", " %{http_code}", "http://rangetap.invalid/rangetap-ca.cer"])
        #expect(cer.text.hasSuffix(" 404") && cer.text.contains("no CA"), "\(cer.text)")
        _ = try await proxy.stopAndRead()
    }

    /// The steps for curl, ffmpeg and Python, run as the guide prints them with the CA file in
    /// place: each fetches through the intercepting proxy, and each refuses the same proxy when
    /// given another CA (ffmpeg without `-tls_verify 1` would not).
    @Test func theStepsWorkAsPrintedAndVerify() async throws {
        let proxy = try await origins.proxy()
        let pem = try #require(proxy.caCertificate)
        let other = try TestTLS()
        let url = origins.url(.https, "m.bin", host: "localhost")
        func guide(_ file: String) -> CATrustGuide {
            CATrustGuide(
                pem: file, der: "rangetap-ca.cer", proxy: "127.0.0.1:\(proxy.port)",
                pageURL: "http://rangetap.invalid/",
                commonName: "rangetap")
        }
        func step(_ name: String, _ file: String) throws -> [String] {
            let platform = try #require(guide(file).platforms.first { $0.name == name })
            return platform.steps[0].replacingOccurrences(of: "https://…", with: url).split(separator: " ").map(
                String.init)
        }
        for (file, trusted) in [(pem, true), (other.caFile, false)] {
            let c = try step("curl", file)
            let fetched = try runCommand(
                try Paths.tool(c[0]), Array(c.dropFirst()) + ["-s", "-o", "/dev/null", "-w", "%{http_code}"])
            #expect(
                (fetched.text == "200") == trusted,
                "curl with \(trusted ? "the" : "another") CA: \(fetched.text) \(fetched.stderr)")

            let f = try step("ffmpeg", file)
            let played = try runCommand(
                try Paths.tool(f[0]),
                ["-nostdin", "-v", "error"] + Array(f.dropFirst()) + ["-f", "data", "-map", "0", "-y", "/dev/null"],
                timeout: 30)
            // The body is not media: ffmpeg gets past TLS and fails on the format, or fails at TLS.
            let tlsFailed = played.stderr.lowercased().contains("certificate") || played.stderr.contains("verif")
            #expect(tlsFailed != trusted, "ffmpeg with \(trusted ? "the" : "another") CA: \(played.stderr)")

            let python = try runCommand(
                try Paths.tool("python3"),
                [
                    "-c",
                    "import urllib.request,sys; h=urllib.request.ProxyHandler({'https': sys.argv[2]}); "
                        + "print(urllib.request.build_opener(h).open(sys.argv[1]).status)",
                    url, proxy.url,
                ], environment: ProcessInfo.processInfo.environment.merging(["SSL_CERT_FILE": file]) { $1 })
            #expect(
                (python.text.trimmingCharacters(in: .whitespacesAndNewlines) == "200") == trusted,
                "python: \(python.text) \(python.stderr.suffix(200))")
        }
        _ = try await proxy.stopAndRead()
    }
}
