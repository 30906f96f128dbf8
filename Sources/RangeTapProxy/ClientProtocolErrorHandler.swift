import NIOCore
import NIOHTTP1

/// Answers a request the HTTP/1.1 decoder could not parse with a 400 (431 for a head too large)
/// whose plain-text body says what was wrong (``ClientRequestError``), then passes the error on
/// so ``ProxyHandler`` records it and closes. A drop-in replacement for NIO's
/// `HTTPServerProtocolErrorHandler`, which answers with an empty body.
final class ClientProtocolErrorHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    /// A response head was written and its end was not yet: no error response can be sent.
    private var responseInProgress = false

    init() {}

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        guard let problem = ClientRequestError.describing(error) else {
            context.fireErrorCaught(error)
            return
        }
        // ByteToMessageHandler closes the channel right after this returns: write now.
        if !responseInProgress {
            var body = context.channel.allocator.buffer(capacity: 256)
            body.writeString("rangetap: \(problem)\n")
            let headers = HTTPHeaders([
                ("Content-Type", "text/plain; charset=utf-8"),
                ("Content-Length", String(body.readableBytes)),
                ("Connection", "close"),
            ])
            context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: problem.status, headers: headers))), promise: nil)
            context.write(wrapOutboundOut(.body(.byteBuffer(body))), promise: nil)
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        }
        context.fireErrorCaught(error)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head(let head) where head.status.code / 100 != 1: responseInProgress = true
        case .end: responseInProgress = false
        default: break
        }
        context.write(data, promise: promise)
    }
}

@available(*, unavailable)
extension ClientProtocolErrorHandler: Sendable {}
