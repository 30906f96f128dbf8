import Foundation
import RangeTapProbe
import RangeTapTestSupport
import Testing

/// nginx 1.22 does Range and Keep-Alive right, except that it answers a HEAD with a Range
/// with 206 (range handling is defined for GET only): exactly one warning, no failure.
@Suite(.serialized)
struct NginxProbeTests {
    @Test func nginxHasNoFailureAndOneWarningForHeadWithRange() async throws {
        let dir = try ProbeFixture.directory(file: "clip.mp4", size: 1 << 20)
        let nginx = try NginxServer(root: dir)
        defer { nginx.stop() }
        let report = try await ProbeFixture.probe(nginx.url("clip.mp4"))
        #expect(report.length == 1 << 20)
        #expect(report.ids(.fail).isEmpty, "\(report.table)")
        #expect(report.ids(.warn) == ["head-range"], "\(report.table)")
        #expect(report.ids(.info).isEmpty, "\(report.table)")
        let head = try #require(report.check(.headRange))
        #expect(head.evidence.first?.status == 206)
        #expect(head.evidence.first?.response.contains { $0.hasPrefix("Content-Range: bytes 0-1/") } == true)
        #expect(report.check(.multiRange)?.message.contains("multipart/byteranges, 2 parts") == true)
        // No wall-time bound (machines are noisy): no check may have waited out its timeout.
        #expect(report.durationMs > 0 && !report.table.contains("timed out"), "\(report.table)")
        #expect(report.verdicts.allSatisfy { $0.ok }, "\(report.verdicts)")
        // Keep-alive: the four requests of the sequence went over one connection.
        let reuse = try #require(report.check(.keepAliveReuse))
        #expect(reuse.evidence.count == 4)
        #expect(reuse.evidence.dropFirst().allSatisfy { $0.reusedConnection == true })
        #expect(Set(reuse.evidence.compactMap(\.localPort)).count == 1)
    }

    @Test func aFileLargerThanTheReferenceReadIsComparedWithoutDownloadingIt() async throws {
        let size = 24 << 20
        let dir = try ProbeFixture.directory(file: "big.mp4", size: size)
        let nginx = try NginxServer(root: dir)
        defer { nginx.stop() }
        let report = try await Prober.run(
            ProbeOptions(url: nginx.url("big.mp4"), timeoutSeconds: 5, referenceLimit: 4 << 20))
        #expect(report.ids(.fail).isEmpty, "\(report.table)")
        #expect(report.ids(.warn) == ["head-range"], "\(report.table)")
        let get = try #require(report.check(.get)?.evidence.first)
        #expect(get.bodyBytes == 4 << 20 && get.stoppedEarly, "the plain GET reads only the reference limit")
        let fromZero = try #require(report.check(.rangeFromZero)?.evidence.first)
        #expect(fromZero.bodyBytes == 4 << 20 && fromZero.stoppedEarly)
        // The tail is compared with the open-ended range, which covers it.
        #expect(
            report.check(.rangeSuffix)?.message.contains("the open-ended range") == true,
            "\(report.check(.rangeSuffix)?.message ?? "")")
        #expect(report.check(.rangeLastByte)?.message.contains("the open-ended range") == true)
        var exchanges: [String: Int64] = [:]
        for e in report.checks.flatMap(\.evidence) { exchanges[e.label] = e.bodyBytes }
        let read = exchanges.values.reduce(0, +)
        #expect(read < 12 << 20, "the whole probe read \(read) bytes of a \(size)-byte file")
    }

    @Test func httpsNeedsInsecureForASelfSignedCertificate() async throws {
        let dir = try ProbeFixture.directory(file: "clip.mp4", size: 64 * 1024)
        let tls = Paths.temporaryDirectory("probe-tls")
        let gen = try runCommand(
            try Paths.tool("openssl"),
            [
                "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", tls + "/key.pem", "-out", tls + "/cert.pem",
                "-days", "1", "-subj", "/CN=127.0.0.1",
            ])
        #expect(gen.status == 0, "openssl: \(gen.stderr)")
        let nginx = try NginxServer(root: dir, tls: (certificate: tls + "/cert.pem", key: tls + "/key.pem"))
        defer { nginx.stop() }
        let url = "https://127.0.0.1:\(nginx.port)/clip.mp4"
        let refused = try runCommand(Paths.rangetap, ["probe", url, "--timeout", "5"], timeout: 30)
        #expect(refused.status == 2)
        #expect(
            refused.stderr.contains("cannot reach \(url)") && refused.stderr.contains("--insecure"), "\(refused.stderr)"
        )
        let report = try await Prober.run(ProbeOptions(url: url, insecure: true, timeoutSeconds: 5))
        #expect(report.ids(.fail).isEmpty, "\(report.table)")
        #expect(report.ids(.warn) == ["head-range"], "\(report.table)")
    }
}
