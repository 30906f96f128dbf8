import NIOCore
import NIOHTTP2
import RangeTapCore

/// The last handler of an HTTP/2 client connection: records its close, and a protocol error
/// (which `NIOHTTP2Handler` has answered with `GOAWAY`) as a `bad-request` error.
final class H2ConnectionHandler: ChannelInboundHandler {
    typealias InboundIn = HTTP2Frame

    private let shared: RecordingContext
    private let state: H2ConnectionState

    init(shared: RecordingContext, state: H2ConnectionState) {
        self.shared = shared
        self.state = state
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        // Connection-level frames (SETTINGS, PING, GOAWAY): NIOHTTP2Handler has acted on them.
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let e = event as? ChannelEvent, e == .inputClosed {
            // The client half-closed its socket: HTTP/2 has nothing more to receive from it, and
            // the streams still open settle on the close (ClientWireHandler has read TCP_INFO).
            context.close(promise: nil)
            return
        }
        context.fireUserInboundEventTriggered(event)
    }

    func channelInactive(context: ChannelHandlerContext) {
        // ClientWireHandler, first in the pipeline, has read TCP_INFO at the close by now.
        state.connectionClosed()
        shared.writer.record(.connectionClose(ConnectionCloseEvent(t: shared.clock.now(), connection: state.connection, by: state.closedByProxy ? .proxy : .client, requests: state.requests)))
        context.fireChannelInactive()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if ProxyHandler.isHangUp(error) {
            context.close(promise: nil)
            return
        }
        if error is NIOHTTP2Errors.StreamClosed || error is NIOHTTP2Errors.NoSuchStream {
            // One stream's end, reported on the connection too: its stream handler records it.
            return
        }
        state.closedByProxy = true
        shared.writer.record(.error(ErrorEvent(t: shared.clock.now(), exchange: nil, connection: state.connection, kind: .badRequest, message: "HTTP/2 protocol error from the client: \(error)", status: nil)))
        context.close(promise: nil)
    }
}

@available(*, unavailable)
extension H2ConnectionHandler: Sendable {}
