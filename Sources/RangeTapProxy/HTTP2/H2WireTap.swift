import NIOCore

/// Sits right below `NIOHTTP2Handler` (toward the socket) and tells the connection's
/// ``H2FrameLedger`` how many plaintext bytes each write carries and when each flush has ended,
/// so DATA frames are placed on the socket's byte count. Passes everything on unchanged. Event
/// loop only.
final class H2WireTap: ChannelOutboundHandler, RemovableChannelHandler {
    typealias OutboundIn = IOData
    typealias OutboundOut = IOData

    private let ledger: H2FrameLedger

    init(ledger: H2FrameLedger) {
        self.ledger = ledger
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        ledger.wrote(unwrapOutboundIn(data).readableBytes)
        context.write(data, promise: promise)
    }

    func flush(context: ChannelHandlerContext) {
        context.flush()
        ledger.flushed()
    }
}

@available(*, unavailable)
extension H2WireTap: Sendable {}
