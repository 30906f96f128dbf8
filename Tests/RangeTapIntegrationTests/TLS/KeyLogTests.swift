import Foundation
import RangeTapCore
import RangeTapTestSupport
import Testing

/// `record --keylog` checked against the wire: dumpcap records loopback while curl fetches a
/// range over an intercepted HTTP/2 tunnel from nginx over TLS; tshark, given only the key log,
/// decrypts both legs (curl ↔ rangetap with rangetap's minted certificate, rangetap's libcurl ↔
/// nginx), and the DATA bytes of each leg are the capture's body bytes.
@Suite(.serialized)
struct KeyLogTests {
    /// Waits until `condition` holds, polling every 50 ms for at most `seconds`.
    private func wait(_ seconds: Double, _ condition: () -> Bool) async throws {
        let deadline = Date().addingTimeInterval(seconds)
        while !condition(), Date() < deadline { try await Task.sleep(for: .milliseconds(50)) }
    }

    /// The HTTP/2 bodies tshark decrypted and reassembled from DATA frames, per TCP source port.
    private func decryptedBodies(pcap: String, keyLog: String) throws -> [Int: Data] {
        let r = try runCommand(
            try Paths.tool("tshark"),
            [
                "-r", pcap, "-o", "tls.keylog_file:" + keyLog, "-Y", "http2.body.reassembled.data", "-T", "fields",
                "-e", "tcp.srcport", "-e", "http2.body.reassembled.data",
            ], timeout: 60)
        #expect(r.status == 0, "tshark: \(r.stderr)")
        var out: [Int: Data] = [:]
        for line in r.stdout.split(separator: UInt8(ascii: "\n")) {
            let fields = line.split(separator: UInt8(ascii: "\t"), omittingEmptySubsequences: false)
            guard fields.count == 2, let port = Int(String(decoding: fields[0], as: UTF8.self)) else { continue }
            out[port, default: Data()].append(Self.bytes(hex: Array(fields[1])))
        }
        return out
    }

