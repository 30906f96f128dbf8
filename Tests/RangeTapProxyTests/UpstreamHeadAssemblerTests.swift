import RangeTapCore
@testable import RangeTapProxy
import Testing

private func lines(_ raw: [String]) -> [HeaderLine] { raw.map(HeaderLine.init(raw:)) }

@Suite("UpstreamHeadAssembler")
struct UpstreamHeadAssemblerTests {
    @Test func earlyHintsThenPartialContent() {
        var a = UpstreamHeadAssembler()
        let hints = ["HTTP/1.1 103 Early Hints\r\n", "Link: </style.css>; rel=preload\r\n", "\r\n"]
        let final = ["HTTP/1.1 206 Partial Content\r\n", "Content-Range: bytes 0-1/1000\r\n", "content-length: 2\r\n", "\r\n"]
        var outputs: [UpstreamHeadAssembler.Output] = []
        for raw in hints + final { outputs.append(a.add(raw)) }
        #expect(outputs == [
            .none, .none, .interim(status: 103, lines: lines(hints)),
            .none, .none, .none, .final(status: 206, lines: lines(final)),
        ])
        #expect(a.finalReceived)
        #expect(a.trailers.isEmpty)
    }

    @Test func hundredContinueIsInterim() {
        var a = UpstreamHeadAssembler()
        #expect(a.add("HTTP/1.1 100 Continue\r\n") == .none)
        #expect(!a.finalReceived)
        #expect(a.add("\r\n") == .interim(status: 100, lines: lines(["HTTP/1.1 100 Continue\r\n", "\r\n"])))
        #expect(!a.finalReceived)
        #expect(a.add("HTTP/1.1 200 OK\r\n") == .none)
        #expect(a.add("Content-Length: 0\r\n") == .none)
        #expect(a.add("\r\n") == .final(status: 200, lines: lines(["HTTP/1.1 200 OK\r\n", "Content-Length: 0\r\n", "\r\n"])))
    }

    @Test func severalInterimHeadsEachCarryOnlyTheirOwnLines() {
        var a = UpstreamHeadAssembler()
        _ = a.add("HTTP/1.1 100 Continue\r\n")
        #expect(a.add("\r\n") == .interim(status: 100, lines: lines(["HTTP/1.1 100 Continue\r\n", "\r\n"])))
        _ = a.add("HTTP/1.1 103 Early Hints\r\n")
        _ = a.add("Link: </a>\r\n")
        #expect(a.add("\r\n") == .interim(status: 103, lines: lines(["HTTP/1.1 103 Early Hints\r\n", "Link: </a>\r\n", "\r\n"])))
        _ = a.add("HTTP/1.1 204 No Content\r\n")
        #expect(a.add("\r\n") == .final(status: 204, lines: lines(["HTTP/1.1 204 No Content\r\n", "\r\n"])))
    }

    @Test func switchingProtocolsIsFinal() {
        var a = UpstreamHeadAssembler()
        _ = a.add("HTTP/1.1 101 Switching Protocols\r\n")
        _ = a.add("Upgrade: websocket\r\n")
        #expect(a.add("\r\n") == .final(status: 101, lines: lines(["HTTP/1.1 101 Switching Protocols\r\n", "Upgrade: websocket\r\n", "\r\n"])))
        #expect(a.finalReceived)
    }

    @Test func trailersAfterTheFinalHeadAreCollected() {
        var a = UpstreamHeadAssembler()
        for raw in ["HTTP/1.1 200 OK\r\n", "Transfer-Encoding: chunked\r\n", "Trailer: X-Checksum\r\n"] {
            #expect(a.add(raw) == .none)
        }
        guard case .final(200, _) = a.add("\r\n") else {
            Issue.record("expected the final head")
            return
        }
        #expect(a.add("X-Checksum: abc\r\n") == .none)
        #expect(a.add("X-Other: 1\n") == .none)
        #expect(a.add("\r\n") == .none)
        #expect(a.trailers == lines(["X-Checksum: abc\r\n", "X-Other: 1\n"]))
        // Even a line that looks like a head is a trailer now.
        #expect(a.add("HTTP/1.1 200 OK\r\n") == .none)
        #expect(a.trailers.count == 3)
    }

    @Test func bareLFLinesAreKeptExactly() {
        var a = UpstreamHeadAssembler()
        let head = ["HTTP/1.0 200 OK\n", "Content-Length: 5\n", "X-Mixed: 1\r\n", "\n"]
        var last = UpstreamHeadAssembler.Output.none
        for raw in head { last = a.add(raw) }
        #expect(last == .final(status: 200, lines: lines(head)))
        guard case .final(_, let got) = last else { return }
        #expect(got.map(\.terminator) == ["\n", "\n", "\r\n", "\n"])
    }

    @Test func statusOfStatusLines() {
        #expect(UpstreamHeadAssembler.status(of: HeaderLine(raw: "HTTP/1.0 200 OK\r\n")) == 200)
        #expect(UpstreamHeadAssembler.status(of: HeaderLine(raw: "HTTP/1.1 206 Partial Content\n")) == 206)
        #expect(UpstreamHeadAssembler.status(of: HeaderLine(raw: "HTTP/1.1 404\r\n")) == 404)
        #expect(UpstreamHeadAssembler.status(of: HeaderLine(raw: "HTTP/2 103\r\n")) == 103)
    }

    @Test(arguments: ["garbage\r\n", "", "\r\n", "HTTP/1.1\r\n", "HTTP/1.1 abc OK\r\n", "Content-Length: 5\r\n", "HTTP/1.1 2000000000000000000000 OK\r\n"])
    func statusOfGarbageIsZero(raw: String) {
        #expect(UpstreamHeadAssembler.status(of: HeaderLine(raw: raw)) == 0)
    }

    @Test func statusOfNoLineIsZero() {
        #expect(UpstreamHeadAssembler.status(of: nil) == 0)
    }

    @Test func headWithAnUnreadableStatusLineIsFinalWithStatusZero() {
        var a = UpstreamHeadAssembler()
        _ = a.add("garbage\r\n")
        #expect(a.add("\r\n") == .final(status: 0, lines: lines(["garbage\r\n", "\r\n"])))
    }
}
