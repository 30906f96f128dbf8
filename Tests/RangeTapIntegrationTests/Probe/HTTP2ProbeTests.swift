import Foundation
import RangeTapCore
@testable import RangeTapProbe
import RangeTapTestSupport
import Testing

/// `probe --http2` against nginx 1.22 speaking HTTP/2: over TLS (h2 by ALPN, the test CA
/// trusted as with curl's `--cacert`) and in clear text (h2c, prior knowledge); and the clear
/// refusal when the server speaks only HTTP/1.1.
@Suite(.serialized)
struct HTTP2ProbeTests {
    /// A 4 MiB file: large enough that the reset GET is cut off long before its end.
    static let size = 4 << 20

    @Test func nginxOverH2PassesTheRangeChecksAndTheStreamChecks() async throws {
        let dir = try ProbeFixture.directory(file: "clip.mp4", size: Self.size)
        let tls = try TestTLS.shared()
        let nginx = try NginxServer(root: dir, tls: (certificate: tls.certificate, key: tls.key), http2: true)
        defer { nginx.stop() }
        let url = "https://127.0.0.1:\(nginx.port)/clip.mp4"
        let report = try await Prober.run(ProbeOptions(url: url, timeoutSeconds: 5, http2: true, caFile: tls.caFile))
        #expect(report.httpProtocol == "h2")
        #expect(report.length == Int64(Self.size))
        #expect(report.ids(.fail).isEmpty, "\(report.table)")
        #expect(report.ids(.warn) == ["head-range"], "\(report.table)")
        #expect(report.ids(.info) == ["header-case", "header-line-endings", "header-syntax"], "\(report.table)")
        #expect(
            Set(report.checks.map(\.id.rawValue))
                == Set(ProbeCheckID.allCases.filter { $0.runs(http2: true) }.map(\.rawValue)))
        #expect(report.check(.keepAliveReuse) == nil && report.check(.http10Range) == nil)

