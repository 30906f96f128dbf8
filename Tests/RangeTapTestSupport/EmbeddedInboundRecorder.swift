import NIOCore
import NIOEmbedded

/// Last handler of an `EmbeddedChannel` pipeline under test: keeps the errors and user events
/// that reach it (so they do not end at the pipeline's tail, where `EmbeddedChannel` would
/// rethrow them) and passes reads on, to be taken with `readInbound`.
public final class EmbeddedInboundRecorder: ChannelInboundHandler {
    public typealias InboundIn = NIOAny

    public init() {}

    /// Errors fired down the pipeline, in order.
    public private(set) var errors: [any Error] = []
    /// User inbound events, in order.
    public private(set) var events: [Any] = []

    public func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        context.fireChannelRead(data)
    }

    public func errorCaught(context: ChannelHandlerContext, error: any Error) {
        errors.append(error)
    }

    public func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        events.append(event)
    }
}

@available(*, unavailable)
extension EmbeddedInboundRecorder: Sendable {}

extension EmbeddedChannel {
    /// Everything written to the socket so far, as Latin-1 text, in order.
    public func writtenText() throws -> String {
        var text = ""
        while var buffer = try readOutbound(as: ByteBuffer.self) {
            text += String(buffer.readBytes(length: buffer.readableBytes)!.map { Character(Unicode.Scalar($0)) })
        }
        return text
    }
}
