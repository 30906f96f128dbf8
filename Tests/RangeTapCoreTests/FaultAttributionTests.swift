import Foundation
import RangeTapCore
import RangeTapTestSupport
import Testing

/// The attribution rule (``FaultAttribution``, docs/lab.md), both ways: what a fault caused and
/// what a client did in answer to it is the rule's; what the origin itself sent never is.
@Suite("Fault attribution")
struct FaultAttributionTests {
    /// One GET of `range` of /s.ts on connection 1: request, response (`extra` head lines), one
    /// chunk of `size` bytes, and an end (or `ending`, in place of the end).
    private static func exchange(
        _ id: Int, range: String, size: Int, extra: [String] = [], fault: String? = nil, ending: String? = nil
    ) -> [String] {
        let t = id * 10_000_000
        let first = Int(range.split(separator: "-")[0])!
        let head =
            (["HTTP/1.1 206 Partial Content", "Content-Range: bytes \(range)/1000000", "Content-Length: \(size)"]
            + extra + [""]).map { "\"\($0)\\r\\n\"" }.joined(separator: ",")
        var lines = [
            #"{"type":"request","t":\#(t),"ex":\#(id),"conn":1,"method":"GET","target":"http://o.example/s.ts","version":"HTTP/1.1","url":"http://o.example/s.ts","headers":["Host: o.example\r\n","Range: bytes=\#(range)\r\n"]}"#,
            #"{"type":"response","t":\#(t + 1000),"ex":\#(id),"status":206,"reused":true,"upstreamPort":40000,"lines":[\#(head)]}"#,
            #"{"type":"chunk","t":\#(t + 2000),"ex":\#(id),"size":\#(size),"off":0,"res":\#(first)}"#,
        ]
        if let fault { lines.append(fault) }
        lines.append(
            ending
                ?? #"{"type":"end","t":\#(t + 3000),"ex":\#(id),"bytes":\#(size),"sha256":"00","delivered":\#(size),"deliveredBy":"complete"}"#
        )
        return lines
    }

    private func analyze(_ lines: [String]) throws -> CaptureAnalysis { try CaptureLines.analyze(lines) }

    private func findings(_ a: CaptureAnalysis, _ id: Int) -> [Finding] {
        a.exchanges.first { $0.record.id == id }?.findings ?? []
    }

    /// A cut on an exchange whose origin itself said `Connection: close`: the truncation is the
    /// rule's, the origin's connection-close stays the origin's and counts in the summary.
    @Test func whatTheOriginSentOnAFaultedExchangeStaysTheOrigins() throws {
        let rule = "path=/s.ts,reset-after=100"
        let fault =
            #"{"type":"fault","t":10002500,"ex":1,"rule":"\#(rule)","action":"reset-after","detail":"reset the connection after 100 body bytes"}"#
        let error =
            #"{"type":"error","t":10003000,"ex":1,"conn":1,"kind":"fault","message":"reset the connection after 100 body bytes, as --fault '\#(rule)' asked","received":1000,"delivered":100}"#
        let a = try analyze(
            Self.exchange(1, range: "0-999", size: 1000, extra: ["Connection: close"], fault: fault, ending: error))
        let found = findings(a, 1)
        let close = try #require(found.first { $0.code == "connection-close" }, "\(found.map(\.code))")
        #expect(!close.injected)
        let cut = try #require(found.first { $0.code == "truncated" }, "\(found.map(\.code))")
        #expect(cut.rules == [rule])
        #expect(a.exchanges.first?.record.bytesToClient == 100)
        #expect(!found.contains { $0.code == "closed-mid-response" })
        #expect(a.summary.findings[.warn] == 1, "the origin's connection-close counts: \(a.summary.findings)")
    }

    /// An `off-by-one` answer, then the client fetching the same bytes again: the refetches on
    /// the next ``FaultAttribution/followUpWindow`` requests for the resource are the client's
    /// answer to the rule; a refetch after that is the client's own.
    @Test func aClientsAnswerToAFaultIsTheRulesWithinTheWindow() throws {
        let rule = "path=/s.ts,nth=1,off-by-one"
        let fault =
            #"{"type":"fault","t":10001500,"ex":1,"rule":"\#(rule)","action":"off-by-one","detail":"Content-Range shifted by one","lines":["HTTP/1.1 206 Partial Content\r\n","Content-Range: bytes 1-100/1000000\r\n","Content-Length: 100\r\n"]}"#
        var lines = Self.exchange(1, range: "0-99", size: 100, fault: fault)
        let window = FaultAttribution.followUpWindow
        for id in 2...(window + 2) { lines += Self.exchange(id, range: "0-99", size: 100) }
        let a = try analyze(lines)
        for id in 2...(window + 1) {
            let refetch = try #require(findings(a, id).first { $0.code == "refetched" }, "#\(id)")
            #expect(refetch.rules == [rule], "#\(id) is within the window")
        }
        let late = try #require(findings(a, window + 2).first { $0.code == "refetched" })
        #expect(!late.injected, "past the window the refetch is the client's own")
        #expect(a.summary.injectedFindings[.info, default: 0] + a.summary.injectedFindings[.warn, default: 0] >= window)
    }
}
