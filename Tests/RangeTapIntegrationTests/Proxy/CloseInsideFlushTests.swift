import Foundation
import NIOCore
import RangeTapCore
@testable import RangeTapProxy
import RangeTapTestSupport
import Testing

/// A write that fails makes NIO close the channel from inside the flush that tried it, so the
/// client's close reaches `ProxyHandler` while it is writing a round of body bytes. What the
/// client acknowledged of that round must still count as delivered.
@Suite struct CloseInsideFlushTests {
    /// Nearest the socket: lets the first flush of a body round (64 KiB or more pending) reach the
    /// socket, then closes the channel from inside that flush, as NIO does when a write fails.
    final class CloseOnBodyFlush: ChannelOutboundHandler {
        typealias OutboundIn = IOData
        private var pending = 0
        private var done = false

        func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
            if case .byteBuffer(let b) = unwrapOutboundIn(data) { pending += b.readableBytes }
            context.write(data, promise: promise)
        }

        func flush(context: ChannelHandlerContext) {
            context.flush()
            if !done && pending >= 64 * 1024 {
                done = true
                context.close(promise: nil)
            }
            pending = 0
        }
    }

    @Test(.timeLimit(.minutes(1))) func aCloseInsideABodyFlushCountsThatRoundsAcknowledgedBytes() async throws {
        let origin = try RawOrigin()
        let body = String(repeating: "0123456789abcdef", count: 300_000 / 16)
        try origin.respond("big", with: "HTTP/1.1 200 OK\r\nContent-Length: \(body.utf8.count)\r\n\r\n" + body)
        let server = try await ClientPipelineServer(
            "close-inside-flush",
            extra: { channel in
                try channel.pipeline.syncOperations.addHandler(CloseOnBodyFlush(), position: .first)
            })
        let client = try RawClient(port: server.port)
        try client.send("GET \(origin.url("big")) HTTP/1.1\r\nHost: 127.0.0.1:\(origin.port)\r\n\r\n")
        let head = try client.readHead()
        #expect(head.latin1.hasPrefix("HTTP/1.1 200"))
        let rest = try client.readToClose()
        client.close()
        #expect(
            rest.count > 0 && rest.count < body.utf8.count, "the client got \(rest.count) body bytes before the close")

        // The exchange settles once the upstream transfer has stopped.
        for _ in 0..<200 where server.multi.activeTransfers > 0 { try await Task.sleep(for: .milliseconds(10)) }
        try await server.stop()
        let capture = try RecordedCapture(path: server.path)
        let ex = try #require(capture.exchanges.first)
        #expect(ex.outcome == .cancelled)
        let delivered = try #require(ex.bytesDelivered)
        // Before the fix, the close was settled with the map as it was before this round: 0.
        #expect(
            delivered > 0,
            "delivered \(delivered) by \(String(describing: ex.deliveredBy)); the client read \(rest.count)")
        #expect(delivered <= Int64(rest.count))
    }
}
