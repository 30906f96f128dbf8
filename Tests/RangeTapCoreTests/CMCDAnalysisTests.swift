import Foundation
import RangeTapCore
import RangeTapTestSupport
import Testing

/// The player's account beside the wire's (``CMCDPass``), over captures written line by line:
/// each finding where the two disagree, none where they agree, and one resource per URL
/// whatever CMCD the requests carried.
@Suite("CMCD analysis")
struct CMCDAnalysisTests {
    /// A GET of `path` (bytes `first`…) at `at` ms taking `ms` ms, `size` bytes, with CMCD headers.
    private static func exchange(
        _ id: Int, path: String, at: Int, ms: Int, size: Int, first: Int = 0, cmcd: [String] = [],
        range: String? = nil, extra: [String] = []
    ) -> [String] {
        let t = at * 1_000_000
        let url = "http://o.example" + path
        let headers = (["Host: o.example"] + (range.map { ["Range: bytes=\($0)"] } ?? []) + cmcd).map {
            "\"\($0.replacingOccurrences(of: "\"", with: "\\\""))\\r\\n\""
        }.joined(separator: ",")
        let status = range == nil ? 200 : 206
        let head =
            (["HTTP/1.1 \(status) X", "Content-Length: \(size)"]
            + (range == nil ? [] : ["Content-Range: bytes \(first)-\(first + size - 1)/10000000"]) + extra + [""])
            .map { "\"\($0.replacingOccurrences(of: "\"", with: "\\\""))\\r\\n\"" }.joined(separator: ",")
        return [
            #"{"type":"request","t":\#(t),"ex":\#(id),"conn":1,"method":"GET","target":"\#(url)","version":"HTTP/1.1","url":"\#(url)","headers":[\#(headers)]}"#,
            #"{"type":"response","t":\#(t + 1_000_000),"ex":\#(id),"status":\#(status),"reused":true,"upstreamPort":40000,"lines":[\#(head)]}"#,
            #"{"type":"chunk","t":\#(t + 2_000_000),"ex":\#(id),"size":\#(size),"off":0,"res":\#(first)}"#,
            #"{"type":"end","t":\#(t + ms * 1_000_000),"ex":\#(id),"bytes":\#(size),"sha256":"00"}"#,
        ]
    }

    private func analyze(_ lines: [String]) throws -> CaptureAnalysis { try CaptureLines.analyze(lines) }

    private func codes(_ a: CaptureAnalysis, _ id: Int) -> [String] {
        a.exchanges.first { $0.record.id == id }?.findings.map(\.code) ?? []
    }

    /// 1 MB in 1 s is 8000 kbit/s: an mtp of 8000 agrees, 40000 and 1000 do not.
    @Test func measuredThroughputIsComparedWithWhatTheLastRequestsGot() throws {
        let sid = #"CMCD-Session: sid="s1""#
        var lines = Self.exchange(1, path: "/a1.m4s", at: 0, ms: 1000, size: 1_000_000, cmcd: [sid])
        lines += Self.exchange(
            2, path: "/a2.m4s", at: 1000, ms: 100, size: 50_000, cmcd: [sid, "CMCD-Request: mtp=8000"])
        lines += Self.exchange(
            3, path: "/a3.m4s", at: 1100, ms: 100, size: 50_000, cmcd: [sid, "CMCD-Request: mtp=40000"])
        lines += Self.exchange(
            4, path: "/a4.m4s", at: 1200, ms: 100, size: 50_000, cmcd: [sid, "CMCD-Request: mtp=1000"])
        let a = try analyze(lines)
        #expect(!codes(a, 2).contains("cmcd-throughput-differs"), "\(codes(a, 2))")
        // #3: the last 2 finished requests, 1.05 MB over 1.1 s = 7636 kbit/s; 40000 is 5.2× that.
        let high = try #require(a.exchanges[2].findings.first { $0.code == "cmcd-throughput-differs" })
        #expect(high.message.contains("40000 kbit/s (mtp), 5.2× more"), "\(high.message)")
        #expect(high.message.contains("7636 kbit/s"), "\(high.message)")
        #expect(high.severity == .info)
        #expect(codes(a, 4).contains("cmcd-throughput-differs"))
    }

    @Test func starvationWhileBytesArriveAtTheBitrateIsAWarning() throws {
        var lines = Self.exchange(1, path: "/v1.m4s", at: 0, ms: 2000, size: 2_000_000, cmcd: ["CMCD-Request: bl=4000"])
        // bs on the next request: 2 MB arrived in the 2 s between, 8000 kbit/s, above br=3000.
        lines += Self.exchange(
            2, path: "/v2.m4s", at: 2000, ms: 100, size: 100_000,
            cmcd: ["CMCD-Request: bl=0", "CMCD-Object: br=3000", "CMCD-Status: bs"])
        // bs with a bitrate above what arrived (#2's 100 kB in 2 s): only worth knowing.
        lines += Self.exchange(
            3, path: "/v3.m4s", at: 4000, ms: 100, size: 1000,
            cmcd: ["CMCD-Object: br=90000", "CMCD-Status: bs"])
        let a = try analyze(lines)
        let kept = try #require(a.exchanges[1].findings.first { $0.code == "cmcd-starved-while-arriving" })
        #expect(kept.severity == .warn)
        #expect(kept.message.contains("since its request #1"), "\(kept.message)")
        #expect(kept.message.contains("the network kept up"), "\(kept.message)")
        #expect(kept.evidence.contains("CMCD-Status: bs"))
        let slow = try #require(a.exchanges[2].findings.first { $0.code == "cmcd-starved-while-arriving" })
        #expect(slow.severity == .info)
        #expect(slow.message.contains("below the 90000 kbit/s"), "\(slow.message)")
    }

    @Test func anAnnouncedNextObjectIsLookedForInTheLaterRequests() throws {
        var lines = Self.exchange(
            1, path: "/v/1.m4s", at: 0, ms: 100, size: 1000, cmcd: [#"CMCD-Request: nor="2.m4s""#])
        // Fetched (with its own CMCD in the query): no finding.
        lines += Self.exchange(
            2, path: "/v/2.m4s?CMCD=bl%3D100%2Cnor%3D%22..%252Fw%252F3.m4s%22", at: 100, ms: 100, size: 1000)
        // #2 announced ../w/3.m4s; the player fetched /v/4.m4s instead.
        lines += Self.exchange(
            3, path: "/v/4.m4s?CMCD=bl%3D100%2Cnrr%3D%22500-999%22", at: 200, ms: 100, size: 500, range: "0-499")
        // #3 announced bytes 500-999 of itself: fetched by #4.
        lines += Self.exchange(
            4, path: "/v/4.m4s?CMCD=bl%3D200", at: 300, ms: 100, size: 500, first: 500, range: "500-999")
        // The last request announces what the capture never shows: nothing to judge.
        lines += Self.exchange(5, path: "/v/5.m4s?CMCD=nor%3D%226.m4s%22", at: 400, ms: 100, size: 100)
        let a = try analyze(lines)
        #expect(!codes(a, 1).contains("cmcd-next-not-fetched"), "\(codes(a, 1))")
        let missed = try #require(a.exchanges[1].findings.first { $0.code == "cmcd-next-not-fetched" })
        #expect(missed.message.contains(#""..%2Fw%2F3.m4s" (nor)"#), "\(missed.message)")
        #expect(missed.message.contains("went on with #3 GET /v/4.m4s"), "\(missed.message)")
        #expect(!codes(a, 3).contains("cmcd-next-not-fetched"), "\(codes(a, 3))")
        #expect(!codes(a, 5).contains("cmcd-next-not-fetched"))
        // One resource for /v/4.m4s, whatever CMCD its requests carried.
        #expect(a.resources.filter { $0.url.hasSuffix("/v/4.m4s") }.count == 1, "\(a.resources.map(\.url))")
        #expect(a.resources.allSatisfy { !$0.url.contains("CMCD") })
    }

    @Test func malformedCMCDIsAFindingQuotingTheRawValue() throws {
        let a = try analyze(
            Self.exchange(1, path: "/s.m4s?CMCD=bl%3Dfast%2Cot%3Dv", at: 0, ms: 10, size: 100))
        let f = try #require(a.exchanges[0].findings.first { $0.code == "cmcd-invalid" })
        #expect(f.severity == .warn)
        #expect(f.message.contains("bl=fast is not an integer"), "\(f.message)")
        #expect(f.evidence == ["?CMCD=bl=fast,ot=v"])
        #expect(a.exchanges[0].cmcd?.objectType == "v")
    }

    @Test func anOriginOfferingHTTP3IsNotedOnce() throws {
        var lines = Self.exchange(1, path: "/a", at: 0, ms: 10, size: 10, extra: [#"Alt-Svc: h3=":443"; ma=86400"#])
        lines += Self.exchange(2, path: "/b", at: 10, ms: 10, size: 10, extra: [#"alt-svc: h2=":443", h3-29=":443""#])
        let a = try analyze(lines)
        let notes = a.allFindings.filter { $0.code == "alt-svc-h3" }
        #expect(notes.count == 1)
        #expect(notes.first?.exchange == 1)
        #expect(notes.first?.evidence.first?.hasPrefix("Alt-Svc: h3") == true)
        let none = try analyze(Self.exchange(1, path: "/a", at: 0, ms: 10, size: 10, extra: [#"Alt-Svc: h2=":443""#]))
        #expect(!none.allFindings.contains { $0.code == "alt-svc-h3" })
    }
}
