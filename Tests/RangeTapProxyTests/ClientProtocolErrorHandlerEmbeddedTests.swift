import NIOCore
import NIOEmbedded
import NIOHTTP1
@testable import RangeTapProxy
import RangeTapTestSupport
import Testing

/// `ClientProtocolErrorHandler` behind NIO's HTTP/1.1 decoder on an `EmbeddedChannel`: what a
/// client that sent bytes the decoder refused gets written back, and what the proxy is told.
@Suite struct ClientProtocolErrorHandlerEmbeddedTests {
    /// Encoder, decoder, the handler under test, and a recorder of what passes it.
    private func channel() throws -> (EmbeddedChannel, EmbeddedInboundRecorder) {
        let channel = EmbeddedChannel()
        let recorder = EmbeddedInboundRecorder()
        let sync = channel.pipeline.syncOperations
        try sync.addHandler(HTTPResponseEncoder())
        try sync.addHandler(ByteToMessageHandler(HTTPRequestDecoder(leftOverBytesStrategy: .forwardBytes)))
        try sync.addHandler(ClientProtocolErrorHandler())
        try sync.addHandler(recorder)
        return (channel, recorder)
    }

    private func send(_ text: String, to channel: EmbeddedChannel) {
        // The decoder's error reaches the recorder; writeInbound itself may still rethrow it.
        _ = try? channel.writeInbound(ByteBuffer(string: text))
    }

    @Test func aRequestThatParsesPassesUnchanged() throws {
        let (channel, recorder) = try channel()
        send("POST /up HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\n\r\nabc", to: channel)
        guard case .head(let head)? = try channel.readInbound(as: HTTPServerRequestPart.self) else {
            Issue.record("no head")
            return
        }
        #expect(head.uri == "/up")
        guard case .body(let body)? = try channel.readInbound(as: HTTPServerRequestPart.self) else {
            Issue.record("no body")
            return
        }
        #expect(String(buffer: body) == "abc")
        guard case .end? = try channel.readInbound(as: HTTPServerRequestPart.self) else {
            Issue.record("no end")
            return
        }
        #expect(try channel.writtenText().isEmpty)
        #expect(recorder.errors.isEmpty)
        _ = try? channel.finish()
    }

    @Test func aHeadTooLargeGets431WithItsReason() throws {
        let (channel, recorder) = try channel()
        send("GET / HTTP/1.1\r\nHost: a\r\nX-Big: " + String(repeating: "a", count: 100_000) + "\r\n\r\n", to: channel)
        let reply = try channel.writtenText()
        let body = "rangetap: \(ClientRequestError.headTooLarge)\n"
        #expect(
            reply
                == "HTTP/1.1 431 Request Header Fields Too Large\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n"
                + body)
        #expect(
            recorder.errors.map { $0 as? HTTPParserError } == [.headerOverflow], "the error goes on to ProxyHandler")
        _ = try? channel.finish()
    }

    @Test(arguments: [
        "GET / HTTP/7.3\r\nHost: a\r\n\r\n",
        "GET / HTTP/1.1\r\nBad Name: x\r\n\r\n",
        "GET / HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n",
        "\u{1}\u{2}\u{3} / HTTP/1.1\r\n\r\n",
    ])
    func everyRefusedRequestGetsA400SayingWhy(request: String) throws {
        let (channel, recorder) = try channel()
        send(request, to: channel)
        let error = try #require(recorder.errors.first)
        let problem = try #require(ClientRequestError.describing(error), "\(error)")
        let reply = try channel.writtenText()
        let body = "rangetap: \(problem)\n"
        #expect(reply.hasPrefix("HTTP/1.1 \(problem.status.code) "), "\(reply)")
        #expect(reply.contains("\r\nContent-Length: \(body.utf8.count)\r\n"))
        #expect(reply.contains("\r\nConnection: close\r\n"))
        #expect(reply.hasSuffix("\r\n\r\n" + body), "\(reply)")
        _ = try? channel.finish()
    }

    @Test func aClientLeavingMidBodyIsNotABadRequest() throws {
        let (channel, recorder) = try channel()
        send("POST /up HTTP/1.1\r\nHost: a\r\nContent-Length: 10\r\n\r\nabc", to: channel)
        channel.pipeline.fireChannelInactive()
        let left = try #require(
            recorder.errors.compactMap { $0 as? ClientLeftMidRequest }.first, "\(String(describing: recorder.errors))")
        #expect(left == ClientLeftMidRequest(declared: 10, chunked: false, received: 3, afterHead: true))
        #expect(left.description.contains("(3 of 10 bytes received)"))
        #expect(try channel.writtenText().isEmpty, "nothing is answered to a client that left")
        _ = try? channel.finish()
    }

    @Test func aClientLeavingMidHeadIsNotABadRequest() throws {
        let (channel, recorder) = try channel()
        send("GET /a HTTP/1.1\r\nHo", to: channel)
        channel.pipeline.fireChannelInactive()
        let left = try #require(
            recorder.errors.compactMap { $0 as? ClientLeftMidRequest }.first, "\(String(describing: recorder.errors))")
        #expect(!left.afterHead)
        #expect(
            left.description
                == "the client closed the connection in the middle of a request head; nothing was forwarded")
        #expect(try channel.writtenText().isEmpty)
        _ = try? channel.finish()
    }

    @Test func noErrorResponseInsideAResponseAlreadyStarted() throws {
        let (channel, recorder) = try channel()
        send("GET /a HTTP/1.1\r\nHost: a\r\n\r\n", to: channel)
        let head = HTTPResponseHead(version: .http1_1, status: .ok, headers: ["Content-Length": "10"])
        try channel.writeOutbound(HTTPServerResponsePart.head(head))
        let started = try channel.writtenText()
        #expect(started.hasPrefix("HTTP/1.1 200 OK\r\n"))
        send("\u{1}\u{2}\u{3} / HTTP/1.1\r\n\r\n", to: channel)
        #expect(recorder.errors.count == 1, "the error is still passed on")
        #expect(try channel.writtenText().isEmpty, "a 400 in the middle of a body would corrupt it")
        _ = try? channel.finish()
    }
}
