import Dispatch
import Foundation
import NIOCore
import NIOHTTP1
@testable import RangeTapProxy
import Synchronization
import RangeTapCore
import Testing

/// Raw upstream lines: a status line, the fields, the blank line.
private func upstream(_ status: String, _ fields: [String]) -> [HeaderLine] {
    ([status] + fields + [""]).map { HeaderLine(raw: $0 + "\r\n") }
}

/// The head of a `.writeHead` action.
private func head(of action: ExchangeStateMachine.Action) -> ClientHead? {
    if case .writeHead(let h) = action { h } else { nil }
}

private let upstreamFields = [
    "Content-Type: video/mp4", "content-range: bytes 0-99/1000", "Content-Length: 100", "X-Custom: a", "x-custom: b",
]
private let upstreamHeaders = upstream("HTTP/1.1 206 Partial Content", upstreamFields)

/// The text a client gets for `status` and `fields`.
private func text(_ status: String, _ fields: [String]) -> String {
    ([status] + fields + [""]).map { $0 + "\r\n" }.joined()
}

@Suite("ExchangeStateMachine")
struct ExchangeStateMachineTests {
    // MARK: Settlement: end or cancel, decided once both halves are done

    private func streaming() -> ExchangeStateMachine {
        var m = ExchangeStateMachine(clientVersion: .http1_1, clientKeepAlive: true, exchange: 7, connection: 3)
        _ = m.upstreamHead(lines: upstreamHeaders)
        _ = m.upstreamBody(ByteBuffer(repeating: 1, count: 100))
        return m
    }

