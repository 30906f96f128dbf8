import NIOCore

/// First handler of a client pipeline: counts bytes written to the socket into a
/// ``ClientWire``, and reads the acknowledged bytes when the client's close or reset is seen, while the socket
/// is still open.
///
/// The channel runs with `allowRemoteHalfClosure` so that an EOF arrives here as
/// `ChannelEvent.inputClosed` instead of an immediate close; this handler then closes the
/// channel, as NIO would have, so clients see no difference.
final class ClientWireHandler: ChannelDuplexHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    typealias OutboundIn = IOData
    typealias OutboundOut = IOData

    let wire: ClientWire

    init(wire: ClientWire) {
        self.wire = wire
    }

    func channelActive(context: ChannelHandlerContext) {
        wire.hold(context.channel)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        wire.release()
        context.fireChannelInactive()
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        wire.release()
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .byteBuffer(let b): wire.wrote(b.readableBytes)
        case .fileRegion(let f): wire.wrote(f.readableBytes)
        }
        context.write(data, promise: promise)
    }

    func flush(context: ChannelHandlerContext) {
        // Without a held descriptor, a reading before every flush: when the client's reset is
        // already here the write fails and NIO closes the socket with no read or event to hook,
        // and this reading is the last word on what the client acknowledged.
        if !wire.holdsDescriptor { wire.refresh(context.channel) }
        context.flush()
    }

    func close(context: ChannelHandlerContext, mode: CloseMode, promise: EventLoopPromise<Void>?) {
        // rangetap closes (after a last response, or shutting down): the last reading first.
        if mode == .all { wire.refresh(context.channel, atClose: true) }
        context.close(mode: mode, promise: promise)
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let e = event as? ChannelEvent, e == .inputClosed {
            wire.refresh(context.channel, atClose: true)
            context.close(promise: nil)
            return
        }
        context.fireUserInboundEventTriggered(event)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // A reset seen on a read: NIO closes the socket right after this.
        wire.refresh(context.channel, atClose: true)
        context.fireErrorCaught(error)
    }
}

@available(*, unavailable)
extension ClientWireHandler: Sendable {}