    /// `hex` (two digits a byte, commas between fields ignored) as bytes.
    static func bytes(hex: [UInt8]) -> Data {
        func value(_ c: UInt8) -> UInt8? {
            switch c {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): c - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): c - UInt8(ascii: "a") + 10
            default: nil
            }
        }
        var out = Data(capacity: hex.count / 2)
        var high: UInt8?
        for c in hex {
            guard let v = value(c) else { continue }
            if let h = high {
                out.append(h << 4 | v)
                high = nil
            } else {
                high = v
            }
        }
        return out
    }

    @Test(.timeLimit(.minutes(3)))
    func tsharkDecryptsBothLegsWithTheKeyLogAndTheirDataIsTheCapturesBody() async throws {
        let tls = try TestTLS.shared()
        let root = Paths.temporaryDirectory("keylog")
        defer { try? FileManager.default.removeItem(atPath: root) }
        // dumpcap writes as another user on some images: a directory anyone may write to.
        try FileManager.default.setAttributes([.posixPermissions: 0o777], ofItemAtPath: root)
        let www = root + "/www"
        try FileManager.default.createDirectory(atPath: www, withIntermediateDirectories: true)
        var rng = SeededGenerator(seed: 42)
        let file = Data((0..<400_000).map { _ in UInt8(truncatingIfNeeded: rng.next()) })
        try file.write(to: URL(fileURLWithPath: www + "/f.bin"))
        let origin = try NginxServer(root: www, tls: (tls.certificate, tls.key), http2: true)
        defer { origin.stop() }
        let proxyPort = try freePort()

        let pcap = root + "/lo.pcapng"
        let dumpcap = try TestProcess(
            try Paths.tool("dumpcap"),
            ["-q", "-i", "lo", "-f", "tcp port \(origin.port) or tcp port \(proxyPort)", "-w", pcap])
        defer { dumpcap.stop(signal: SIGINT) }
        try await wait(10) { FileManager.default.fileExists(atPath: pcap) }
        try await Task.sleep(for: .milliseconds(300))

        let keyLog = root + "/keys.log"
        let capture = root + "/k.rtap"
        let caDir = root + "/ca"
        let recorder = try TestProcess(
            Paths.rangetap,
            [
                "record", "--listen", "127.0.0.1:\(proxyPort)", "-o", capture, "--keylog", keyLog, "--ca-dir", caDir,
                "--upstream-cacert", tls.caFile,
            ])
        defer { recorder.stop(signal: SIGINT) }
        try waitForPort(proxyPort)
        let got = try runCommand(
            try Paths.tool("curl"),
            [
                "-sS", "--http2", "-o", root + "/got.bin", "-w", "%{http_code} %{http_version}", "--cacert",
                caDir + "/rangetap-ca.pem", "-x", "http://127.0.0.1:\(proxyPort)", "-r", "1000-200999",
                "https://localhost:\(origin.port)/f.bin",
            ])
        #expect(got.text == "206 2", "\(got.stderr)")
        recorder.stop(signal: SIGINT, timeout: 10)
        #expect(recorder.stderrText.contains("writing TLS secrets to \(keyLog)"), "\(recorder.stderrText)")
        try await Task.sleep(for: .milliseconds(500))
        dumpcap.stop(signal: SIGINT, timeout: 10)

        let attributes = try FileManager.default.attributesOfItem(atPath: keyLog)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600, "the key log holds secrets")
        let keys = try String(contentsOfFile: keyLog, encoding: .utf8)
        // TLS 1.3 secrets of the intercepted tunnel (rangetap's side), and libcurl's upstream session.
        #expect(keys.contains("CLIENT_TRAFFIC_SECRET_0 ") && keys.contains("SERVER_TRAFFIC_SECRET_0 "), "\(keys)")
        #expect(keys.split(separator: "\n").allSatisfy { $0.split(separator: " ").count == 3 }, "NSS format")

        let recorded = try RecordedCapture(path: capture)
        let exchange = try #require(recorded.requests.first { $0.status == 206 })
        let body = try recorded.body(of: exchange)
        #expect(body == file[1000..<201_000])

        let data = try decryptedBodies(pcap: pcap, keyLog: keyLog)
        // Without the key log, nothing decrypts: the check can fail.
        #expect(try decryptedBodies(pcap: pcap, keyLog: "/dev/null").isEmpty)
        let clientLeg = try #require(data[proxyPort], "tshark decrypted rangetap → curl: \(data.keys)")
        let upstreamLeg = try #require(data[origin.port], "tshark decrypted nginx → rangetap: \(data.keys)")
        #expect(clientLeg == body, "client leg: \(clientLeg.count) B decrypted, \(body.count) B recorded")
        #expect(upstreamLeg == body, "upstream leg: \(upstreamLeg.count) B decrypted, \(body.count) B recorded")
    }

    @Test(.timeLimit(.minutes(1)))
    func sslKeyLogFileInTheEnvironmentIsHonoured() async throws {
        let root = Paths.temporaryDirectory("keylog-env")
        defer { try? FileManager.default.removeItem(atPath: root) }
        let keyLog = root + "/env-keys.log"
        let tls = try TestTLS.shared()
        let www = root + "/www"
        try FileManager.default.createDirectory(atPath: www, withIntermediateDirectories: true)
        try Data("hello".utf8).write(to: URL(fileURLWithPath: www + "/h.txt"))
        let origin = try NginxServer(root: www, tls: (tls.certificate, tls.key))
        defer { origin.stop() }
        let port = try freePort()
        var environment = ProcessInfo.processInfo.environment
        environment["SSLKEYLOGFILE"] = keyLog
        let recorder = try TestProcess(
            Paths.rangetap,
            [
                "record", "--listen", "127.0.0.1:\(port)", "-o", root + "/e.rtap", "--ca-dir", root + "/ca",
                "--upstream-cacert", tls.caFile,
            ],
            environment: environment)
        defer { recorder.stop(signal: SIGINT) }
        try waitForPort(port)
        let got = try runCommand(
            try Paths.tool("curl"),
            [
                "-sS", "--cacert", root + "/ca/rangetap-ca.pem", "-x", "http://127.0.0.1:\(port)",
                "https://localhost:\(origin.port)/h.txt",
            ])
        #expect(got.text == "hello", "\(got.stderr)")
        recorder.stop(signal: SIGINT, timeout: 10)
        #expect(recorder.stderrText.contains("writing TLS secrets to \(keyLog)"), "\(recorder.stderrText)")
        let keys = (try? String(contentsOfFile: keyLog, encoding: .utf8)) ?? ""
        #expect(keys.contains("CLIENT_TRAFFIC_SECRET_0 "), "\(keys)")
    }
}
