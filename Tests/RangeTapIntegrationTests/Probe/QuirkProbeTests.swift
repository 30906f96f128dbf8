import Foundation
@testable import RangeTapProbe
import RangeTapTestSupport
import Testing

/// The quirk origin's `/strict` mode does everything right; each `/strict/DEFECT` switch adds
/// one defect, which must turn its own check(s) red and no other.
@Suite(.serialized)
struct QuirkProbeTests {
    /// One switch and the exact checks it must turn to `fail` and `warn`.
    struct Defect: Sendable, CustomTestStringConvertible {
        var path: String
        var fail: Set<String> = []
        var warn: Set<String> = []
        var info: Set<String> = []
        var testDescription: String { path }
    }

    static let defects: [Defect] = [
        Defect(path: "/strict"),
        Defect(path: "/strict/head-206", warn: ["head-range"]),
        Defect(path: "/strict/206-no-etag", warn: ["partial-headers"]),
        Defect(path: "/strict/if-range-etag", fail: ["if-range-etag"]),
        Defect(path: "/strict/if-range-date", fail: ["if-range-date"]),
        Defect(path: "/strict/clamp-416", fail: ["range-clamped"]),
        Defect(path: "/strict/416-no-length", warn: ["unsatisfiable-past-end", "unsatisfiable-suffix-zero"]),
        Defect(path: "/strict/multi-200", warn: ["multi-range", "multi-overlap"]),
        Defect(path: "/strict/multi-coalesce", info: ["multi-range", "multi-overlap"]),
        Defect(path: "/strict/suffix-wrong", fail: ["range-suffix"]),
        Defect(path: "/strict/unit-case", warn: ["unit-case"]),
        Defect(path: "/strict/http10-no-range", fail: ["http10-range"], info: ["http10-keepalive"]),
        Defect(path: "/strict/close", warn: ["keepalive-reuse"], info: ["http10-keepalive"]),
        Defect(path: "/strict/close-silently", fail: ["keepalive-reuse"], info: ["http10-keepalive"]),
        Defect(path: "/strict/gzip-mismatch", fail: ["compression-range"]),
        Defect(path: "/strict/lowercase", warn: ["header-case"]),
        Defect(path: "/strict/dup", fail: ["header-duplicates"]),
        Defect(path: "/strict/bare-lf", fail: ["header-syntax"], warn: ["header-line-endings"]),
        Defect(path: "/strict/no-accept-ranges", warn: ["accept-ranges"]),
        Defect(path: "/strict/space-before-colon", fail: ["header-syntax"]),
        Defect(path: "/strict/obs-fold", fail: ["header-syntax"]),
        Defect(path: "/strict/recent-lm", info: ["if-range-date"]),
        Defect(path: "/strict/unquoted-etag", warn: ["validators"], info: ["if-range-etag"]),
    ]

    @Test(arguments: defects)
    func eachDefectTurnsOnlyItsOwnCheckRed(_ defect: Defect) async throws {
        let origin = try QuirkOrigin(size: 256 * 1024)
        defer { origin.stop() }
        let report = try await ProbeFixture.probe(origin.url(defect.path))
        #expect(report.ids(.fail) == defect.fail, "\(report.table)")
        #expect(report.ids(.warn) == defect.warn, "\(report.table)")
        #expect(report.ids(.info) == defect.info, "\(report.table)")
        // No wall-time bound (machines are noisy): no check may have waited out its timeout.
        #expect(report.durationMs > 0 && !report.table.contains("timed out"), "\(report.table)")
        for id in defect.fail.union(defect.warn) {
            let check = try #require(report.checks.first { $0.id.rawValue == id })
            #expect(!check.evidence.isEmpty, "\(id) carries its evidence")
            #expect(check.rfc.hasPrefix("RFC 91"), "\(id) names its RFC section")
        }
    }

