import NIOCore
import NIOHPACK
import NIOHTTP1
@testable import RangeTapProxy
import RangeTapCore
import Testing

/// The state machine for an exchange that is one HTTP/2 stream: the head as HEADERS wants it,
/// no connection-level framing, trailers, interim heads; and the stream's end or cancel.
@Suite("ExchangeStateMachine over HTTP/2")
struct ExchangeStateMachineHTTP2Tests {
    private let h2 = HTTPVersion(major: 2, minor: 0)

    private func lines(_ status: String, _ fields: [String]) -> [HeaderLine] {
        ([status] + fields + [""]).map { HeaderLine(raw: $0 + "\r\n") }
    }

    private func head(_ action: ExchangeStateMachine.Action) -> ClientHead? {
        if case .writeHead(let h) = action { h } else { nil }
    }

    @Test func theHeadIsLowerCasedWithoutReasonOrConnectionFields() throws {
        var m = ExchangeStateMachine(clientVersion: h2, clientKeepAlive: true)
        let h = try #require(
            head(
                m.upstreamHead(
                    lines: lines(
                        "HTTP/1.1 206 Partial Content",
                        [
                            "Content-Range: bytes 0-99/1000", "Content-Length: 100", "Connection: keep-alive, X-Hop",
                            "Keep-Alive: timeout=5", "X-Hop: 1", "Accept-Ranges: bytes",
                        ]))))
        #expect(
            h.text
                == "HTTP/2 206\r\ncontent-range: bytes 0-99/1000\r\ncontent-length: 100\r\naccept-ranges: bytes\r\n\r\n"
        )
        #expect(h.framing == .http2)
        let http2 = try #require(h.changes.first { $0.reason == .http2 })
        #expect(http2.original.first == "HTTP/1.1 206 Partial Content\r\n")
        #expect(http2.original.contains("Content-Range: bytes 0-99/1000\r\n"), "renamed fields are listed")
        #expect(
            h.hpack == [
                ":status": "206", "content-range": "bytes 0-99/1000", "content-length": "100", "accept-ranges": "bytes",
            ])
        // The body's end is END_STREAM, on the frame of its last declared byte: never a close
        // of the connection.
        let body = ByteBuffer(repeating: 1, count: 100)
        #expect(m.upstreamBody(body) == .writeBody(body, last: true))
        #expect(m.upstreamEnd() == .writeEnd(close: false, trailers: [], bodyEnded: true))
    }

    /// The stream's end is the machine's: the write that carries the last byte the head declared
    /// ends the stream (a client that stops at content-length has no frame left unread, so its
    /// close is no TCP reset); what an origin sends past it is not written; a client that asked
    /// for trailers gets the end after them instead.
    @Test func theLastDeclaredByteEndsTheStreamAndNothingFollowsIt() throws {
        var m = ExchangeStateMachine(clientVersion: h2, clientKeepAlive: true)
        _ = m.upstreamHead(lines: lines("HTTP/1.1 200 OK", ["Content-Length: 10"]))
        let first = ByteBuffer(repeating: 1, count: 6)
        #expect(m.upstreamBody(first) == .writeBody(first, last: false))
        #expect(!m.isEndWritten)
        // Six declared bytes, then eight from the origin: four are the body's last, four its excess.
        var crossing = ByteBuffer(repeating: 2, count: 4)
        crossing.writeRepeatingByte(3, count: 4)
        #expect(m.upstreamBody(crossing) == .writeBody(ByteBuffer(repeating: 2, count: 4), last: true))
        #expect(m.isEndWritten && !m.isResponseEnded)
        #expect(m.upstreamBody(ByteBuffer(repeating: 4, count: 5)) == .discardBody(5))
        // Window drained while the upstream is still to end: it may go on, to end.
        #expect(m.writeCompleted(10, written: true, windowDrained: true) == .resumeUpstream)
        #expect(
            m.upstreamEnd(outcome: UpstreamOutcome(t: 5, received: 19))
                == .writeEnd(close: false, trailers: [], bodyEnded: true))
        #expect(m.isResponseEnded)

        var te = ExchangeStateMachine(clientVersion: h2, clientKeepAlive: true, clientAcceptsTrailers: true)
        _ = te.upstreamHead(lines: lines("HTTP/1.1 200 OK", ["Content-Length: 4"]))
        let all = ByteBuffer(repeating: 1, count: 4)
        #expect(
            te.upstreamBody(all) == .writeBody(all, last: false), "trailers may follow: the end waits for upstream's")
        #expect(
            te.upstreamEnd(trailers: [HeaderLine(raw: "X-Sum: abc\r\n")])
                == .writeEnd(close: false, trailers: ["X-Sum: abc\r\n"], bodyEnded: false))

        // An HTTP/1.1 client's body ends by its framing: `last` is never said.
        var h1 = ExchangeStateMachine(clientVersion: .http1_1, clientKeepAlive: true)
        _ = h1.upstreamHead(lines: lines("HTTP/1.1 200 OK", ["Content-Length: 4"]))
        #expect(h1.upstreamBody(all) == .writeBody(all, last: false))
    }

    @Test func chunkedFromTheOriginIsJustDataFramesAndTrailersGoToClientsThatAskForThem() throws {
        let chunked = lines("HTTP/1.1 200 OK", ["Transfer-Encoding: chunked", "Content-Length: 5", "X-A: 1"])
        var m = ExchangeStateMachine(clientVersion: h2, clientKeepAlive: true, clientAcceptsTrailers: true)
        let h = try #require(head(m.upstreamHead(lines: chunked)))
        #expect(
            h.text == "HTTP/2 200\r\nx-a: 1\r\n\r\n", "no Transfer-Encoding, and the conflicting Content-Length out")
        #expect(h.changes.contains { $0.reason == .contentLengthWithTransferEncoding })
        #expect(
            m.upstreamEnd(trailers: [HeaderLine(raw: "X-Sum: abc\r\n")])
                == .writeEnd(close: false, trailers: ["X-Sum: abc\r\n"], bodyEnded: false))
        #expect(ClientHead.hpack(trailers: ["X-Sum: abc\r\n"]) == ["x-sum": "abc"])
        var noTE = ExchangeStateMachine(clientVersion: h2, clientKeepAlive: true)
        _ = noTE.upstreamHead(lines: chunked)
        #expect(
            noTE.upstreamEnd(trailers: [HeaderLine(raw: "X-Sum: abc\r\n")])
                == .writeEnd(close: false, trailers: [], bodyEnded: false))
    }

    @Test func interimHeadsAreRelayedButNever101() throws {
        var m = ExchangeStateMachine(clientVersion: h2, clientKeepAlive: true)
        guard
            case .writeInterim(let hint) = m.upstreamInterim(
                lines: lines("HTTP/1.1 103 Early Hints", ["Link: </a.mp4>; rel=preload"]))
        else {
            Issue.record("expected an interim head")
            return
        }
        #expect(hint.hpack == [":status": "103", "link": "</a.mp4>; rel=preload"])
        #expect(m.upstreamInterim(lines: lines("HTTP/1.1 101 Switching Protocols", ["Upgrade: h2c"])) == .none)
        #expect(m.interimHeld == 1)
    }

    @Test func anHTTP2OriginHeadForAnHTTP11ClientGetsRangetapsVersion() throws {
        var m = ExchangeStateMachine(clientVersion: .http1_1, clientKeepAlive: true)
        let h = try #require(head(m.upstreamHead(lines: lines("HTTP/2 206 ", ["content-length: 10"]))))
        #expect(h.text.hasPrefix("HTTP/1.1 206 \r\ncontent-length: 10\r\n"))
        #expect(h.changes.contains { $0.reason == .version })
    }

    @Test func aResetStreamIsACancelWithWhatTheClientGrantedBack() {
        var m = ExchangeStateMachine(clientVersion: h2, clientKeepAlive: true, exchange: 4, connection: 2)
        _ = m.upstreamHead(lines: lines("HTTP/2 200", ["content-length: 1000"]))
        _ = m.upstreamBody(ByteBuffer(repeating: 1, count: 1000))
        _ = m.upstreamEnd(outcome: UpstreamOutcome(t: 10, received: 1000))
        #expect(m.clientClosed(ClientOutcome(t: 12, delivered: 300, measure: .h2WindowUpdate, gone: true)) == .none)
        #expect(
            m.takeRecord()
                == .cancel(
                    CancelEvent(
                        t: 12, exchange: 4, delivered: 300, received: 1000, sendBuffer: nil, sha256: "",
                        deliveredBy: .h2WindowUpdate)))
    }

    @Test func endStreamOnTheSocketIsAnEnd() {
        var m = ExchangeStateMachine(clientVersion: h2, clientKeepAlive: true, exchange: 5, connection: 2)
        _ = m.upstreamHead(lines: lines("HTTP/2 200", ["content-length: 10"]))
        _ = m.upstreamEnd(outcome: UpstreamOutcome(t: 10, received: 10))
        _ = m.clientReceivedAll(ClientOutcome(t: 11, delivered: 10, measure: .h2StreamEnded, gone: false))
        #expect(
            m.takeRecord()
                == .end(
                    EndEvent(
                        t: 10, exchange: 5, bytes: 10, sha256: "", trailers: [], delivered: 10,
                        deliveredBy: .h2StreamEnded)))
    }
}
