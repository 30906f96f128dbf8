import NIOCore
import NIOEmbedded
import NIOHPACK
import NIOHTTP2
import RangeTapCore
@testable import RangeTapProxy
import Testing

/// `H2StreamHandler` in the pipeline ProxyServer builds for h2c with prior knowledge, on an
/// `EmbeddedChannel`, talking to NIO's own HTTP/2 client on another: every frame the client
/// gets, for an exchange whose upstream half is scripted (``ScriptedUpstream``). The stream's
/// end is the state machine's: the DATA frame of the last declared byte carries END_STREAM, and
/// what an origin sends past it never reaches the client.
@Suite struct H2StreamHandlerEmbeddedTests {
    let upstream = ScriptedUpstream()
    let log = CaptureLog()
    let server = EmbeddedChannel()
    let client = EmbeddedChannel()
    let multiplexer: HTTP2StreamMultiplexer

    /// Frames one client stream received, in order.
    final class Frames: ChannelInboundHandler, @unchecked Sendable {
        typealias InboundIn = HTTP2Frame.FramePayload
        var all: [HTTP2Frame.FramePayload] = []
        func channelRead(context: ChannelHandlerContext, data: NIOAny) { all.append(unwrapInboundIn(data)) }

        /// The DATA frames' bytes, and whether the last of all frames ended the stream.
        var data: [UInt8] {
            all.flatMap { frame -> [UInt8] in
                guard case .data(let d) = frame, case .byteBuffer(let b) = d.data else { return [] }
                return Array(b.readableBytesView)
            }
        }

        var endedStream: Bool {
            switch all.last {
            case .data(let d)?: d.endStream
            case .headers(let h)?: h.endStream
            default: false
            }
        }

        var status: String? {
            for case .headers(let h) in all { if let s = h.headers.first(name: ":status") { return s } }
            return nil
        }
    }

    init() throws {
        let shared = RecordingContext(
            configuration: ProxyConfiguration(listenPort: 0, capturePath: "/dev/null"), writer: log,
            clock: ManualClock(), upstream: upstream, intercept: nil)
        try ProxyServer.addClientHandlers(to: server, context: shared)
        try server.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 40000)).wait()
        multiplexer = HTTP2StreamMultiplexer(mode: .client, channel: client, inboundStreamInitializer: nil)
        try client.pipeline.syncOperations.addHandler(NIOHTTP2Handler(mode: .client))
        try client.pipeline.syncOperations.addHandler(multiplexer)
        try client.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 8080)).wait()
        try interact()
    }

    /// Moves bytes both ways until neither side has any to send.
    func interact() throws {
        for _ in 0..<100 {
            var moved = false
            while let bytes = try client.readOutbound(as: IOData.self) {
                guard case .byteBuffer(let b) = bytes else { continue }
                try server.writeInbound(b)
                moved = true
            }
            server.embeddedEventLoop.run()
            while let bytes = try server.readOutbound(as: IOData.self) {
                guard case .byteBuffer(let b) = bytes else { continue }
                try client.writeInbound(b)
                moved = true
            }
            client.embeddedEventLoop.run()
            if !moved { return }
        }
        Issue.record("the two sides never went quiet")
    }

    /// Opens a stream asking for `path` with `fields`, the request ended.
    func request(_ path: String, _ fields: HPACKHeaders = [:]) throws -> (any Channel, Frames) {
        let frames = Frames()
        let promise = client.eventLoop.makePromise(of: (any Channel).self)
        multiplexer.createStreamChannel(promise: promise) { $0.pipeline.addHandler(frames) }
        client.embeddedEventLoop.run()
        let stream = try promise.futureResult.wait()
        var headers: HPACKHeaders = [":method": "GET", ":scheme": "http", ":authority": "origin.test", ":path": path]
        headers.add(contentsOf: fields)
        stream.writeAndFlush(HTTP2Frame.FramePayload.headers(.init(headers: headers, endStream: true)), promise: nil)
        client.embeddedEventLoop.run()
        try interact()
        return (stream, frames)
    }

    @Test func theLastDeclaredByteEndsTheStreamAndTheOriginsExcessNeverReachesTheClient() throws {
        let (_, frames) = try request("/a", ["range": "bytes=0-4"])
        let t = try #require(upstream.transfers.first)
        #expect(t.request?.url == "http://origin.test/a")
        t.head("HTTP/1.1 206 Partial Content", ["Content-Range: bytes 0-4/10", "Content-Length: 5"])
        t.body("hel")
        try interact()
        #expect(!frames.endedStream)
        t.body("lo!!")  // two bytes past what the head declared
        try interact()
        #expect(frames.status == "206")
        #expect(frames.data == Array("hello".utf8))
        #expect(frames.endedStream, "END_STREAM rides on the frame of the last declared byte")
        let framesAtEnd = frames.all.count
        t.end(t: 4)
        try interact()
        #expect(frames.all.count == framesAtEnd, "no frame after the stream ended")
        #expect(
            log.settled == [.end(EndEvent(t: 4, exchange: 1, bytes: 7, sha256: "", delivered: 5, deliveredBy: .writes))]
        )
    }

    @Test func aResetStreamAbortsTheUpstreamAndIsACancel() throws {
        let (stream, frames) = try request("/big")
        let t = try #require(upstream.transfers.first)
        t.head("HTTP/1.1 200 OK", ["Content-Length: 1000"])
        t.body(Array(repeating: 7, count: 100))
        try interact()
        #expect(frames.data.count == 100)
        stream.writeAndFlush(HTTP2Frame.FramePayload.rstStream(.cancel), promise: nil)
        client.embeddedEventLoop.run()
        try interact()
        #expect(t.aborted, "RST_STREAM aborts the stream's upstream transfer at once")
        #expect(log.settled.isEmpty)
        t.stoppedAfterAbort(t: 5)
        try interact()
        guard case .cancel(let cancel)? = log.settled.first else {
            Issue.record("expected a cancel, got \(log.settled)")
            return
        }
        #expect(cancel.received == 100 && cancel.exchange == 1)
        #expect(server.isActive, "a reset stream leaves the connection to the other streams")
    }

    @Test func aFailureAfterTheHeadResetsOnlyThatStream() throws {
        let (_, frames) = try request("/f")
        let t = try #require(upstream.transfers.first)
        t.head("HTTP/1.1 200 OK", ["Content-Length: 100"])
        t.body("0123456789")
        t.fail(code: 56, message: "Connection reset by peer", headReceived: true)
        try interact()
        #expect(frames.data == Array("0123456789".utf8))
        guard case .rstStream? = frames.all.last else {
            Issue.record("expected the stream reset, got \(frames.all)")
            return
        }
        guard case .error(let e)? = log.settled.first else {
            Issue.record("expected an error, got \(log.settled)")
            return
        }
        #expect(e.curlCode == 56 && e.received == 10)
        #expect(server.isActive)
        // The connection serves the next stream.
        let (_, next) = try request("/ok")
        let good = try #require(upstream.transfers.last)
        good.head("HTTP/1.1 200 OK", ["Content-Length: 2"])
        good.body("ok")
        good.end()
        try interact()
        #expect(next.status == "200" && next.data == Array("ok".utf8) && next.endedStream)
    }
}
