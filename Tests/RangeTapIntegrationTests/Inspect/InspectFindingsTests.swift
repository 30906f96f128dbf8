import Foundation
import RangeTapCore
import RangeTapMedia
import RangeTapTestSupport
import Testing

/// Captures of real servers analysed: each quirk of the quirk origin yields exactly its own
/// finding; a clean nginx capture yields none.
@Suite(.serialized)
struct InspectFindingsTests {
    let origin: QuirkOrigin

    init() throws {
        origin = try QuirkOrigin(size: 1 << 20)
    }

    /// Records the curl invocations through a fresh proxy and analyses the capture.
    func analyse(_ invocations: [[String]]) async throws -> CaptureAnalysis {
        let proxy = try await ProxyHarness()
        for args in invocations {
            _ = try runCommand(
                try Paths.tool("curl"), ["-s", "--noproxy", "", "-x", proxy.url, "-o", "/dev/null"] + args)
        }
        _ = try await proxy.stopAndRead()
        return try MediaAnalysis.analyze(path: proxy.capturePath)
    }

    /// Codes of the warn and error findings.
    func problems(_ a: CaptureAnalysis) -> [String] {
        a.allFindings.filter { $0.severity > .info }.map(\.code).sorted()
    }

    @Test func cleanNginxRangesYieldNoFindings() async throws {
        let dir = Paths.temporaryDirectory("clean")
        try Data(QuirkOrigin.expectedBytes(0..<500_000)).write(to: URL(fileURLWithPath: dir + "/a.bin"))
        let nginx = try NginxServer(root: dir)
        let a = try await analyse([
            ["-I", nginx.url("a.bin")], ["-r", "0-1", nginx.url("a.bin")], ["-r", "2-999", nginx.url("a.bin")],
            ["-r", "-100", nginx.url("a.bin")],
        ])
        // Only observations of the client's own behaviour (the jump to the end is a seek).
        #expect(a.allFindings.map(\.code) == ["seek"], "\(a.allFindings)")
        #expect(a.exchanges.count == 4)
        #expect(a.resources.first?.length == 500_000)
    }

    @Test func lowercaseHeaderNamesAreFlaggedWithTheLookupTheyBreak() async throws {
        let a = try await analyse([["-r", "0-99", origin.url("/lowercase")]])
        #expect(problems(a) == ["header-case", "header-case", "header-case", "header-case"])
        let messages = a.allFindings.map(\.message).joined(separator: "\n")
        #expect(messages.contains("allHeaderFields[\"Content-Range\"]"))
        #expect(a.allFindings.flatMap(\.evidence).contains("Content-range: bytes 0-99/\(origin.size)\r\n"))
    }

