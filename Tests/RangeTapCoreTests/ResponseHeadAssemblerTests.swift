import RangeTapCore
import Testing

private func lines(_ raw: [String]) -> [HeaderLine] { raw.map(HeaderLine.init(raw:)) }
private func head(_ raw: [String]) -> ResponseHead { ResponseHead(lines: lines(raw)) }

/// Feeds `raw` one line at a time and returns what each line completed.
private func feed(_ a: inout ResponseHeadAssembler, _ raw: [String]) -> [ResponseHeadAssembler.Output] {
    raw.map { a.add(HeaderLine(raw: $0)) }
}

@Suite("ResponseHeadAssembler")
struct ResponseHeadAssemblerTests {
    @Test func earlyHintsThenPartialContent() {
        var a = ResponseHeadAssembler()
        let hints = ["HTTP/1.1 103 Early Hints\r\n", "Link: </style.css>; rel=preload\r\n", "\r\n"]
        let final = [
            "HTTP/1.1 206 Partial Content\r\n", "Content-Range: bytes 0-1/1000\r\n", "content-length: 2\r\n", "\r\n",
        ]
        #expect(
            feed(&a, hints + final) == [
                .none, .none, .interim(head(hints)),
                .none, .none, .none, .final(head(final)),
            ])
        #expect(a.finalReceived)
        #expect(a.trailers.isEmpty)
        #expect(a.pending.isEmpty)
    }

    @Test func hundredContinueThenPartialContent() {
        var a = ResponseHeadAssembler()
        #expect(a.add(HeaderLine(raw: "HTTP/1.1 100 Continue\r\n")) == .none)
        #expect(!a.finalReceived)
        guard case .interim(let continued) = a.add(HeaderLine(raw: "\r\n")) else {
            Issue.record("100 Continue is an interim head")
            return
        }
        #expect(continued.status == 100)
        #expect(continued.isInterim)
        #expect(!a.finalReceived)
        let partial = ["HTTP/1.1 206 Partial Content\r\n", "Content-Range: bytes 0-1/10\r\n", "\r\n"]
        #expect(feed(&a, partial) == [.none, .none, .final(head(partial))])
        #expect(a.finalReceived)
    }

    @Test func severalInterimHeadsEachCarryOnlyTheirOwnLines() {
        var a = ResponseHeadAssembler()
        _ = a.add(HeaderLine(raw: "HTTP/1.1 100 Continue\r\n"))
        #expect(a.add(HeaderLine(raw: "\r\n")) == .interim(head(["HTTP/1.1 100 Continue\r\n", "\r\n"])))
        _ = feed(&a, ["HTTP/1.1 103 Early Hints\r\n", "Link: </a>\r\n"])
        #expect(a.pending == lines(["HTTP/1.1 103 Early Hints\r\n", "Link: </a>\r\n"]))
        #expect(
            a.add(HeaderLine(raw: "\r\n"))
                == .interim(head(["HTTP/1.1 103 Early Hints\r\n", "Link: </a>\r\n", "\r\n"])))
        _ = a.add(HeaderLine(raw: "HTTP/1.1 204 No Content\r\n"))
        #expect(a.add(HeaderLine(raw: "\r\n")) == .final(head(["HTTP/1.1 204 No Content\r\n", "\r\n"])))
    }

    @Test func switchingProtocolsIsFinal() {
        var a = ResponseHeadAssembler()
        let raw = ["HTTP/1.1 101 Switching Protocols\r\n", "Upgrade: websocket\r\n", "\r\n"]
        #expect(feed(&a, raw).last == .final(head(raw)))
        #expect(a.finalReceived)
    }

    @Test func trailersAfterTheFinalHeadAreCollected() {
        var a = ResponseHeadAssembler()
        let outputs = feed(
            &a, ["HTTP/1.1 200 OK\r\n", "Transfer-Encoding: chunked\r\n", "Trailer: X-Checksum\r\n", "\r\n"])
        #expect(outputs.dropLast().allSatisfy { $0 == .none })
        guard case .final(let h)? = outputs.last, h.status == 200 else {
            Issue.record("expected the final head")
            return
        }
        #expect(feed(&a, ["X-Checksum: abc\r\n", "X-Other: 1\n", "\r\n"]) == [.none, .none, .none])
        #expect(a.trailers == lines(["X-Checksum: abc\r\n", "X-Other: 1\n"]))
        // Even a line that looks like a head is a trailer now.
        #expect(a.add(HeaderLine(raw: "HTTP/1.1 200 OK\r\n")) == .none)
        #expect(a.trailers.count == 3)
    }

    @Test func bareLFLinesAreKeptExactly() {
        var a = ResponseHeadAssembler()
        let raw = ["HTTP/1.0 200 OK\n", "Content-Length: 5\n", "X-Mixed: 1\r\n", "\n"]
        guard case .final(let h)? = feed(&a, raw).last else {
            Issue.record("expected the final head")
            return
        }
        #expect(h == head(raw))
        #expect(h.lines.map(\.terminator) == ["\n", "\n", "\r\n", "\n"])
    }

    @Test func namesValuesAndReasonStayAsSent() throws {
        var a = ResponseHeadAssembler()
        let raw = [
            "HTTP/1.1 206 Partial  Content Here\r\n", "content-range:   bytes 0-1/10 \t\r\n", "X-CaSe: v\r\n", "\r\n",
        ]
        guard case .final(let h)? = feed(&a, raw).last else {
            Issue.record("expected the final head")
            return
        }
        #expect(h.lines.map(\.raw) == raw)
        #expect(h.lines[1].name == "content-range")
        #expect(h.lines[1].content == "content-range:   bytes 0-1/10 \t")
        #expect(h.lines[2].name == "X-CaSe")
        let status = try #require(h.statusLine)
        #expect(status.version == "HTTP/1.1")
        #expect(status.status == 206)
        #expect(status.reason == "Partial  Content Here")
    }

    @Test func foldedAndMalformedLinesStayInTheHead() {
        var a = ResponseHeadAssembler()
        let raw = [
            "HTTP/1.1 200 OK\r\n", "X-Long: a\r\n", " continued\r\n", "no colon here\r\n", "Bad Name: x\r\n",
            "Content-Range : bytes 0-1/2\r\n", "\r\n",
        ]
        let outputs = feed(&a, raw)
        #expect(outputs.dropLast().allSatisfy { $0 == .none }, "a folded or malformed line ends no head")
        #expect(outputs.last == .final(head(raw)))
        #expect(a.trailers.isEmpty)
    }

    @Test func headWithAnUnreadableStatusLineIsFinalWithStatusZero() {
        var a = ResponseHeadAssembler()
        _ = a.add(HeaderLine(raw: "garbage\r\n"))
        guard case .final(let h) = a.add(HeaderLine(raw: "\r\n")) else {
            Issue.record("an unreadable head is final")
            return
        }
        #expect(h.status == 0)
        #expect(h.statusLine == nil)
        #expect(h.lines == lines(["garbage\r\n", "\r\n"]))
    }

    @Test func aHeadCutOffStaysPending() {
        var a = ResponseHeadAssembler()
        _ = feed(&a, ["HTTP/1.1 200 OK\r\n", "Content-Len"])
        #expect(a.pending == lines(["HTTP/1.1 200 OK\r\n", "Content-Len"]))
        #expect(!a.finalReceived)
    }
}

