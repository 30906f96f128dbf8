import NIOCore
import NIOHTTP2

/// Sits between `NIOHTTP2Handler` and the stream multiplexer and notes every stream-level
/// `WINDOW_UPDATE` the client sends: the bytes it granted back are the bytes its HTTP/2 layer
/// passed to the application, which is what `delivered` means for a stream.
final class H2FrameTap: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTP2Frame
    typealias InboundOut = HTTP2Frame

    private let state: H2ConnectionState

    init(state: H2ConnectionState) {
        self.state = state
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        if case .windowUpdate(let increment) = frame.payload, frame.streamID != .rootStream {
            state.granted(increment, stream: frame.streamID.number)
        }
        context.fireChannelRead(data)
    }
}

@available(*, unavailable)
extension H2FrameTap: Sendable {}