    @Test func upstreamEndThenEveryByteAcknowledgedIsAnEnd() {
        var m = streaming()
        #expect(
            m.upstreamEnd(outcome: UpstreamOutcome(t: 50, received: 100))
                == .writeEnd(close: false, trailers: [], bodyEnded: false))
        #expect(m.takeRecord() == nil, "not before the client has the bytes")
        #expect(!m.isSettled)
        #expect(m.clientReceivedAll(ClientOutcome(t: 60, delivered: 100, measure: .complete, gone: false)) == .none)
        #expect(
            m.takeRecord()
                == .end(EndEvent(t: 50, exchange: 7, bytes: 100, sha256: "", delivered: 100, deliveredBy: .complete)))
        #expect(m.isSettled)
        #expect(m.takeRecord() == nil, "an event is handed out once")
    }

    @Test func clientClosingAfterTheEndButBeforeTheLastAckIsACancel() {
        var m = streaming()
        _ = m.upstreamEnd(outcome: UpstreamOutcome(t: 50, received: 100))
        #expect(m.clientClosed(ClientOutcome(t: 55, delivered: 40, measure: .tcpAcked, gone: true)) == .none)
        #expect(
            m.takeRecord()
                == .cancel(
                    CancelEvent(
                        t: 55, exchange: 7, delivered: 40, received: 100, sendBuffer: nil, sha256: "",
                        deliveredBy: .tcpAcked)))
    }

    @Test func clientClosingAfterItAcknowledgedEverythingIsAnEnd() {
        var m = streaming()
        _ = m.upstreamEnd(outcome: UpstreamOutcome(t: 50, received: 100))
        _ = m.clientClosed(ClientOutcome(t: 55, delivered: 100, measure: .tcpAcked, gone: true))
        #expect(
            m.takeRecord()
                == .end(EndEvent(t: 50, exchange: 7, bytes: 100, sha256: "", delivered: 100, deliveredBy: .tcpAcked)))
    }

    @Test func clientLeavingMidBodyAbortsAndSettlesWhenUpstreamStops() {
        var m = streaming()
        #expect(
            m.clientClosed(ClientOutcome(t: 20, delivered: 30, measure: .tcpAcked, gone: true, sendBuffer: 4096))
                == .cancelUpstream(delivered: 30))
        #expect(m.takeRecord() == nil, "upstream has not stopped yet")
        // The aborted transfer reports back.
        #expect(m.upstreamFailed(message: "the client left", outcome: UpstreamOutcome(t: 25, received: 100)) == .none)
        #expect(
            m.takeRecord()
                == .cancel(
                    CancelEvent(
                        t: 20, exchange: 7, delivered: 30, received: 100, sendBuffer: 4096, sha256: "",
                        deliveredBy: .tcpAcked)))
    }

    @Test func libcurlFinishingWhileTheClientLeavesIsJudgedByDelivery() {
        // The end raced the close: everything received had reached the client.
        var all = streaming()
        _ = all.clientClosed(ClientOutcome(t: 20, delivered: 100, measure: .tcpAcked, gone: true))
        _ = all.upstreamEnd(outcome: UpstreamOutcome(t: 21, received: 100))
        #expect(
            all.takeRecord()
                == .end(EndEvent(t: 21, exchange: 7, bytes: 100, sha256: "", delivered: 100, deliveredBy: .tcpAcked)))
        var part = streaming()
        _ = part.clientClosed(ClientOutcome(t: 20, delivered: 60, measure: .tcpAcked, gone: true))
        _ = part.upstreamEnd(outcome: UpstreamOutcome(t: 21, received: 100))
        #expect(
            part.takeRecord()
                == .cancel(
                    CancelEvent(
                        t: 20, exchange: 7, delivered: 60, received: 100, sendBuffer: nil, sha256: "",
                        deliveredBy: .tcpAcked)))
    }

    @Test func anUpstreamFailureWithTheClientPresentIsRecordedAsTheError() {
        let failure = ErrorEvent(
            t: 30, exchange: 7, connection: 3, kind: .upstream, message: "reset", curlCode: 56, received: 100)
        var m = streaming()
        #expect(
            m.upstreamFailed(message: "reset", outcome: UpstreamOutcome(t: 30, received: 100, failure: failure))
                == .closeConnection)
        #expect(m.takeRecord() == .error(failure))
        #expect(m.isSettled && !m.awaitsClient, "the close that follows is not the machine's to hear")
    }

    @Test func anUpstreamFailureAfterTheClientLeftIsACancel() {
        let failure = ErrorEvent(
            t: 30, exchange: 7, connection: 3, kind: .upstream, message: "reset", curlCode: 56, received: 80)
        var m = streaming()
        _ = m.clientClosed(ClientOutcome(t: 20, delivered: 80, measure: .tcpAcked, gone: true))
        _ = m.upstreamFailed(message: "reset", outcome: UpstreamOutcome(t: 30, received: 80, failure: failure))
        #expect(
            m.takeRecord()
                == .cancel(
                    CancelEvent(
                        t: 20, exchange: 7, delivered: 80, received: 80, sendBuffer: nil, sha256: "",
                        deliveredBy: .tcpAcked)))
    }

    @Test func anUnusableHeadIsRecordedAsAnError() {
        var m = ExchangeStateMachine(clientVersion: .http1_1, clientKeepAlive: true, exchange: 7, connection: 3)
        guard
            case .respondWithError(.badGateway, _) = m.upstreamHead(
                lines: upstream("HTTP/1.1 200 O\rK", ["Content-Length: 5"]))
        else {
            Issue.record("a bare CR in the status line must be refused")
            return
        }
        guard case .error(let e)? = m.takeRecord() else {
            Issue.record("no error recorded")
            return
        }
        #expect(e.kind == .upstream && e.status == 502 && e.exchange == 7 && e.connection == 3)
        #expect(m.isSettled)
    }

    @Test func headIsWrittenByteForByte() throws {
        var m = ExchangeStateMachine(clientVersion: .http1_1, clientKeepAlive: true)
        #expect(m.state == .awaitingHead(interimRelayed: 0))
        let odd = upstream("HTTP/1.1 206 Partial Stuff", ["X-Pad:  two spaces ", "X-Tab:\tv", "Content-Length: 100"])
        let h = try #require(head(of: m.upstreamHead(lines: odd)))
        #expect(
            h.text == text("HTTP/1.1 206 Partial Stuff", ["X-Pad:  two spaces ", "X-Tab:\tv", "Content-Length: 100"]))
        #expect(h.framing == .contentLength)
        #expect(h.changes.isEmpty)
        guard case .streaming(let body) = m.state else {
            Issue.record("expected the body to stream, in \(m.state)")
            return
        }
        #expect(body == ExchangeStateMachine.Body(framing: .contentLength, closeAfterEnd: false))
    }

    @Test func nonStandardStatusIsKept() throws {
        var m = ExchangeStateMachine(clientVersion: .http1_1, clientKeepAlive: true)
        let h = try #require(head(of: m.upstreamHead(lines: upstream("HTTP/1.1 299 Whatever", ["Content-Length: 0"]))))
        #expect(h.status == 299)
        #expect(h.text.hasPrefix("HTTP/1.1 299 Whatever\r\n"))
    }

    @Test func bodyIsWrittenAndEndKeepsTheConnectionForAKeepAliveClient() {
        var m = ExchangeStateMachine(clientVersion: .http1_1, clientKeepAlive: true)
        _ = m.upstreamHead(lines: upstreamHeaders)
        let buffer = ByteBuffer(bytes: [1, 2, 3, 4])
        #expect(m.upstreamBody(buffer) == .writeBody(buffer, last: false))
        #expect(m.upstreamEnd() == .writeEnd(close: false, trailers: [], bodyEnded: false))
        #expect(m.isResponseEnded && m.isEndWritten && m.awaitsClient)
    }

    @Test func http11ClientThatAsksForCloseGetsConnectionCloseAndAClose() throws {
        var m = ExchangeStateMachine(clientVersion: .http1_1, clientKeepAlive: false)
        let h = try #require(head(of: m.upstreamHead(lines: upstreamHeaders)))
        #expect(h.text == text("HTTP/1.1 206 Partial Content", upstreamFields + ["Connection: close"]))
        #expect(h.changes.map(\.reason) == [.connectionAdded])
        #expect(m.upstreamEnd() == .writeEnd(close: true, trailers: [], bodyEnded: false))
    }

    @Test func http10KeepAliveClientWithContentLengthStaysOpen() throws {
        var m = ExchangeStateMachine(clientVersion: .http1_0, clientKeepAlive: true)
        let h = try #require(head(of: m.upstreamHead(lines: upstreamHeaders)))
        #expect(h.text == text("HTTP/1.1 206 Partial Content", upstreamFields + ["Connection: keep-alive"]))
        #expect(m.upstreamEnd() == .writeEnd(close: false, trailers: [], bodyEnded: false))
    }

    @Test func http10ClientWithoutContentLengthIsClosedToEndTheBody() throws {
        var m = ExchangeStateMachine(clientVersion: .http1_0, clientKeepAlive: true)
        let h = try #require(
            head(
                of: m.upstreamHead(
                    lines: upstream("HTTP/1.1 200 OK", ["Content-Type: video/mp4", "Transfer-Encoding: chunked"]))))
        #expect(h.text == text("HTTP/1.1 200 OK", ["Content-Type: video/mp4"]))
        #expect(h.framing == .closeDelimited)
        #expect(m.upstreamBody(ByteBuffer(bytes: [9])) == .writeBody(ByteBuffer(bytes: [9]), last: false))
        #expect(m.upstreamEnd() == .writeEnd(close: true, trailers: [], bodyEnded: false))
    }

    @Test func http10ClientWithoutKeepAliveIsClosed() throws {
        var m = ExchangeStateMachine(clientVersion: .http1_0, clientKeepAlive: false)
        let h = try #require(head(of: m.upstreamHead(lines: upstreamHeaders)))
        #expect(h.text == text("HTTP/1.1 206 Partial Content", upstreamFields))
        #expect(m.upstreamEnd() == .writeEnd(close: true, trailers: [], bodyEnded: false))
    }

    /// The forwarded head refuses a field holding a bare CR; the origin's `Transfer-Encoding`
    /// line, which the framing puts back as spelled, was let through with its bare CR (seen at
    /// the wire: `Transfer-Encoding: chunked\rX-Injected: 1` reached the client).
    @Test func aTransferEncodingLineWithABareCRIsNeverSentAsSpelled() throws {
        var m = ExchangeStateMachine(clientVersion: .http1_1, clientKeepAlive: true)
        let h = try #require(
            head(
                of: m.upstreamHead(
                    lines: upstream("HTTP/1.1 200 OK", ["Transfer-Encoding: chunked\rX-Injected: 1", "X-A: 1"]))))
        #expect(h.text == text("HTTP/1.1 200 OK", ["X-A: 1", "Transfer-Encoding: chunked"]))
        #expect(h.framing == .chunked)
        #expect(
            h.changes == [
                HeadChange(
                    .bareCR, original: ["Transfer-Encoding: chunked\rX-Injected: 1\r\n"],
                    replacement: "Transfer-Encoding: chunked\r\n")
            ])
        // With a clean line beside it, the clean one is sent and the other stays dropped.
        var n = ExchangeStateMachine(clientVersion: .http1_1, clientKeepAlive: true)
        let both = try #require(
            head(
                of: n.upstreamHead(
                    lines: upstream("HTTP/1.1 200 OK", ["Transfer-Encoding: gzip\rX: 1", "transfer-encoding: chunked"]))
            ))
        #expect(both.text == text("HTTP/1.1 200 OK", ["transfer-encoding: chunked"]))
        #expect(both.changes == [HeadChange(.bareCR, original: ["Transfer-Encoding: gzip\rX: 1\r\n"])])
    }

    /// A folded `Transfer-Encoding` goes back joined, as the forwarded head joins every other
    /// folded field; only its first line went back before (`Transfer-Encoding:`, empty, for a
    /// body rangetap frames in chunks).
    @Test func aFoldedTransferEncodingGoesBackJoined() throws {
        var m = ExchangeStateMachine(clientVersion: .http1_1, clientKeepAlive: true)
        let h = try #require(
            head(
                of: m.upstreamHead(
                    lines: upstream("HTTP/1.1 200 OK", ["Transfer-Encoding: gzip,", "\tchunked", "X-A: 1"]))))
        #expect(h.text == text("HTTP/1.1 200 OK", ["X-A: 1", "Transfer-Encoding: gzip, chunked"]))
        #expect(h.framing == .chunked)
        #expect(
            h.changes == [
                HeadChange(
                    .obsFold, original: ["Transfer-Encoding: gzip,\r\n", "\tchunked\r\n"],
                    replacement: "Transfer-Encoding: gzip, chunked\r\n")
            ])
        // Whitespace before the colon: repaired, and not listed as dropped.
        var n = ExchangeStateMachine(clientVersion: .http1_1, clientKeepAlive: true)
        let spaced = try #require(
            head(of: n.upstreamHead(lines: upstream("HTTP/1.1 200 OK", ["Transfer-Encoding : chunked"]))))
        #expect(spaced.text == text("HTTP/1.1 200 OK", ["Transfer-Encoding: chunked"]))
        #expect(spaced.changes.map(\.reason) == [.spaceBeforeColon])
    }

    @Test func chunkedKeepsTheOriginsTransferEncodingLineAndTrailersNeedTE() throws {
        let lines = upstream("HTTP/1.1 200 OK", ["TRANSFER-ENCODING: chunked", "X-A: 1"])
        var plain = ExchangeStateMachine(clientVersion: .http1_1, clientKeepAlive: true)
        let h = try #require(head(of: plain.upstreamHead(lines: lines)))
        #expect(h.text == text("HTTP/1.1 200 OK", ["X-A: 1", "TRANSFER-ENCODING: chunked"]))
        #expect(h.framing == .chunked)
        #expect(h.changes.isEmpty)
        let trailer = [HeaderLine(raw: "X-Sum:  abc\r\n")]
        #expect(plain.upstreamEnd(trailers: trailer) == .writeEnd(close: false, trailers: [], bodyEnded: false))
        var te = ExchangeStateMachine(clientVersion: .http1_1, clientKeepAlive: true, clientAcceptsTrailers: true)
        _ = te.upstreamHead(lines: lines)
        #expect(
            te.upstreamEnd(trailers: trailer)
                == .writeEnd(close: false, trailers: ["X-Sum:  abc\r\n"], bodyEnded: false))
    }

    @Test func interimHeadsAreRelayedToHTTP11ClientsUpToTheBound() throws {
        var m = ExchangeStateMachine(clientVersion: .http1_1, clientKeepAlive: true)
        let early = upstream("HTTP/1.1 103 Early Hints", ["Link: </a.mp4>; rel=preload"])
        for _ in 0..<ExchangeStateMachine.maxInterimRelayed {
            guard case .writeInterim(let h) = m.upstreamInterim(lines: early) else {
                Issue.record("expected an interim head")
                return
            }
            #expect(h.text == text("HTTP/1.1 103 Early Hints", ["Link: </a.mp4>; rel=preload"]))
        }
        #expect(m.upstreamInterim(lines: early) == .none)
        #expect(m.interimHeld == 1)
        var old = ExchangeStateMachine(clientVersion: .http1_0, clientKeepAlive: true)
        #expect(old.upstreamInterim(lines: early) == .none)
    }

    @Test func headOfAnHTTP10OriginGetsRangetapsVersionAndCloseDelimitedBody() throws {
        var m = ExchangeStateMachine(clientVersion: .http1_1, clientKeepAlive: true)
        let h = try #require(head(of: m.upstreamHead(lines: upstream("HTTP/1.0 200 OK", ["Server: SimpleHTTP/0.6"]))))
        #expect(h.text == text("HTTP/1.1 200 OK", ["Server: SimpleHTTP/0.6", "Connection: close"]))
        #expect(h.changes.map(\.reason) == [.version, .connectionAdded])
        #expect(m.upstreamEnd() == .writeEnd(close: true, trailers: [], bodyEnded: false))
    }

    /// What the upstream half and the writers promise (one head, body after it, one end, one
    /// client report) is checked, not assumed: breaking it stops the process, as a programming
    /// error, rather than passing as a silent `.none` that leaves a client hanging.
    @Test func inputsTheContractRulesOutAreProgrammingErrors() async {
        await #expect(processExitsWith: .failure, "body bytes before the head") {
            var m = ExchangeStateMachine(clientVersion: .http1_1, clientKeepAlive: true)
            _ = m.upstreamBody(ByteBuffer(bytes: [1]))
        }
        await #expect(processExitsWith: .failure, "a second final head") {
            var m = ExchangeStateMachine(clientVersion: .http1_1, clientKeepAlive: true)
            _ = m.upstreamHead(lines: [
                HeaderLine(raw: "HTTP/1.1 200 OK\r\n"), HeaderLine(raw: "Content-Length: 1\r\n"),
            ])
            _ = m.upstreamHead(lines: [
                HeaderLine(raw: "HTTP/1.1 200 OK\r\n"), HeaderLine(raw: "Content-Length: 1\r\n"),
            ])
        }
        await #expect(processExitsWith: .failure, "an interim head after the final head") {
            var m = ExchangeStateMachine(clientVersion: .http1_1, clientKeepAlive: true)
            _ = m.upstreamHead(lines: [
                HeaderLine(raw: "HTTP/1.1 200 OK\r\n"), HeaderLine(raw: "Content-Length: 1\r\n"),
            ])
            _ = m.upstreamInterim(lines: [HeaderLine(raw: "HTTP/1.1 103 Early Hints\r\n")])
        }
        await #expect(processExitsWith: .failure, "a second upstream end") {
            var m = ExchangeStateMachine(clientVersion: .http1_1, clientKeepAlive: true)
            _ = m.upstreamHead(lines: [
                HeaderLine(raw: "HTTP/1.1 200 OK\r\n"), HeaderLine(raw: "Content-Length: 0\r\n"),
            ])
            _ = m.upstreamEnd()
            _ = m.upstreamEnd()
        }
        await #expect(processExitsWith: .failure, "a second client close") {
            var m = ExchangeStateMachine(clientVersion: .http1_1, clientKeepAlive: true)
            _ = m.clientClosed()
            _ = m.clientClosed()
        }
        await #expect(processExitsWith: .failure, "the whole response received before it ended") {
            var m = ExchangeStateMachine(clientVersion: .http1_1, clientKeepAlive: true)
            _ = m.clientReceivedAll(ClientOutcome(t: 0, delivered: 0, measure: .complete, gone: false))
        }
    }

    @Test func endBeforeHeadAnswersBadGateway() {
        var m = ExchangeStateMachine(clientVersion: .http1_1, clientKeepAlive: true)
        guard case .respondWithError(let status, let message) = m.upstreamEnd() else {
            Issue.record("expected respondWithError")
            return
        }
        #expect(status == .badGateway)
        #expect(message.contains("before its head"))
        #expect(m.isSettled)
    }

    @Test func clientCloseMidBodyCancelsWithTheBytesTheSocketAccepted() {
        var m = ExchangeStateMachine(clientVersion: .http1_1, clientKeepAlive: true)
        _ = m.upstreamHead(lines: upstreamHeaders)
        let first = ByteBuffer(repeating: 1, count: 1000)
        let second = ByteBuffer(repeating: 2, count: 700)
        #expect(m.upstreamBody(first) == .writeBody(first, last: false))
        #expect(m.upstreamBody(second) == .writeBody(second, last: false))
        #expect(m.writeCompleted(1000, written: true, windowDrained: false) == .none)
        #expect(m.bytesDelivered == 1000)
        #expect(m.clientClosed() == .cancelUpstream(delivered: 1000))
        #expect(m.state == .clientGone(client: ClientOutcome(t: 0, delivered: 1000, measure: .writes, gone: true)))
        // What the upstream thread passed on before it saw the abort is not written.
        #expect(m.writeCompleted(700, written: false, windowDrained: true) == .none)
        #expect(m.upstreamBody(ByteBuffer(bytes: [3])) == .none)
        #expect(!m.isSettled)
        // The aborted transfer's end settles it; a late message after that changes nothing.
        #expect(m.upstreamFailed(message: "aborted") == .none)
        #expect(m.isSettled)
        #expect(m.upstreamHead(lines: upstreamHeaders) == .none)
    }

    @Test func failedWritesAreNotCountedAsDelivered() {
        var m = ExchangeStateMachine(clientVersion: .http1_1, clientKeepAlive: true)
        _ = m.upstreamHead(lines: upstreamHeaders)
        _ = m.upstreamBody(ByteBuffer(repeating: 0, count: 10))
        _ = m.upstreamBody(ByteBuffer(repeating: 0, count: 20))
        #expect(m.writeCompleted(10, written: true, windowDrained: false) == .none)
        #expect(m.writeCompleted(20, written: false, windowDrained: false) == .none)
        #expect(m.clientClosed() == .cancelUpstream(delivered: 10))
    }

    @Test func clientCloseBeforeHeadCancelsWithNothingDelivered() {
        var m = ExchangeStateMachine(clientVersion: .http1_1, clientKeepAlive: true)
        #expect(m.clientClosed() == .cancelUpstream(delivered: 0))
        #expect(m.upstreamHead(lines: upstreamHeaders) == .none)
    }

    @Test func upstreamFailureAfterPartialBodyClosesTheConnection() {
        var m = ExchangeStateMachine(clientVersion: .http1_1, clientKeepAlive: true)
        _ = m.upstreamHead(lines: upstreamHeaders)
        _ = m.upstreamBody(ByteBuffer(repeating: 0, count: 50))
        #expect(m.upstreamFailed(message: "upstream failed: reset (curl error 56)") == .closeConnection)
        #expect(m.isSettled)
        guard case .error(let e)? = m.takeRecord() else {
            Issue.record("the failure is recorded as an error")
            return
        }
        #expect(e.message.contains("curl error 56"))
    }

    @Test func upstreamFailureBeforeHeadAnswersBadGatewayWithTheMessage() {
        var m = ExchangeStateMachine(clientVersion: .http1_1, clientKeepAlive: true)
        let message = "upstream failed: Connection refused (curl error 7)"
        #expect(m.upstreamFailed(message: message) == .respondWithError(.badGateway, message: message))
        #expect(m.isSettled)
        #expect(m.upstreamHead(lines: upstreamHeaders) == .none)
    }

    @Test func pauseAndResumeFollowFlowControl() {
        let flow = FlowControl(highWater: 100, lowWater: 40)
        var m = ExchangeStateMachine(clientVersion: .http1_1, clientKeepAlive: true)
        _ = m.upstreamHead(lines: upstreamHeaders)

        // Upstream side: admit 30-byte chunks until the window is full.
        var admitted: [Int] = []
        while flow.admit(30) {
            admitted.append(30)
            #expect(
                m.upstreamBody(ByteBuffer(repeating: 0, count: 30))
                    == .writeBody(ByteBuffer(repeating: 0, count: 30), last: false))
            if admitted.count > 10 { break }
        }
        // 0, 30, 60 and 90 are below the high mark; at 120 the next chunk is refused.
        #expect(admitted.count == 4)
        #expect(flow.bytesInFlight == 120)
        #expect(flow.isPaused)
        // Refusing again while paused changes nothing.
        #expect(!flow.admit(30))
        #expect(flow.bytesInFlight == 120)

        // Event loop side: writes complete one by one; only the one that drains to <= 40 resumes.
        var actions: [ExchangeStateMachine.Action] = []
        for n in admitted {
            actions.append(m.writeCompleted(n, written: true, windowDrained: flow.complete(n)))
        }
        #expect(actions == [.none, .none, .resumeUpstream, .none])
        #expect(actions.filter { $0 == .resumeUpstream }.count == 1)
        #expect(!flow.isPaused)
        #expect(flow.bytesInFlight == 0)
        #expect(m.bytesDelivered == 120)
        // After the resume the transfer proceeds.
        #expect(flow.admit(30))
    }

    @Test func drainedWindowAfterTheEndDoesNotResumeThroughTheMachine() {
        var m = ExchangeStateMachine(clientVersion: .http1_1, clientKeepAlive: true)
        _ = m.upstreamHead(lines: upstreamHeaders)
        _ = m.upstreamBody(ByteBuffer(repeating: 0, count: 10))
        #expect(m.writeCompleted(10, written: true, windowDrained: true) == .resumeUpstream)
        _ = m.upstreamEnd()
        #expect(m.writeCompleted(10, written: true, windowDrained: true) == .none)
    }
}

