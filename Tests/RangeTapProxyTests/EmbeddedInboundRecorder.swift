import NIOCore
import NIOEmbedded

/// Last handler of an `EmbeddedChannel` pipeline under test: keeps the errors and user events
/// that reach it (so they do not end at the pipeline's tail, where `EmbeddedChannel` would
/// rethrow them) and passes reads on, to be taken with `readInbound`.
final class EmbeddedInboundRecorder: ChannelInboundHandler {
    typealias InboundIn = NIOAny

    /// Errors fired down the pipeline, in order.
    private(set) var errors: [any Error] = []
    /// User inbound events, in order.
    private(set) var events: [Any] = []

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        context.fireChannelRead(data)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        errors.append(error)
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        events.append(event)
    }
}

@available(*, unavailable)
extension EmbeddedInboundRecorder: Sendable {}

extension EmbeddedChannel {
    /// Everything written to the socket so far, as Latin-1 text, in order.
    func writtenText() throws -> String {
        var text = ""
        while var buffer = try readOutbound(as: ByteBuffer.self) {
            text += String(buffer.readBytes(length: buffer.readableBytes)!.map { Character(Unicode.Scalar($0)) })
        }
        return text
    }
}
