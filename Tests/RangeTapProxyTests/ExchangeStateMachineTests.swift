import Dispatch
import Foundation
import NIOCore
import NIOHTTP1
@testable import RangeTapProxy
import Synchronization
import Testing

/// `Name: value` for each header, in order and case.
private func fieldList(_ headers: HTTPHeaders) -> [String] {
    headers.map { "\($0.name): \($0.value)" }
}

/// The head of a `.writeHead` action.
private func head(of action: ExchangeStateMachine.Action) -> HTTPResponseHead? {
    if case .writeHead(let h) = action { h } else { nil }
}

private let upstreamHeaders = HTTPHeaders([
    ("Content-Type", "video/mp4"),
    ("content-range", "bytes 0-99/1000"),
    ("Content-Length", "100"),
    ("X-Custom", "a"),
    ("x-custom", "b"),
])

@Suite("ExchangeStateMachine")
struct ExchangeStateMachineTests {
    @Test func headIsWrittenWithTheHeadersAsPassedAndTheClientsVersion() throws {
        var m = ExchangeStateMachine(clientVersion: .http1_1, clientKeepAlive: true)
        #expect(m.state == .awaitingHead)
        let action = m.upstreamHead(status: 206, headers: upstreamHeaders)
        let h = try #require(head(of: action))
        #expect(h.version == .http1_1)
        #expect(h.status == .partialContent)
        #expect(fieldList(h.headers) == fieldList(upstreamHeaders))
        #expect(m.state == .streaming)
        // A second head is ignored.
        #expect(m.upstreamHead(status: 200, headers: HTTPHeaders()) == .none)
    }

    @Test func nonStandardStatusIsKept() throws {
        var m = ExchangeStateMachine(clientVersion: .http1_1, clientKeepAlive: true)
        let h = try #require(head(of: m.upstreamHead(status: 299, headers: HTTPHeaders([("Content-Length", "0")]))))
        #expect(h.status.code == 299)
    }

    @Test func bodyIsWrittenAndEndKeepsTheConnectionForAKeepAliveClient() {
        var m = ExchangeStateMachine(clientVersion: .http1_1, clientKeepAlive: true)
        _ = m.upstreamHead(status: 200, headers: upstreamHeaders)
        let buffer = ByteBuffer(bytes: [1, 2, 3, 4])
        #expect(m.upstreamBody(buffer) == .writeBody(buffer))
        #expect(m.upstreamEnd() == .writeEnd(close: false))
        #expect(m.state == .finished)
        // Nothing after the end.
        #expect(m.upstreamBody(buffer) == .none)
        #expect(m.upstreamEnd() == .none)
        #expect(m.upstreamFailed(message: "late") == .none)
        #expect(m.clientClosed() == .none)
    }

    @Test func http11ClientThatAsksForCloseGetsConnectionCloseAndAClose() throws {
        var m = ExchangeStateMachine(clientVersion: .http1_1, clientKeepAlive: false)
        let h = try #require(head(of: m.upstreamHead(status: 200, headers: upstreamHeaders)))
        #expect(h.version == .http1_1)
        #expect(fieldList(h.headers) == fieldList(upstreamHeaders) + ["Connection: close"])
        #expect(m.upstreamEnd() == .writeEnd(close: true))
    }

    @Test func http10KeepAliveClientWithContentLengthStaysOpen() throws {
        var m = ExchangeStateMachine(clientVersion: .http1_0, clientKeepAlive: true)
        let h = try #require(head(of: m.upstreamHead(status: 206, headers: upstreamHeaders)))
        #expect(h.version == .http1_0)
        #expect(fieldList(h.headers) == fieldList(upstreamHeaders) + ["Connection: keep-alive"])
        #expect(m.upstreamEnd() == .writeEnd(close: false))
    }

    @Test func http10ClientWithoutContentLengthIsClosedToEndTheBody() throws {
        let noLength = HTTPHeaders([("Content-Type", "video/mp4")])
        var m = ExchangeStateMachine(clientVersion: .http1_0, clientKeepAlive: true)
        let h = try #require(head(of: m.upstreamHead(status: 200, headers: noLength)))
        #expect(h.version == .http1_0)
        #expect(fieldList(h.headers) == ["Content-Type: video/mp4"])
        #expect(m.upstreamBody(ByteBuffer(bytes: [9])) == .writeBody(ByteBuffer(bytes: [9])))
        #expect(m.upstreamEnd() == .writeEnd(close: true))
    }

    @Test func http10ClientWithoutKeepAliveIsClosed() throws {
        var m = ExchangeStateMachine(clientVersion: .http1_0, clientKeepAlive: false)
        let h = try #require(head(of: m.upstreamHead(status: 200, headers: upstreamHeaders)))
        #expect(fieldList(h.headers) == fieldList(upstreamHeaders))
        #expect(m.upstreamEnd() == .writeEnd(close: true))
    }