    @Test func messagesSayWhatWentWrong() async throws {
        let origin = try QuirkOrigin(size: 256 * 1024)
        defer { origin.stop() }
        let size = 256 * 1024
        let clamp = try await ProbeFixture.probe(origin.url("/strict/clamp-416"))
        #expect(
            clamp.check(.rangeClamped)?.message
                == "bytes=\(size - 100)-\(size + 999) → 416, but bytes \(size - 100)-\(size - 1) of \(size) are satisfiable: a client asking this range gets an error instead of its bytes"
        )
        let etag = try await ProbeFixture.probe(origin.url("/strict/if-range-etag"))
        #expect(etag.check(.ifRangeETag)?.message.contains("the server ignores If-Range") == true)
        let gz = try await ProbeFixture.probe(origin.url("/strict/gzip-mismatch"))
        #expect(
            gz.check(.compressionRange)?.message.contains("(\(size) is the identity length)") == true,
            "\(gz.check(.compressionRange)?.message ?? "")")
        let silent = try await ProbeFixture.probe(origin.url("/strict/close-silently"))
        #expect(silent.check(.keepAliveReuse)?.message.contains("without saying so") == true)
        let lower = try await ProbeFixture.probe(origin.url("/strict/lowercase"))
        let msg = lower.check(.headerCase)?.message ?? ""
        for name in ["\"Content-type\"", "\"accept-ranges\"", "\"Content-range\"", "\"content-Length\""] {
            #expect(msg.contains(name), "\(msg)")
        }
        let bare = try await ProbeFixture.probe(origin.url("/strict/bare-lf"))
        #expect(bare.check(.headerLineEndings)?.evidence.first?.response.first?.hasSuffix("\n") == true)
        #expect(bare.check(.headerLineEndings)?.evidence.first?.response.first?.hasSuffix("\r\n") == false)
    }

    @Test func headerSyntaxQuotesTheRawLines() async throws {
        let origin = try QuirkOrigin(size: 256 * 1024)
        defer { origin.stop() }
        let spaced = try #require(
            try await ProbeFixture.probe(origin.url("/strict/space-before-colon")).check(.headerSyntax))
        #expect(spaced.result == .fail)
        #expect(spaced.message.contains("\"Content-Range : bytes 0-1/262144\\r\\n\""), "\(spaced.message)")
        #expect(spaced.message.contains("RFC 9112 §5.1"))
        #expect(spaced.rfc == "RFC 9112 §2.2, §5.1, §5.2")
        #expect(spaced.evidence.first?.response.contains("Content-Range : bytes 0-1/262144\r\n") == true)
        let folded = try #require(try await ProbeFixture.probe(origin.url("/strict/obs-fold")).check(.headerSyntax))
        #expect(folded.message.contains("obs-fold"), "\(folded.message)")
        #expect(folded.message.contains("\"\tpart two\\r\\n\""), "\(folded.message)")
        let bare = try #require(try await ProbeFixture.probe(origin.url("/strict/bare-lf")).check(.headerSyntax))
        #expect(bare.message.contains("bare LF"), "\(bare.message)")
    }

    @Test func weakDatesAndMalformedETagsAreNamed() async throws {
        let origin = try QuirkOrigin(size: 256 * 1024)
        defer { origin.stop() }
        let recent = try #require(try await ProbeFixture.probe(origin.url("/strict/recent-lm")).check(.ifRangeDate))
        #expect(recent.message.contains("RFC 9110 §8.8.2.2"), "\(recent.message)")
        #expect(recent.message.contains("s before the response's Date"), "\(recent.message)")
        let unquoted = try await ProbeFixture.probe(origin.url("/strict/unquoted-etag"))
        let etag = try #require(unquoted.check(.ifRangeETag))
        #expect(
            etag.message.contains("the ETag rt-strict-262144 is malformed, neither weak nor strong"), "\(etag.message)")
        #expect(etag.message.contains("RFC 9110 §8.8.3"))
        #expect(unquoted.check(.validators)?.message.contains("ETag rt-strict-262144 is malformed") == true)
    }

    @Test func olderModesAreReportedToo() async throws {
        let origin = try QuirkOrigin(size: 256 * 1024)
        defer { origin.stop() }
        let ignore = try await ProbeFixture.probe(origin.url("/ignore-range"))
        #expect(ignore.check(.rangeProbe)?.result == .fail)
        let wrong = try await ProbeFixture.probe(origin.url("/wrong-range"))
        #expect(wrong.check(.rangeMiddle)?.message.contains("a cache stores these bytes at the wrong offset") == true)
        // /normal ignores If-Range and sends no validators: reported as such.
        let normal = try await ProbeFixture.probe(origin.url("/normal"))
        #expect(normal.check(.validators)?.result == .warn)
        #expect(normal.check(.ifRangeETag)?.result == .info)
    }

    @Test func aStallingServerIsBoundedByTheTimeout() async throws {
        // /slow sends one byte every 400 ms: every body outlives a 0.3 s timeout.
        let origin = try QuirkOrigin(size: 16 * 1024)
        defer { origin.stop() }
        let report = try await Prober.run(
            ProbeOptions(url: origin.url("/slow?delay_ms=400&piece=1"), timeoutSeconds: 0.3))
        // Bounded by the timeout, not timed here: no request that got a body read it to its end.
        let bodies = report.checks.flatMap(\.evidence).filter { $0.bodyBytes > 0 || $0.status != nil }
        #expect(
            bodies.allSatisfy { $0.bodyBytes < 16 * 1024 },
            "\(bodies.map { "\($0.label) \($0.bodyBytes) \($0.error ?? "")" })")
        let probe = try #require(report.check(.rangeProbe))
        #expect(probe.result == .fail)
        #expect(probe.message.contains("the body broke off after 1 of 2 bytes"), "\(probe.message)")
        #expect(
            probe.evidence.first?.error?.contains("libcurl error 28") == true, "\(probe.evidence.first?.error ?? "")")
    }

    @Test func requestEvidenceIsWhatWasSent() async throws {
        // /echo answers with the request head exactly as received.
        let origin = try QuirkOrigin(size: 1024)
        defer { origin.stop() }
        let options = ProbeOptions(url: origin.url("/echo?x=1"), headers: ["X-Trace: 1"], timeoutSeconds: 5)
        let client = try ProbeClient(options: options, maxConnections: 1)
        defer { client.shutdown() }
        let limits = ReadLimits(partial: 65536, full: 65536)
        for request in [
            ProbeRequest(
                label: "GET", range: "bytes=0-1", headers: ["If-Range: \"x\""], limits: limits, keepBytes: 65536),
            ProbeRequest(
                label: "HTTP/1.0", range: "bytes = 0 - 1", headers: ["Connection: keep-alive"], acceptEncoding: "gzip",
                http10: true, limits: limits, keepBytes: 65536),
        ] {
            let r = await client.send(request)
            #expect(r.status == 200)
            #expect(
                String(decoding: r.kept, as: UTF8.self) == r.requestLines.joined(),
                "the evidence shows the request byte for byte")
        }
        let report = try await Prober.run(
            ProbeOptions(url: origin.url("/echo"), headers: ["Authorization: Bearer secret"], timeoutSeconds: 5))
        let get = try #require(report.check(.get)?.evidence.first)
        #expect(get.request.first == "GET /echo HTTP/1.1\r\n")
        #expect(get.request.contains("Authorization: <redacted>\r\n"), "secrets are not written into reports")
    }
}