        // Every response came over HTTP/2, and the evidence says so.
        let answered = report.checks.flatMap(\.evidence).filter { $0.status != nil }
        #expect(!answered.isEmpty)
        #expect(
            answered.allSatisfy { $0.httpVersion == "2" },
            "\(answered.map { "\($0.label): \($0.httpVersion ?? "nil")" })")
        #expect(answered.allSatisfy { $0.request.first?.hasSuffix(" HTTP/2\r\n") == true })
        #expect(answered.allSatisfy { $0.response.first?.hasPrefix("HTTP/2 ") == true })
        #expect(report.check(.http2Negotiated)?.result == .pass)

        // One request opens the connection, then eight range requests at once: eight streams of it.
        let streams = try #require(report.check(.http2ConcurrentStreams))
        #expect(streams.result == .pass, "\(streams.message)")
        #expect(streams.evidence.count == 9)
        #expect(streams.evidence.allSatisfy { $0.status == 206 })
        #expect(Set(streams.evidence.compactMap(\.localPort)).count == 1)
        #expect(streams.evidence.first?.reusedConnection == false)
        #expect(streams.evidence.dropFirst().allSatisfy { $0.reusedConnection == true })
        #expect(streams.message.contains("equal to the same slices of the plain GET"), "\(streams.message)")

        // A stream reset after 16 KiB; the range beside it and the next request on the same connection.
        let reset = try #require(report.check(.http2ResetStream))
        #expect(reset.result == .pass, "\(reset.message)")
        #expect(reset.evidence.count == 3)
        let cancelled = reset.evidence[0]
        #expect(cancelled.stoppedEarly && cancelled.bodyBytes == 16 * 1024 && cancelled.error == nil)
        #expect(reset.evidence[1].status == 206 && !reset.evidence[1].stoppedEarly)
        let after = reset.evidence[2]
        #expect(after.status == 206 && after.reusedConnection == true)
        #expect(after.localPort == cancelled.localPort)
        #expect(
            after.localPort == streams.evidence.first?.localPort, "the reset sequence runs on the streams' connection")

        // nginx saw the request after the reset on the connection of the reset stream.
        let log = nginx.accessLog()
        let afterRange = try #require(after.request.first { $0.hasPrefix("Range: ") }).dropFirst("Range: ".count)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        let fields = log.map { $0.split(separator: " ").map(String.init) }.filter { $0.count > 4 }
        let perConnection = Dictionary(grouping: fields) { $0[4] }
        #expect(
            perConnection.values.contains { lines in
                lines.count == 12 && lines.contains { $0.last == "\"\(afterRange)\"" }
            },
            "the opener, 8 streams, the reset GET, the range beside it and the request after on one connection: \(log.joined(separator: "\n"))"
        )

        #expect(report.verdicts.allSatisfy { $0.ok }, "\(report.verdicts)")
        #expect(report.verdicts.contains { $0.id == "connection-reuse" && $0.text.contains("HTTP/2") })
        #expect(!report.verdicts.contains { $0.id == "header-lookups" })
        let text = report.text(verbose: true)
        #expect(text.contains("HTTP/2 (h2 by ALPN)"))
        #expect(text.contains("HTTP/2 connection (streams and resets)"))
        #expect(text.contains("> GET /clip.mp4 HTTP/2"))
    }

    /// A file far larger than what fits in the socket buffers of the loopback: nginx is still
    /// sending the reset GET when the RST_STREAM arrives, and says so in its info log.
    @Test func theResetReachesNginxMidBody() async throws {
        let dir = Paths.temporaryDirectory("probe-h2-big")
        let size = 64 << 20
        #expect(FileManager.default.createFile(atPath: dir + "/big.mp4", contents: Data(count: size)))
        let tls = try TestTLS.shared()
        let infoLog = Paths.temporaryDirectory("nginx-h2-log") + "/info.log"
        let nginx = try NginxServer(
            root: dir, extraServerConfig: "error_log \(infoLog) info;",
            tls: (certificate: tls.certificate, key: tls.key), http2: true)
        defer { nginx.stop() }
        let report = try await Prober.run(
            ProbeOptions(
                url: "https://127.0.0.1:\(nginx.port)/big.mp4", timeoutSeconds: 10, http2: true, caFile: tls.caFile))
        let reset = try #require(report.check(.http2ResetStream))
        #expect(reset.result == .pass, "\(reset.message)")
        // The connection of the HTTP/2 sequence (12 requests): its GET stopped early on nginx's
        // side, and nginx logged the RST_STREAM on that connection ("*N client canceled stream M").
        let fields = nginx.accessLog().map { $0.split(separator: " ").map(String.init) }.filter { $0.count > 4 }
        let sequence = try #require(Dictionary(grouping: fields) { $0[4] }.first { $0.value.count == 12 }, "\(fields)")
        let get = try #require(sequence.value.first { $0[0] == "GET" && $0[2] == "200" && $0.last == "\"-\"" })
        #expect(Int(get[3]).map { $0 < size / 2 } == true, "nginx sent \(get[3]) of \(size) bytes of the reset GET")
        let info = ((try? String(contentsOfFile: infoLog, encoding: .utf8)) ?? "").split(separator: "\n")
        #expect(
            info.contains {
                $0.contains("*\(sequence.key) client canceled stream")
                    || $0.contains("*\(sequence.key) client terminated stream")
            }, "\(info.joined(separator: "\n"))")
    }

    @Test func h2cWithPriorKnowledgeOnAPlainListener() async throws {
        let dir = try ProbeFixture.directory(file: "clip.mp4", size: 1 << 20)
        let nginx = try NginxServer(root: dir, http2: true)
        defer { nginx.stop() }
        let options = ProbeOptions(url: nginx.url("clip.mp4"), timeoutSeconds: 5, http2: true)
        let report = try await Prober.run(options)
        #expect(report.httpProtocol == "h2c")
        #expect(report.ids(.fail).isEmpty, "\(report.table)")
        if options.h2cNeedsFreshConnections {
            // libcurl 7.x cannot send a second request on an h2c connection: one connection each.
            #expect(report.check(.http2ConcurrentStreams)?.result == .info, "\(report.table)")
            #expect(report.check(.http2ResetStream)?.message.contains("curl issue #10634") == true, "\(report.table)")
            #expect(
                report.checks.flatMap(\.evidence).allSatisfy { $0.reusedConnection == false },
                "every h2c request on a connection of its own")
        } else {
            #expect(report.check(.http2ConcurrentStreams)?.result == .pass, "\(report.table)")
            #expect(report.check(.http2ResetStream)?.result == .pass, "\(report.table)")
        }
        #expect(report.checks.flatMap(\.evidence).filter { $0.status != nil }.allSatisfy { $0.httpVersion == "2" })
        #expect(report.text().contains("HTTP/2 (h2c, prior knowledge)"))
    }

    @Test func anHTTP11OnlyServerIsAClearRefusal() async throws {
        let dir = try ProbeFixture.directory(file: "clip.mp4", size: 64 * 1024)
        let tls = try TestTLS.shared()
        let secure = try NginxServer(root: dir, tls: (certificate: tls.certificate, key: tls.key))
        let plain = try NginxServer(root: dir)
        defer {
            secure.stop()
            plain.stop()
        }
        let url = "https://127.0.0.1:\(secure.port)/clip.mp4"
        do {
            _ = try await Prober.run(ProbeOptions(url: url, timeoutSeconds: 5, http2: true, caFile: tls.caFile))
            Issue.record("probing an HTTP/1.1-only server with --http2 must throw")
        } catch {
            #expect(error == .noHTTP2(url: url, answeredOver: "1.1"))
            #expect(
                error.description.contains("answered over HTTP/1.1: the server does not offer h2 by ALPN"), "\(error)")
        }
        // The same server without --http2 is probed as usual, over HTTP/1.1.
        let report = try await Prober.run(ProbeOptions(url: url, timeoutSeconds: 5, caFile: tls.caFile))
        #expect(report.httpProtocol == "http/1.1")
        #expect(report.ids(.fail).isEmpty, "\(report.table)")
        #expect(report.check(.keepAliveReuse)?.evidence.first?.httpVersion == "1.1")

        do {
            _ = try await Prober.run(ProbeOptions(url: plain.url("clip.mp4"), timeoutSeconds: 5, http2: true))
            Issue.record("h2c against an HTTP/1.1-only listener must throw")
        } catch {
            #expect(error.description.contains("did not speak HTTP/2 with prior knowledge (h2c)"), "\(error)")
            #expect(!error.isUsageError)
        }
    }

    @Test func cliRunsOverH2AndExitsTwoWithoutIt() throws {
        let dir = try ProbeFixture.directory(file: "clip.mp4", size: 256 * 1024)
        let tls = try TestTLS.shared()
        let h2 = try NginxServer(root: dir, tls: (certificate: tls.certificate, key: tls.key), http2: true)
        let h1 = try NginxServer(root: dir, tls: (certificate: tls.certificate, key: tls.key))
        defer {
            h2.stop()
            h1.stop()
        }
        let url = "https://127.0.0.1:\(h2.port)/clip.mp4"
        let r = try runCommand(
            Paths.rangetap, ["probe", url, "--http2", "--cacert", tls.caFile, "--json"], timeout: 30)
        #expect(r.status == 0, "\(r.stderr)")
        let object = try #require(try JSONSerialization.jsonObject(with: r.stdout) as? [String: Any])
        #expect(object["protocol"] as? String == "h2")
        let checks = try #require(object["checks"] as? [[String: Any]])
        let streams = try #require(checks.first { $0["id"] as? String == "http2-concurrent-streams" })
        #expect(streams["area"] as? String == "http2")
        #expect(streams["rfc"] as? String == "RFC 9113 §5, §5.1.2")
        let evidence = try #require((streams["evidence"] as? [[String: Any]])?.first)
        #expect(evidence["httpVersion"] as? String == "2")
        let report = try JSONDecoder().decode(ProbeReport.self, from: r.stdout)
        #expect(report.httpProtocol == "h2")

        let text = try runCommand(Paths.rangetap, ["probe", url, "--http2", "--cacert", tls.caFile], timeout: 30)
        #expect(text.status == 0, "\(text.stderr)")
        #expect(text.text.contains(" · HTTP/2 (h2 by ALPN) · "))
        #expect(text.text.contains("PASS  http2-reset-stream"))

        let h1URL = "https://127.0.0.1:\(h1.port)/clip.mp4"
        let refused = try runCommand(Paths.rangetap, ["probe", h1URL, "--http2", "--cacert", tls.caFile], timeout: 30)
        #expect(refused.status == 2)
        #expect(refused.text.isEmpty)
        #expect(
            refused.stderr.contains("\(h1URL) answered over HTTP/1.1: the server does not offer h2 by ALPN"),
            "\(refused.stderr)")

        let untrusted = try runCommand(Paths.rangetap, ["probe", url, "--http2", "--timeout", "5"], timeout: 30)
        #expect(untrusted.status == 2, "without --cacert the test CA is not trusted: \(untrusted.stderr)")
        let badCA = try runCommand(
            Paths.rangetap, ["probe", url, "--http2", "--cacert", dir + "/no-such.pem"], timeout: 30)
        #expect(badCA.status == 2)
        #expect(badCA.stderr.contains("--cacert \(dir)/no-such.pem: the file cannot be read"), "\(badCA.stderr)")
    }

    @Test func connectionVerdictOverHTTP2() {
        #expect(Verdicts.http2Connection(streams: .pass, reset: .pass).ok)
        #expect(
            Verdicts.http2Connection(streams: .pass, reset: .info).ok, "a file too small to reset mid-body is no harm")
        let lost = Verdicts.http2Connection(streams: .pass, reset: .warn)
        #expect(!lost.ok && lost.text.contains("new TLS handshake"))
        let stuck = Verdicts.http2Connection(streams: .warn, reset: .fail)
        #expect(!stuck.ok && stuck.text.contains("stops serving"))
        #expect(stuck.basedOn == ["http2-concurrent-streams", "http2-reset-stream"])
    }

    @Test func streamRangesLieInsideTheReferenceRead() {
        let big = ProbePlan(length: 10 << 30, referenceLimit: 8 << 20)
        #expect(big.streamRanges.count == 8)
        #expect(big.streamRanges.allSatisfy { $0.count == 16 * 1024 && $0.upperBound <= 8 << 20 })
        #expect(big.streamRanges.first?.first == 0 && big.streamRanges.last?.upperBound == 8 << 20)
        #expect(Set(big.referenceSlices).isSuperset(of: big.streamRanges + [big.resetCompanion]))
        let tiny = ProbePlan(length: 3, referenceLimit: 8 << 20)
        #expect(tiny.streamRanges.allSatisfy { $0.count == 1 && $0.last <= 2 })
        #expect(tiny.resetCompanion == ByteRange(first: 1, last: 2))
    }
}