/// State shared between the producer and consumer threads of the concurrency test.
private final class FlowHarness: @unchecked Sendable {
    let flow = FlowControl(highWater: 100, lowWater: 40)
    let queue = Mutex<[Int]>([])
    let items = DispatchSemaphore(value: 0)
    let resumed = DispatchSemaphore(value: 0)
    let finished = DispatchSemaphore(value: 0)
    let pauses = Atomic<Int>(0)
    let resumes = Atomic<Int>(0)
    let admittedBytes = Atomic<Int>(0)
    let completedBytes = Atomic<Int>(0)
    let lostResume = Atomic<Bool>(false)
}

@Suite("FlowControl")
struct FlowControlTests {
    @Test func windowPausesAtHighAndResumesOnceAtLow() {
        let flow = FlowControl(highWater: 100, lowWater: 40)
        #expect(flow.admit(99))
        #expect(flow.admit(50))  // 99 < 100: still admitted, the window may overshoot by one chunk
        #expect(flow.bytesInFlight == 149)
        #expect(!flow.admit(1))
        #expect(flow.isPaused)
        #expect(!flow.complete(100))  // 49 > 40
        #expect(flow.complete(9))  // 40 <= 40: resume
        #expect(!flow.isPaused)
        #expect(!flow.complete(40))  // not paused any more: no second resume
        #expect(flow.bytesInFlight == 0)
    }