    @Test func duplicatedHeadersInTwoSpellingsConflict() async throws {
        let a = try await analyse([["-r", "0-9", origin.url("/dup")]])
        // The second Content-Type is also spelled in lowercase.
        #expect(
            problems(a) == [
                "header-case", "header-conflict", "header-conflict", "header-duplicate-case", "header-duplicate-case",
            ])
    }

    @Test func bareLFHeadIsFlagged() async throws {
        #expect(problems(try await analyse([["-r", "0-9", origin.url("/bare-lf")]])) == ["bare-lf"])
    }

    @Test func whitespaceBeforeTheColonIsAnErrorQuotingTheRawLine() async throws {
        let a = try await analyse([["-r", "0-9", origin.url("/space-before-colon")]])
        // The Content-Range is still judged (as a conforming proxy forwards it): no 206-without-content-range.
        #expect(problems(a) == ["header-space-before-colon"], "\(a.allFindings)")
        let f = try #require(a.allFindings.first { $0.code == "header-space-before-colon" })
        #expect(f.severity == .error)
        #expect(f.evidence == ["Content-Range : bytes 0-9/\(origin.size)\r\n"])
        #expect(f.message.contains("RFC 9112 §5.1"))
        #expect(f.message.contains("a proxy MUST remove any such whitespace from a response message before forwarding"))
        #expect(f.exchange == a.exchanges.first?.record.id)
    }

    @Test func obsFoldIsRecordedRawAndBreaksNothingElse() async throws {
        let a = try await analyse([["-r", "0-9", origin.url("/obs-fold")]])
        #expect(problems(a).isEmpty, "\(a.allFindings)")
        let lines = try #require(a.exchanges.first?.record.responseLines)
        #expect(lines.contains { $0.raw == "\tpart two\r\n" && $0.syntax == .obsFoldContinuation })
    }

    @Test func rangeIgnoredIsAnError() async throws {
        let a = try await analyse([["-r", "0-1", origin.url("/ignore-range")]])
        #expect(problems(a) == ["range-ignored"])
        #expect(a.allFindings.first { $0.code == "range-ignored" }?.severity == .error)
    }

    @Test func missingAcceptRangesOnAServerThatServes206() async throws {
        let a = try await analyse([[origin.url("/no-accept-ranges")], ["-r", "0-9", origin.url("/no-accept-ranges")]])
        #expect(problems(a) == ["accept-ranges-missing"])
    }

    @Test func wrongContentRangeStart() async throws {
        let a = try await analyse([["-r", "100-199", origin.url("/wrong-range")]])
        #expect(problems(a).contains("content-range-mismatch"))
        let f = try #require(a.allFindings.first { $0.code == "content-range-mismatch" })
        #expect(f.message.contains("starts at 101 instead of 100"))
    }

    @Test func partialWithoutContentRange() async throws {
        #expect(
            problems(try await analyse([["-r", "0-9", origin.url("/no-content-range")]])) == [
                "206-without-content-range"
            ])
    }

    @Test func unsatisfiableWithoutLengthAndBeyondLength() async throws {
        let good = try await analyse([
            ["-r", "0-9", origin.url("/normal")], ["-r", "2000000-", origin.url("/normal")],
        ])
        #expect(problems(good) == ["range-beyond-length"], "a correct 416 is not itself a finding")
        let bad = try await analyse([
            ["-r", "0-9", origin.url("/bad-416")], ["-r", "2000000-", origin.url("/bad-416")],
        ])
        #expect(problems(bad) == ["416-without-length", "range-beyond-length"])
    }

    @Test func droppedConnectionIsTruncationNotACancel() async throws {
        let a = try await analyse([["-r", "0-99999", origin.url("/drop")]])
        #expect(problems(a) == ["truncated"])
        #expect(!a.allFindings.contains { $0.code == "cancelled" })
    }

    @Test func connectionCloseAndHTTP10() async throws {
        #expect(problems(try await analyse([["-r", "0-9", origin.url("/close")]])) == ["connection-close"])
        let a = try await analyse([["-r", "0-9", origin.url("/http10")]])
        #expect(problems(a).isEmpty)
        #expect(a.allFindings.map(\.code) == ["http10-response"])
    }

    @Test func inclusiveEndOffByOneAndRefetch() async throws {
        let a = try await analyse([
            ["-r", "0-1024", origin.url("/normal")], ["-r", "1024-2048", origin.url("/normal")],
        ])
        #expect(problems(a) == ["inclusive-end-off-by-one"])
        #expect(a.allFindings.contains { $0.code == "refetched" && $0.severity == .info })
        let f = try #require(a.allFindings.first { $0.code == "inclusive-end-off-by-one" })
        #expect(f.exchange == a.exchanges[0].record.id)
        #expect(f.message.contains("0-1023 was meant"))
        #expect(a.resources.first?.uniqueBytes == 2049)
        #expect(a.resources.first?.bytesFetched == 2050)
    }

    @Test func openEndedRequestCancelledEarlyAndASeek() async throws {
        let proxy = try await ProxyHarness { $0.clientSendBuffer = 16384 }
        let script =
            "curl -s --noproxy '' -x \(proxy.url) -H 'Range: bytes=0-' '\(origin.url("/slow?delay_ms=2&piece=16384"))' | head -c 50000 > /dev/null; curl -s --noproxy '' -x \(proxy.url) -r 700000-700999 '\(origin.url("/slow?delay_ms=2&piece=16384"))' -o /dev/null"
        _ = try runCommand("/bin/sh", ["-c", script])
        _ = try await proxy.stopAndRead()
        let a = try MediaAnalysis.analyze(path: proxy.capturePath)
        let codes = a.allFindings.map(\.code)
        #expect(codes.contains("early-cancel"))
        #expect(codes.contains("cancelled"))
        #expect(codes.contains("seek"))
        #expect(problems(a).isEmpty)
        #expect(a.summary.cancels == 1 && a.summary.seeks == 1)
    }
}

/// Multi-range responses, checked part by part from the recorded body.
@Suite(.serialized)
struct InspectMultipartTests {
    @Test func multipartPartsAreCheckedOneByOne() async throws {
        let origin = try QuirkOrigin(size: 1 << 20)
        let dir = Paths.temporaryDirectory("mp")
        try Data(QuirkOrigin.expectedBytes(0..<100_000)).write(to: URL(fileURLWithPath: dir + "/a.bin"))
        let nginx = try NginxServer(root: dir)
        let proxy = try await ProxyHarness()
        for url in [nginx.url("a.bin"), origin.url("/strict"), origin.url("/strict/multi-bad-part")] {
            _ = try runCommand(
                try Paths.tool("curl"),
                ["-s", "--noproxy", "", "-x", proxy.url, "-r", "0-0,200-299", url, "-o", "/dev/null"])
        }
        _ = try await proxy.stopAndRead()
        let a = try MediaAnalysis.analyze(path: proxy.capturePath)
        #expect(a.exchanges.count == 3)
        for e in a.exchanges { #expect(e.findings.contains { $0.code == "multipart-byteranges" }, "#\(e.record.id)") }
        #expect(
            !a.exchanges[0].findings.contains { $0.code == "multipart-part-invalid" },
            "nginx: \(a.exchanges[0].findings)")
        #expect(
            !a.exchanges[1].findings.contains { $0.code == "multipart-part-invalid" },
            "strict: \(a.exchanges[1].findings)")
        let bad = a.exchanges[2].findings.filter { $0.code == "multipart-part-invalid" }
        #expect(bad.count == 1)
        #expect(bad.first?.message.contains("part 2 of 2 says 201-299 (99 bytes) but carries 100") == true, "\(bad)")
    }
}