@Suite("StatusLine")
struct StatusLineTests {
    @Test func statusOfStatusLines() {
        #expect(StatusLine.status(of: HeaderLine(raw: "HTTP/1.0 200 OK\r\n")) == 200)
        #expect(StatusLine.status(of: HeaderLine(raw: "HTTP/1.1 206 Partial Content\n")) == 206)
        #expect(StatusLine.status(of: HeaderLine(raw: "HTTP/1.1 404\r\n")) == 404)
        #expect(StatusLine.status(of: HeaderLine(raw: "HTTP/2 103\r\n")) == 103)
    }

    @Test(arguments: [
        "garbage\r\n", "", "\r\n", "HTTP/1.1\r\n", "HTTP/1.1 abc OK\r\n", "Content-Length: 5\r\n",
        "HTTP/1.1 2000000000000000000000 OK\r\n",
    ])
    func statusOfGarbageIsZero(raw: String) {
        #expect(StatusLine.status(of: HeaderLine(raw: raw)) == 0)
        #expect(StatusLine(HeaderLine(raw: raw)) == nil)
    }

    @Test func statusOfNoLineIsZero() {
        #expect(StatusLine.status(of: nil) == 0)
    }

    @Test func anEmptyReasonIsEmpty() throws {
        for raw in ["HTTP/1.1 200\r\n", "HTTP/1.1 200 \r\n", "HTTP/2 200 \r\n"] {
            let s = try #require(StatusLine(HeaderLine(raw: raw)), "\(raw)")
            #expect(s.status == 200)
            #expect(s.reason == "", "\(raw)")
        }
        #expect(StatusLine(HeaderLine(raw: "HTTP/2 200 \r\n"))?.version == "HTTP/2")
    }

    @Test func theReasonKeepsItsSpaces() {
        #expect(StatusLine(HeaderLine(raw: "HTTP/1.1 404 Not  Found \r\n"))?.reason == "Not  Found ")
        #expect(StatusLine(HeaderLine(raw: "HTTP/1.1 200 ok, but lower-case\n"))?.reason == "ok, but lower-case")
    }
}
