import NIOCore
import NIOHTTP1
import NIOPosix

/// The endpoint `rangetap shape` talks to: HTTP/1.1 on a Unix socket at
/// ``ControlToken/socketPath(port:)``, in a directory only this user can enter (mode 0700). A
/// request through the proxy can never reach it: it is not a TCP port the proxy could be asked
/// to forward to, nor a host the proxy answers for (on the proxy `rangetap.invalid` is only the
/// CA page). Each request is answered by ``LinkControlRequest/answer(_:context:)``, which still
/// wants the run's token.
enum ControlListener {
    /// Binds the socket of the run listening on `port` (a stale socket file of an earlier run on
    /// that port is replaced) and serves it on `group`.
    static func bind(
        port: Int, group: any EventLoopGroup, context: RecordingContext
    ) async throws -> any Channel {
        try await ServerBootstrap(group: group)
            .childChannelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.configureHTTPServerPipeline(withErrorHandling: true)
                    try channel.pipeline.syncOperations.addHandler(ControlHandler(shared: context))
                }
            }
            .bind(unixDomainSocketPath: ControlToken.socketPath(port: port), cleanupExistingSocketFile: true)
            .get()
    }
}

/// One control connection: each request's answer, then the close.
final class ControlHandler: ChannelInboundHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private let shared: RecordingContext
    private var head: HTTPRequestHead?

    init(shared: RecordingContext) {
        self.shared = shared
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head): self.head = head
        case .body: break
        case .end:
            guard let head else { return }
            self.head = nil
            guard let (status, text) = LinkControlRequest.answer(head, context: shared) else {
                context.close(promise: nil)
                return
            }
            var body = context.channel.allocator.buffer(capacity: text.utf8.count)
            body.writeString(text)
            var headers = HTTPHeaders()
            headers.add(name: "Content-Type", value: "text/plain; charset=utf-8")
            headers.add(name: "Content-Length", value: String(body.readableBytes))
            headers.add(name: "Connection", value: "close")
            context.write(
                wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: status, headers: headers))),
                promise: nil)
            context.write(wrapOutboundOut(.body(.byteBuffer(body))), promise: nil)
            let channel = context.channel
            context.writeAndFlush(wrapOutboundOut(.end(nil))).whenComplete { _ in channel.close(promise: nil) }
        }
    }
}
