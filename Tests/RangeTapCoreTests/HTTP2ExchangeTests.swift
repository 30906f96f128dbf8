import Foundation
@testable import RangeTapCore
import Testing

/// The exchange model's HTTP versions and stream ids, read from capture lines old and new.
@Suite struct HTTP2ExchangeTests {
    private func log(_ lines: [String]) throws -> ExchangeLog {
        var log = ExchangeLog()
        for (i, line) in lines.enumerated() {
            if let event = try CaptureEvent.decode(jsonLine: Data(line.utf8), lineNumber: i + 1) { log.apply(event) }
        }
        return log
    }

    @Test func anHTTP2StreamHasItsIdAndBothVersions() throws {
        let l = try log([
            #"{"type":"request","t":1,"ex":4,"conn":2,"method":"GET","target":"/b.mp4","version":"HTTP/2","url":"https://cdn.example/b.mp4","stream":5,"headers":[":method: GET\r\n",":path: /b.mp4\r\n","range: bytes=0-\r\n"]}"#,
            #"{"type":"response","t":2,"ex":4,"status":206,"lines":["HTTP/2 206\r\n","content-range: bytes 0-9/10\r\n","\r\n"]}"#,
            #"{"type":"cancel","t":3,"ex":4,"delivered":4,"received":10,"sha256":"00","deliveredBy":"h2-window-update"}"#,
        ])
        let r = try #require(l.exchanges[4])
        #expect(r.stream == 5)
        #expect(r.clientHTTPVersion == "2" && r.isHTTP2Client)
        #expect(r.upstreamHTTPVersion == "2" && r.isHTTP2Upstream)
        #expect(r.requestRange == "bytes=0-")
        #expect(r.contentRange == "bytes 0-9/10")
        #expect(r.deliveredBy == .h2WindowUpdate && r.bytesDelivered == 4)
    }

    @Test func aCancelCarriesWhatTheClientConsumedBesideWhatItsTCPAcknowledged() throws {
        let l = try log([
            #"{"type":"request","t":1,"ex":4,"conn":2,"method":"GET","target":"/b.mp4","version":"HTTP/2","url":"https://cdn.example/b.mp4","stream":5,"headers":[":method: GET\r\n",":path: /b.mp4\r\n","range: bytes=0-\r\n"]}"#,
            #"{"type":"response","t":2,"ex":4,"status":206,"lines":["HTTP/2 206\r\n","content-range: bytes 0-9999/10000\r\n","\r\n"]}"#,
            #"{"type":"cancel","t":3,"ex":4,"delivered":1400,"received":10000,"sha256":"00","deliveredBy":"tcp-acked","consumed":0}"#,
        ])
        let r = try #require(l.exchanges[4])
        #expect(r.deliveredBy == .tcpAcked && r.bytesDelivered == 1400 && r.bytesConsumed == 0)
        // Written and read back: the figure survives the capture format.
        let event = CaptureEvent.cancel(
            CancelEvent(
                t: 3, exchange: 4, delivered: 1400, received: 10000, sendBuffer: nil, sha256: "00",
                deliveredBy: .tcpAcked, consumed: 7))
        let line = event.jsonLine()
        #expect(String(decoding: line, as: UTF8.self).contains(#""consumed":7"#))
        #expect(try CaptureEvent.decode(jsonLine: Data(line), lineNumber: 1) == event)
    }

    @Test func oldCapturesWithoutStreamsStillRead() throws {
        let l = try log([
            #"{"type":"request","t":1,"ex":1,"conn":1,"method":"GET","target":"/a","version":"HTTP/1.1","url":"http://h/a","headers":["Host: h\r\n"]}"#,
            #"{"type":"request","t":1,"ex":2,"conn":1,"method":"GET","target":"/b","version":"HTTP/1.0","url":"http://h/b","headers":["Host: h\r\n"]}"#,
            #"{"type":"response","t":2,"ex":2,"status":200,"lines":["HTTP/1.0 200 OK\r\n","\r\n"]}"#,
            #"{"type":"end","t":3,"ex":2,"bytes":0,"sha256":"00"}"#,
        ])
        let pending = try #require(l.exchanges[1])
        #expect(pending.stream == nil && !pending.isHTTP2Client)
        #expect(pending.clientHTTPVersion == "1.1")
        #expect(pending.upstreamHTTPVersion == nil, "no response yet")
        let old = try #require(l.exchanges[2])
        #expect(old.clientHTTPVersion == "1.0" && old.upstreamHTTPVersion == "1.0" && !old.isHTTP2Upstream)
    }

    @Test func upstreamVersionComesFromTheStatusLineOnly() {
        func version(_ first: String) -> String? {
            var r = ExchangeRecord(id: 1, connection: 1, method: "GET", target: "/", start: 0)
            r.responseLines = [HeaderLine(raw: first), HeaderLine(raw: "\r\n")]
            return r.upstreamHTTPVersion
        }
        #expect(version("HTTP/1.1 206 Partial Content\r\n") == "1.1")
        #expect(version("HTTP/2 206\r\n") == "2")
        #expect(version("HTTP/2.0 200 OK\r\n") == "2")
        #expect(version("HTTP/1.0 200 OK\n") == "1.0")
        #expect(version("ICY 200 OK\r\n") == nil)
        #expect(version("HTTP/\r\n") == nil)
    }

    @Test func pseudoHeaderLinesSplitAfterTheirLeadingColon() throws {
        let path = try #require(HeaderLine(raw: ":path: /a.mp4?x=1:2\r\n").pseudoHeader)
        #expect(path.name == ":path" && path.value == "/a.mp4?x=1:2")
        #expect(HeaderLine(raw: ":authority: cdn.example:443\r\n").pseudoHeader?.value == "cdn.example:443")
        #expect(HeaderLine(raw: ":path: /\r\n").name == nil, "not an HTTP/1.1 field")
        #expect(HeaderLine(raw: "Host: h\r\n").pseudoHeader == nil)
        #expect(HeaderLine(raw: ":: x\r\n").pseudoHeader == nil)
        #expect(HeaderLine(raw: ":path\r\n").pseudoHeader == nil)
    }

    @Test func originIsSchemeAndAuthorityWithoutUserinfo() {
        var r = ExchangeRecord(id: 1, connection: 1, method: "GET", target: "/", start: 0)
        r.url = "https://u:<redacted>@cdn.example:8443/a.mp4?b=c"
        #expect(r.origin == "https://cdn.example:8443")
        r.url = "http://h?q"
        #expect(r.origin == "http://h")
        r.url = nil
        #expect(r.origin == nil)
    }

    @Test func spellingChecksOverHTTP2SkipCaseButKeepConflicts() {
        let head = [
            "HTTP/2 206\r\n", "content-range: bytes 0-1/10\r\n", "content-length: 2\r\n", "content-length: 3\r\n",
            "\r\n",
        ].map(HeaderLine.init(raw:))
        #expect(
            HeaderSpelling.findings(in: head).map(\.code) == [
                "header-case", "header-case", "header-case", "header-conflict",
            ])
        #expect(HeaderSpelling.findings(in: head, overHTTP2: true).map(\.code) == ["header-conflict"])
    }
}
