import NIOCore
import NIOEmbedded
import NIOHTTP1
@testable import RangeTapProxy
import RangeTapCore
import RangeTapTestSupport
import Testing

/// `ClientResponseEncoder` alone on an `EmbeddedChannel`: a proxied head goes out as the bytes
/// `ClientHeadSlot` holds, the proxy's own heads are serialized, and bodies are framed as the
/// head said.
@Suite struct ClientResponseEncoderEmbeddedTests {
    private func channel() -> (EmbeddedChannel, ClientHeadSlot) {
        let slot = ClientHeadSlot()
        return (EmbeddedChannel(handler: ClientResponseEncoder(slot: slot)), slot)
    }

    private func head(_ text: String, framing: ClientFraming) -> ClientHead {
        let status = Int(text.split(separator: " ")[1])!
        return ClientHead(status: status, bytes: Latin1.bytes(text), framing: framing, changes: [])
    }

    /// A head the proxy builds itself; the slot is empty, so it is serialized.
    private func ownHead(
        _ status: HTTPResponseStatus, _ headers: HTTPHeaders = [:], version: HTTPVersion = .http1_1
    ) -> HTTPServerResponsePart {
        .head(HTTPResponseHead(version: version, status: status, headers: headers))
    }

    private func body(_ text: String) -> HTTPServerResponsePart {
        .body(.byteBuffer(ByteBuffer(string: text)))
    }

    @Test func aProxiedHeadGoesOutByteForByte() throws {
        let (channel, slot) = channel()
        let raw = "HTTP/1.1 200 OK\r\ncontent-length: 5\r\nX-Odd:   spaced  \r\n\r\n"
        slot.next = head(raw, framing: .contentLength)
        try channel.writeOutbound(ownHead(.ok, ["Content-Length": "5"]))
        try channel.writeOutbound(body("hello"))
        try channel.writeOutbound(HTTPServerResponsePart.end(nil))
        #expect(try channel.writtenText() == raw + "hello")
        #expect(slot.next == nil, "the slot's head is used once")
        _ = try? channel.finish()
    }

    @Test func aChunkedBodyGetsOneChunkPerWriteAndTheTrailers() throws {
        let (channel, slot) = channel()
        let raw = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
        slot.next = head(raw, framing: .chunked)
        try channel.writeOutbound(ownHead(.ok))
        try channel.writeOutbound(body("hello"))
        try channel.writeOutbound(body(""))
        try channel.writeOutbound(body(String(repeating: "x", count: 300)))
        slot.trailers = ["X-Checksum: 42\r\n"]
        try channel.writeOutbound(HTTPServerResponsePart.end(nil))
        #expect(
            try channel.writtenText() == raw + "5\r\nhello\r\n" + "12c\r\n" + String(repeating: "x", count: 300)
                + "\r\n" + "0\r\nX-Checksum: 42\r\n\r\n")
        #expect(slot.trailers.isEmpty)
        _ = try? channel.finish()
    }

    @Test func anInterimHeadKeepsTheFramingOfTheFinalOne() throws {
        let (channel, slot) = channel()
        let early = "HTTP/1.1 103 Early Hints\r\nLink: </a.css>; rel=preload\r\n\r\n"
        let final = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
        slot.next = head(early, framing: .noBody)
        try channel.writeOutbound(ownHead(.init(statusCode: 103)))
        slot.next = head(final, framing: .chunked)
        try channel.writeOutbound(ownHead(.ok))
        try channel.writeOutbound(body("abc"))
        try channel.writeOutbound(HTTPServerResponsePart.end(nil))
        #expect(try channel.writtenText() == early + final + "3\r\nabc\r\n0\r\n\r\n")
        _ = try? channel.finish()
    }

    @Test func theProxysOwnHeadsAreSerializedWithTheirFraming() throws {
        let (channel, _) = channel()
        try channel.writeOutbound(ownHead(.badGateway, ["Content-Length": "3", "Connection": "close"]))
        try channel.writeOutbound(body("bad"))
        try channel.writeOutbound(HTTPServerResponsePart.end(nil))
        #expect(
            try channel.writtenText() == "HTTP/1.1 502 Bad Gateway\r\nContent-Length: 3\r\nConnection: close\r\n\r\nbad"
        )

        // HTTP/1.1 without a length: chunked is added.
        try channel.writeOutbound(ownHead(.ok))
        try channel.writeOutbound(body("hi"))
        try channel.writeOutbound(HTTPServerResponsePart.end(nil))
        #expect(
            try channel.writtenText() == "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nhi\r\n0\r\n\r\n")

        // HTTP/1.0 without a length: the body ends with the connection, bytes as they are.
        try channel.writeOutbound(ownHead(.ok, version: .http1_0))
        try channel.writeOutbound(body("raw"))
        try channel.writeOutbound(HTTPServerResponsePart.end(nil))
        #expect(try channel.writtenText() == "HTTP/1.0 200 OK\r\n\r\nraw")

        // 204: no body whatever is written.
        try channel.writeOutbound(ownHead(.noContent))
        try channel.writeOutbound(body("ignored"))
        try channel.writeOutbound(HTTPServerResponsePart.end(nil))
        #expect(try channel.writtenText() == "HTTP/1.1 204 No Content\r\n\r\n")
        _ = try? channel.finish()
    }

    @Test func aBodyWithoutBytesOnTheWireStillCompletesItsPromise() throws {
        let (channel, slot) = channel()
        slot.next = head("HTTP/1.1 304 Not Modified\r\n\r\n", framing: .noBody)
        try channel.writeOutbound(ownHead(.notModified))
        let promise = channel.eventLoop.makePromise(of: Void.self)
        channel.write(body("x"), promise: promise)
        try promise.futureResult.wait()
        #expect(try channel.writtenText() == "HTTP/1.1 304 Not Modified\r\n\r\n")
        _ = try? channel.finish()
    }
}