    @Test func drainingWithoutAPauseNeverAsksForAResume() {
        let flow = FlowControl(highWater: 100, lowWater: 40)
        #expect(flow.admit(60))
        #expect(!flow.complete(60))
        #expect(!flow.isPaused)
    }

    @Test(.timeLimit(.minutes(1)))
    func noResumeIsLostOrDoubledAcrossThreads() {
        let h = FlowHarness()
        let chunks = 100_000  // 100_000 admits + 100_000 completes

        let producer = Thread {
            var i = 0
            while i < chunks {
                let n = 1 + (i &* 7919) % 37
                if h.flow.admit(n) {
                    h.admittedBytes.add(n, ordering: .relaxed)
                    h.queue.withLock { $0.append(n) }
                    h.items.signal()
                    i += 1
                } else {
                    h.pauses.add(1, ordering: .relaxed)
                    // Paused: only the consumer's resume may let us go on.
                    if h.resumed.wait(timeout: .now() + 10) == .timedOut {
                        h.lostResume.store(true, ordering: .relaxed)
                        break
                    }
                }
            }
            h.queue.withLock { $0.append(-1) }
            h.items.signal()
            h.finished.signal()
        }
        let consumer = Thread {
            while true {
                h.items.wait()
                let n = h.queue.withLock { $0.removeFirst() }
                if n < 0 { break }
                h.completedBytes.add(n, ordering: .relaxed)
                if h.flow.complete(n) {
                    h.resumes.add(1, ordering: .relaxed)
                    h.resumed.signal()
                }
            }
            h.finished.signal()
        }
        producer.start()
        consumer.start()
        let first = h.finished.wait(timeout: .now() + 50)
        let second = h.finished.wait(timeout: .now() + 50)
        #expect(first == .success && second == .success)

        let lost = h.lostResume.load(ordering: .relaxed)
        #expect(!lost, "the producer paused and no resume came")
        let pauses = h.pauses.load(ordering: .relaxed)
        let resumes = h.resumes.load(ordering: .relaxed)
        #expect(pauses > 0, "the test never filled the window")
        #expect(resumes == pauses, "every pause must be followed by exactly one resume")
        // No stray resume left over.
        #expect(h.resumed.wait(timeout: .now()) == .timedOut)
        let admitted = h.admittedBytes.load(ordering: .relaxed)
        let completed = h.completedBytes.load(ordering: .relaxed)
        #expect(admitted == completed)
        #expect(h.flow.bytesInFlight == 0)
        #expect(!h.flow.isPaused)
    }
}
