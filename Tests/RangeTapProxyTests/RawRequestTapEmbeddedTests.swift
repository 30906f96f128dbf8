import NIOCore
import NIOEmbedded
@testable import RangeTapProxy
import RangeTapTestSupport
import Testing

/// `RawRequestTap` alone on an `EmbeddedChannel`: it keeps each request head as received, hands
/// on a head NIO's decoder accepts, passes body bytes untouched, and answers a head that does
/// not complete in time with a 408.
@Suite struct RawRequestTapEmbeddedTests {
    private func channel(
        headTimeout: TimeAmount? = nil
    ) throws -> (EmbeddedChannel, RawRequestHeads, EmbeddedInboundRecorder) {
        let heads = RawRequestHeads()
        let recorder = EmbeddedInboundRecorder()
        let channel = EmbeddedChannel()
        try channel.pipeline.syncOperations.addHandler(RawRequestTap(heads: heads, headTimeout: headTimeout))
        try channel.pipeline.syncOperations.addHandler(recorder)
        return (channel, heads, recorder)
    }

    /// Everything handed on to the decoder so far, as Latin-1 text.
    private func handedOn(_ channel: EmbeddedChannel) throws -> String {
        var text = ""
        while var b = try channel.readInbound(as: ByteBuffer.self) {
            text += String(b.readBytes(length: b.readableBytes)!.map { Character(Unicode.Scalar($0)) })
        }
        return text
    }

    private func latin1(_ bytes: [UInt8]?) -> String? {
        bytes.map { String($0.map { Character(Unicode.Scalar($0)) }) }
    }

    @Test func aBareLFHeadIsKeptAsSentAndHandedOnWithCRLF() throws {
        let (channel, heads, _) = try channel()
        let raw = "GET /a HTTP/1.1\nHost: example\nX-Folded: one\n two\n\n"
        try channel.writeInbound(ByteBuffer(string: raw))
        #expect(try handedOn(channel) == "GET /a HTTP/1.1\r\nHost: example\r\nX-Folded: one two\r\n\r\n")
        #expect(latin1(heads.take()) == raw)
        #expect(heads.take() == nil)
        _ = try? channel.finish()
    }

    @Test func headsSplitAcrossReadsAndBodiesPassUnchanged() throws {
        let (channel, heads, _) = try channel()
        let first = "POST /up HTTP/1.1\r\nHost: a\r\nContent-Length: 6\r\n\r\n"
        let second = "GET /b HTTP/1.1\r\nHost: a\r\n\r\n"
        for piece in ["POST /up HTTP/1.1\r\nHo", "st: a\r\nContent-Length: 6\r\n\r\nabc", "def" + second] {
            try channel.writeInbound(ByteBuffer(string: piece))
        }
        #expect(try handedOn(channel) == first + "abcdef" + second)
        #expect(latin1(heads.take()) == first)
        #expect(latin1(heads.take()) == second)
        #expect(heads.take() == nil)

        // Body bytes alone go on as the very buffer that came in.
        let (bodyChannel, _, _) = try self.channel()
        try bodyChannel.writeInbound(ByteBuffer(string: "PUT /c HTTP/1.1\r\nContent-Length: 4\r\n\r\n"))
        _ = try handedOn(bodyChannel)
        try bodyChannel.writeInbound(ByteBuffer(string: "wxyz"))
        #expect(try handedOn(bodyChannel) == "wxyz")
        _ = try? channel.finish()
        _ = try? bodyChannel.finish()
    }

    @Test func aHeadThatDoesNotCompleteInTimeGets408() throws {
        let (channel, heads, recorder) = try channel(headTimeout: .seconds(2))
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 1)).wait()
        try channel.writeInbound(ByteBuffer(string: "GET /slow HTTP/1.1\r\nHost: a\r\n"))
        channel.embeddedEventLoop.advanceTime(by: .milliseconds(1999))
        #expect(try channel.writtenText().isEmpty)
        #expect(channel.isActive)
        channel.embeddedEventLoop.advanceTime(by: .milliseconds(1))
        let reply = try channel.writtenText()
        #expect(reply.hasPrefix("HTTP/1.1 408 Request Timeout\r\n"), "\(reply)")
        let headEnd = try #require(reply.range(of: "\r\n\r\n"))
        let body = reply[headEnd.upperBound...]
        #expect(reply.contains("Content-Length: \(body.utf8.count)\r\n"), "\(reply)")
        #expect(body.contains("within 2.0 s (--head-timeout)"), "\(body)")
        let event = try #require(recorder.events.first as? HeadTimeout)
        #expect("rangetap: " + event.message + "\n" == body)
        #expect(!channel.isActive, "the connection closes after the 408")
        #expect(heads.take() == nil, "no head was whole")
    }

    @Test func aHeadCompletedInTimeStopsTheTimer() throws {
        let (channel, heads, recorder) = try channel(headTimeout: .seconds(2))
        try channel.writeInbound(ByteBuffer(string: "GET /ok HTTP/1.1\r\n"))
        channel.embeddedEventLoop.advanceTime(by: .seconds(1))
        try channel.writeInbound(ByteBuffer(string: "Host: a\r\n\r\n"))
        channel.embeddedEventLoop.advanceTime(by: .seconds(5))
        #expect(try channel.writtenText().isEmpty)
        #expect(recorder.events.isEmpty)
        #expect(latin1(heads.take()) == "GET /ok HTTP/1.1\r\nHost: a\r\n\r\n")
        _ = try? channel.finish()
    }
}
