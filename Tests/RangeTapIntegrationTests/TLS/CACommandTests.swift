import Foundation
import RangeTapTestSupport
import Testing

/// `rangetap ca` and the CA that `rangetap record` creates, as a user runs them.
@Suite(.serialized)
struct CACommandTests {
    @Test func initExportAndInfo() throws {
        let dir = Paths.temporaryDirectory("ca-cli") + "/ca"
        let missing = try runCommand(Paths.rangetap, ["ca", "info", "--ca-dir", dir])
        #expect(
            missing.status == 2 && missing.stderr.contains("no CA in \(dir)")
                && missing.stderr.contains("rangetap ca init --ca-dir \(dir)"), "\(missing.stderr)")
        let made = try runCommand(Paths.rangetap, ["ca", "init", "--ca-dir", dir])
        #expect(made.status == 0 && made.text.contains("created a CA in \(dir)"), "\(made.text)")
        let again = try runCommand(Paths.rangetap, ["ca", "init", "--ca-dir", dir])
        #expect(again.text.contains("already exists"))
        let exported = try runCommand(Paths.rangetap, ["ca", "export", "--ca-dir", dir])
        #expect(exported.status == 0)
        #expect(exported.text.hasPrefix("-----BEGIN CERTIFICATE-----") && !exported.text.contains("PRIVATE KEY"))
        #expect(exported.text == (try String(contentsOfFile: dir + "/rangetap-ca.pem", encoding: .utf8)))
        let info = try runCommand(Paths.rangetap, ["ca", "info", "--ca-dir", dir])
        let fingerprint = try runCommand(
            try Paths.tool("openssl"), ["x509", "-in", dir + "/rangetap-ca.pem", "-noout", "-fingerprint", "-sha256"])
        let expected = try #require(fingerprint.text.split(separator: "=").last).trimmingCharacters(
            in: .whitespacesAndNewlines)
        #expect(info.text.contains(expected), "info names the fingerprint openssl computes")
        for hint in [
            "curl --cacert", "-tls_verify 1 -ca_file", "SSL_CERT_FILE", "rangetap ca trust --system",
            "rangetap ca trust --nss", "REQUESTS_CA_BUNDLE", "simctl", "Android", "Certificate Trust Settings",
            "keytool", "NODE_EXTRA_CA_CERTS", "http://rangetap.invalid/", "--format der",
        ] {
            #expect(info.text.contains(hint), "ca info explains \(hint)")
        }
        #expect(!info.text.contains("BEGIN"))
    }

    /// A client that does not trust rangetap's CA gets a line in record's live log at once (issue 39).
    @Test func aRejectedCertificateIsSaidInTheLiveLog() async throws {
        let root = Paths.temporaryDirectory("ca-reject")
        let tls = try TestTLS.shared()
        let www = root + "/www"
        try FileManager.default.createDirectory(atPath: www, withIntermediateDirectories: true)
        try Data("x".utf8).write(to: URL(fileURLWithPath: www + "/x.txt"))
        let origin = try NginxServer(root: www, tls: (tls.certificate, tls.key))
        defer { origin.stop() }
        let port = try freePort()
        let recorder = try TestProcess(
            Paths.rangetap,
            [
                "record", "--listen", "127.0.0.1:\(port)", "-o", root + "/r.rtap", "--ca-dir", root + "/ca",
                "--upstream-cacert", tls.caFile,
            ])
        defer { recorder.stop(signal: SIGINT) }
        try waitForPort(port)
        // curl trusts only the origin's CA, not rangetap's: it refuses the minted certificate.
        let r = try runCommand(
            try Paths.tool("curl"),
            ["-sS", "--cacert", tls.caFile, "-x", "http://127.0.0.1:\(port)", "https://localhost:\(origin.port)/x.txt"])
        #expect(r.status != 0)
        let deadline = Date().addingTimeInterval(10)
        while !recorder.stderrText.contains("TLS REJECTED"), Date() < deadline {
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect(
            recorder.stderrText.contains("TLS REJECTED: the client refused rangetap's certificate for localhost"),
            "\(recorder.stderrText)")
    }

    @Test func recordCreatesTheCAAndSaysWhere() async throws {
        let dir = Paths.temporaryDirectory("ca-record") + "/ca"
        let path = Paths.temporaryDirectory("ca-record") + "/c.rtap"
        let recorder = try TestProcess(
            Paths.rangetap, ["record", "--listen", "127.0.0.1:\(try freePort())", "-o", path, "--ca-dir", dir])
        defer { recorder.stop(signal: SIGINT) }
        let deadline = Date().addingTimeInterval(10)
        while !recorder.stderrText.contains("to intercept HTTPS"), Date() < deadline, recorder.process.isRunning {
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect(
            recorder.stderrText.contains(
                "created a local CA in \(dir) to intercept HTTPS; clients must trust \(dir)/rangetap-ca.pem"),
            "\(recorder.stderrText)")
        #expect(FileManager.default.fileExists(atPath: dir + "/rangetap-ca-key.pem"))
    }

    @Test func badFlagsAreRefusedWithTheFix() throws {
        let path = Paths.temporaryDirectory("ca-bad") + "/c.rtap"
        let pattern = try runCommand(Paths.rangetap, ["record", "-o", path, "--no-intercept", "a*b.com"])
        #expect(pattern.status == 2 && pattern.stderr.contains("--no-intercept a*b.com"), "\(pattern.stderr)")
        let notPEM = Paths.temporaryDirectory("ca-bad") + "/x.pem"
        try "hello".write(toFile: notPEM, atomically: true, encoding: .utf8)
        let cacert = try runCommand(
            Paths.rangetap,
            [
                "record", "--listen", "127.0.0.1:\(try freePort())", "-o", path, "--upstream-cacert", notPEM,
                "--ca-dir", Paths.temporaryDirectory("ca-bad") + "/ca",
            ])
        #expect(
            cacert.status == 2 && cacert.stderr.contains("--upstream-cacert \(notPEM): it holds no certificate"),
            "\(cacert.stderr)")
    }
}
