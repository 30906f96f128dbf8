import NIOCore
import NIOHTTP2
import RangeTapCore

/// The last handler of an HTTP/2 client connection: records its close, and a protocol error
/// (which `NIOHTTP2Handler` has answered with `GOAWAY`) as a `bad-request` error; closes the
/// connection with `GOAWAY` once no stream was open for `--idle-timeout`.
final class H2ConnectionHandler: ChannelInboundHandler {
    typealias InboundIn = HTTP2Frame
    typealias OutboundOut = HTTP2Frame

    private let shared: RecordingContext
    private let state: H2ConnectionState
    /// Streams open now (created and not yet closed, as NIOHTTP2 tells).
    private var openStreams = 0
    /// The highest stream id the client opened: what `GOAWAY` says was processed.
    private var lastStream: HTTP2StreamID = .rootStream
    private var idleTimer: ActivityTimer?

    init(shared: RecordingContext, state: H2ConnectionState) {
        self.shared = shared
        self.state = state
    }

    func handlerAdded(context: ChannelHandlerContext) {
        guard let limit = shared.configuration.idleTimeout else { return }
        let timer = ActivityTimer(limit: limit, loop: context.eventLoop)
        idleTimer = timer
        let bound = NIOLoopBound(context, eventLoop: context.eventLoop)
        timer.start(
            counts: { [weak self] in self?.openStreams == 0 },
            expired: { [weak self] in self?.idleTimedOut(context: bound.value) })
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        idleTimer?.stop()
        idleTimer = nil
    }

    /// No stream was open for `--idle-timeout`: `GOAWAY` (no error) and a close, as servers
    /// close idle connections. PINGs and SETTINGS do not keep a connection open.
    private func idleTimedOut(context: ChannelHandlerContext) {
        idleTimer = nil
        guard context.channel.isActive else { return }
        state.closedByProxy = true
        let channel = context.channel
        context.writeAndFlush(
            wrapOutboundOut(
                HTTP2Frame(
                    streamID: .rootStream,
                    payload: .goAway(lastStreamID: lastStream, errorCode: .noError, opaqueData: nil)))
        ).whenComplete { _ in
            channel.close(promise: nil)
        }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        // Connection-level frames (SETTINGS, PING, GOAWAY): NIOHTTP2Handler has acted on them.
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let created = event as? NIOHTTP2StreamCreatedEvent {
            openStreams += 1
            if created.streamID > lastStream { lastStream = created.streamID }
            idleTimer?.touch()
        } else if event is StreamClosedEvent {
            openStreams = max(0, openStreams - 1)
            idleTimer?.touch()
        }
        if let e = event as? ChannelEvent, e == .inputClosed {
            // The client half-closed its socket: HTTP/2 has nothing more to receive from it, and
            // the streams still open settle on the close (ClientWireHandler has read the acknowledged bytes).
            context.close(promise: nil)
            return
        }
        context.fireUserInboundEventTriggered(event)
    }

    func channelInactive(context: ChannelHandlerContext) {
        idleTimer?.stop()
        idleTimer = nil
        // ClientWireHandler, first in the pipeline, has read the acknowledged bytes at the close by now.
        state.connectionClosed()
        shared.writer.record(
            .connectionClose(
                ConnectionCloseEvent(
                    t: shared.clock.now(), connection: state.connection, by: state.closedByProxy ? .proxy : .client,
                    requests: state.requests)))
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
        if error is any NIOHTTP2Error, !state.ledger.sentGoAway {
            // A stream error (RFC 9113 §5.4.2: a WINDOW_UPDATE of 0 on a stream, a field
            // NIOHTTP2 refuses): NIOHTTP2 has reset that stream only (a connection error comes
            // after its GOAWAY); the connection's other streams go on.
            let stream = (error as? NIOHTTP2Errors.StreamError).map { " \($0.streamID.number)" } ?? ""
            shared.writer.record(
                .error(
                    ErrorEvent(
                        t: shared.clock.now(), exchange: nil, connection: state.connection, kind: .badRequest,
                        message: "HTTP/2 stream\(stream) reset for a protocol error from the client: \(error)",
                        status: nil)))
            return
        }
        state.closedByProxy = true
        shared.writer.record(
            .error(
                ErrorEvent(
                    t: shared.clock.now(), exchange: nil, connection: state.connection, kind: .badRequest,
                    message: "HTTP/2 protocol error from the client: \(error)", status: nil)))
        context.close(promise: nil)
    }
}

@available(*, unavailable)
extension H2ConnectionHandler: Sendable {}
