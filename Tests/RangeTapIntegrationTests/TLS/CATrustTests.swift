import Foundation
import RangeTapCore
import RangeTapTestSupport
import Testing

/// `rangetap ca trust` and `ca untrust` (issue 39) with the clients that read those stores:
/// headless Chromium (NSS, `~/.pki/nssdb`) plays a `<video>` over the intercepting proxy on h2
/// once the CA is trusted and cannot load the page once it is removed; curl without `--cacert`
/// (OpenSSL reading Debian's store) verifies the proxy once `--system` added the CA, and not after.
@Suite(.serialized)
struct CATrustTests {
    func rangetap(_ args: [String], home: String) throws -> CommandResult {
        var environment = ProcessInfo.processInfo.environment
        environment["HOME"] = home
        return try runCommand(Paths.rangetap, args, environment: environment)
    }

    @Test(.timeLimit(.minutes(4)))
    func chromiumTrustsTheCAThatCaTrustNssAdded() async throws {
        let home = Paths.temporaryDirectory("ca-trust-home")
        let caDir = Paths.temporaryDirectory("ca-trust-ca")
        #expect(try rangetap(["ca", "init", "--ca-dir", caDir], home: home).status == 0)
        let trusted = try rangetap(["ca", "trust", "--nss", "--ca-dir", caDir], home: home)
        #expect(trusted.status == 0 && trusted.text.contains(home + "/.pki/nssdb"), "\(trusted.text) \(trusted.stderr)")
        let certutil = try Paths.tool("certutil")
        let listed = try runCommand(certutil, ["-L", "-d", "sql:\(home)/.pki/nssdb"])
        #expect(listed.text.contains("rangetap CA "), "\(listed.text)")

        let www = Paths.temporaryDirectory("ca-trust-www")
        try FileManager.default.copyItem(
            atPath: Paths.root + "/Tests/Clients/chromium_seek_page.html", toPath: www + "/page.html")
        try FileManager.default.copyItem(atPath: try Media.directory() + "/moov-at-end.mp4", toPath: www + "/video.mp4")
        let tls = try TestTLS.shared()
        let nginx = try NginxServer(
            root: www, extraServerConfig: "types { text/html html; video/mp4 mp4; } add_header Cache-Control no-store;",
            tls: (certificate: tls.certificate, key: tls.key), http2: true)
        defer { nginx.stop() }
        let url = "https://127.0.0.1:\(nginx.port)/page.html?src=video.mp4&hold=1&forward=0.7&back=0.2"
        func play(timeout: Int) async throws -> (CommandResult, RecordedCapture) {
            let proxy = try await tls.interceptingProxy { $0.caDirectory = caDir }
            let result = try runCommand(
                "/bin/bash",
                [
                    Paths.root + "/Tests/Clients/chromium_play.sh", "--home", home, "--proxy",
                    "127.0.0.1:\(proxy.port)", "--url", url, "--timeout", String(timeout),
                ], timeout: Double(timeout + 60))
            return (result, try await proxy.stopAndRead())
        }

        let (played, capture) = try await play(timeout: 90)
        #expect(played.status == 0, "chromium with the CA trusted: \(played.text) \(played.stderr)")
        let video = capture.requests.filter { ($0.url ?? "").hasSuffix("/video.mp4") }
        #expect(!video.isEmpty && video.allSatisfy { $0.stream != nil }, "the video came over HTTP/2 streams")

        let removed = try rangetap(["ca", "untrust", "--ca-dir", caDir], home: home)
        #expect(removed.status == 0 && removed.text.contains("removed"), "\(removed.text) \(removed.stderr)")
        let after = try runCommand(certutil, ["-L", "-d", "sql:\(home)/.pki/nssdb"])
        #expect(!after.text.contains("rangetap CA "), "\(after.text)")
        #expect(!FileManager.default.fileExists(atPath: caDir + "/trusted"), "the record of what was added is gone")

        let (refused, refusedCapture) = try await play(timeout: 15)
        #expect(refused.status != 0, "chromium loaded the page with the CA removed: \(refused.text)")
        #expect(
            !refusedCapture.requests.contains { ($0.url ?? "").hasSuffix("/page.html") },
            "no request inside the tunnel once the CA is untrusted")
        // Nothing more to remove.
        let again = try rangetap(["ca", "untrust", "--ca-dir", caDir], home: home)
        #expect(again.status == 0 && again.text.contains("nothing to remove"), "\(again.text)")
    }

    @Test func theSystemStoreTrustsTheCAUntilUntrust() async throws {
        let home = Paths.temporaryDirectory("ca-trust-system-home")
        let caDir = Paths.temporaryDirectory("ca-trust-system-ca")
        #expect(try rangetap(["ca", "init", "--ca-dir", caDir], home: home).status == 0)
        guard getuid() == 0 else {
            // Not root: refused with the way to do it, nothing changed.
            let refused = try rangetap(["ca", "trust", "--system", "--ca-dir", caDir], home: home)
            #expect(
                refused.status == 2 && refused.stderr.contains("sudo rangetap ca trust --system"), "\(refused.stderr)")
            return
        }
        let www = Paths.temporaryDirectory("ca-trust-system-www")
        try Data("hello\n".utf8).write(to: URL(fileURLWithPath: www + "/a.txt"))
        let tls = try TestTLS.shared()
        let nginx = try NginxServer(root: www, tls: (certificate: tls.certificate, key: tls.key))
        defer { nginx.stop() }
        let proxy = try await tls.interceptingProxy { $0.caDirectory = caDir }
        let curl = try Paths.tool("curl")
        // curl without --cacert: OpenSSL's default store, /etc/ssl/certs.
        let fetch = [
            "-s", "-o", "/dev/null", "-w", "%{http_code}", "-x", proxy.url, "https://localhost:\(nginx.port)/a.txt",
        ]
        #expect(try runCommand(curl, fetch).text == "000", "the proxy is not trusted before ca trust")
        let trusted = try rangetap(["ca", "trust", "--system", "--ca-dir", caDir], home: home)
        var removedAgain = false
        defer {
            if !removedAgain { _ = try? rangetap(["ca", "untrust", "--system", "--ca-dir", caDir], home: home) }
        }
        #expect(trusted.status == 0, "\(trusted.text) \(trusted.stderr)")
        #expect(try runCommand(curl, fetch).text == "200", "curl trusts the proxy through the system store")
        let untrusted = try rangetap(["ca", "untrust", "--system", "--ca-dir", caDir], home: home)
        removedAgain = true
        #expect(untrusted.status == 0 && untrusted.text.contains("removed"), "\(untrusted.text) \(untrusted.stderr)")
        #expect(try runCommand(curl, fetch).text == "000", "the system store no longer trusts the proxy")
        let pem = try String(contentsOfFile: caDir + "/rangetap-ca.pem", encoding: .utf8)
        let local = "/usr/local/share/ca-certificates"
        let left = try FileManager.default.contentsOfDirectory(atPath: local).filter {
            (try? String(contentsOfFile: local + "/" + $0, encoding: .utf8)) == pem
        }
        #expect(left.isEmpty, "ca untrust left \(left) in \(local)")
        _ = try await proxy.stopAndRead()
    }
}