    @Test func bodyBeforeHeadIsIgnored() {
        var m = ExchangeStateMachine(clientVersion: .http1_1, clientKeepAlive: true)
        #expect(m.upstreamBody(ByteBuffer(bytes: [1])) == .none)
        #expect(m.state == .awaitingHead)
    }

    @Test func endBeforeHeadAnswersBadGateway() {
        var m = ExchangeStateMachine(clientVersion: .http1_1, clientKeepAlive: true)
        guard case .respondWithError(let status, let message) = m.upstreamEnd() else {
            Issue.record("expected respondWithError")
            return
        }
        #expect(status == .badGateway)
        #expect(message.contains("before its head"))
        #expect(m.state == .finished)
    }

    @Test func clientCloseMidBodyCancelsWithTheBytesTheSocketAccepted() {
        var m = ExchangeStateMachine(clientVersion: .http1_1, clientKeepAlive: true)
        _ = m.upstreamHead(status: 206, headers: upstreamHeaders)
        let first = ByteBuffer(repeating: 1, count: 1000)
        let second = ByteBuffer(repeating: 2, count: 700)
        #expect(m.upstreamBody(first) == .writeBody(first))
        #expect(m.upstreamBody(second) == .writeBody(second))
        #expect(m.writeCompleted(1000, written: true, windowDrained: false) == .none)
        #expect(m.bytesDelivered == 1000)
        #expect(m.clientClosed() == .cancelUpstream(delivered: 1000))
        #expect(m.state == .clientGone)
        // Everything after the cancel is ignored.
        #expect(m.writeCompleted(700, written: false, windowDrained: true) == .none)
        #expect(m.upstreamBody(ByteBuffer(bytes: [3])) == .none)
        #expect(m.upstreamEnd() == .none)
        #expect(m.upstreamFailed(message: "aborted") == .none)
        #expect(m.clientClosed() == .none)
        #expect(m.upstreamHead(status: 200, headers: upstreamHeaders) == .none)
    }

    @Test func failedWritesAreNotCountedAsDelivered() {
        var m = ExchangeStateMachine(clientVersion: .http1_1, clientKeepAlive: true)
        _ = m.upstreamHead(status: 200, headers: upstreamHeaders)
        _ = m.upstreamBody(ByteBuffer(repeating: 0, count: 10))
        _ = m.upstreamBody(ByteBuffer(repeating: 0, count: 20))
        #expect(m.writeCompleted(10, written: true, windowDrained: false) == .none)
        #expect(m.writeCompleted(20, written: false, windowDrained: false) == .none)
        #expect(m.clientClosed() == .cancelUpstream(delivered: 10))
    }

    @Test func clientCloseBeforeHeadCancelsWithNothingDelivered() {
        var m = ExchangeStateMachine(clientVersion: .http1_1, clientKeepAlive: true)
        #expect(m.clientClosed() == .cancelUpstream(delivered: 0))
        #expect(m.upstreamHead(status: 200, headers: upstreamHeaders) == .none)
    }

    @Test func upstreamFailureAfterPartialBodyClosesTheConnection() {
        var m = ExchangeStateMachine(clientVersion: .http1_1, clientKeepAlive: true)
        _ = m.upstreamHead(status: 200, headers: upstreamHeaders)
        _ = m.upstreamBody(ByteBuffer(repeating: 0, count: 50))
        #expect(m.upstreamFailed(message: "upstream failed: reset (curl error 56)") == .closeConnection)
        #expect(m.state == .finished)
        #expect(m.upstreamEnd() == .none)
        #expect(m.clientClosed() == .none)
    }

    @Test func upstreamFailureBeforeHeadAnswersBadGatewayWithTheMessage() {
        var m = ExchangeStateMachine(clientVersion: .http1_1, clientKeepAlive: true)
        let message = "upstream failed: Connection refused (curl error 7)"
        #expect(m.upstreamFailed(message: message) == .respondWithError(.badGateway, message: message))
        #expect(m.state == .finished)
        #expect(m.upstreamHead(status: 200, headers: upstreamHeaders) == .none)
    }

    @Test func pauseAndResumeFollowFlowControl() {
        let flow = FlowControl(highWater: 100, lowWater: 40)
        var m = ExchangeStateMachine(clientVersion: .http1_1, clientKeepAlive: true)
        _ = m.upstreamHead(status: 200, headers: upstreamHeaders)

        // Upstream side: admit 30-byte chunks until the window is full.
        var admitted: [Int] = []
        while flow.admit(30) {
            admitted.append(30)
            #expect(m.upstreamBody(ByteBuffer(repeating: 0, count: 30)) == .writeBody(ByteBuffer(repeating: 0, count: 30)))
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
        _ = m.upstreamHead(status: 200, headers: upstreamHeaders)
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
