import Foundation
import NIOCore
import NIOHTTP1
import RangeTapCore
import RangeTapCurl

/// One client connection: decodes requests, starts an ``Exchange`` per request and carries
/// out the ``ExchangeStateMachine``'s actions. Requests on a connection are served one at a
/// time in order (`HTTPServerPipelineHandler` holds pipelined ones back).
final class ProxyHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias OutboundOut = HTTPServerResponsePart

    private struct Pending {
        var head: HTTPRequestHead
        var t: CaptureTime
        var exchange: Int
        var url: String
        var body: ByteBuffer?
        var tooLarge = false
    }

    private struct Active {
        var exchange: Exchange
        var machine: ExchangeStateMachine
    }

    /// Granularity of the client-side delivery count.
    static let deliverySlice = 32 * 1024

    private let shared: RecordingContext
    private let tunnels: TunnelStarter
    private var connectionID = 0
    private var requests = 0
    private var sendBuffer: Int?
    private var pending: Pending?
    private var active: Active?
    private var closedByProxy = false
    private var context: ChannelHandlerContext?

    init(context shared: RecordingContext, tunnels: TunnelStarter) {
        self.shared = shared
        self.tunnels = tunnels
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
    }

    func channelActive(context: ChannelHandlerContext) {
        connectionID = shared.nextConnectionID()
        sendBuffer = (try? context.channel.syncOptions?.getOption(ChannelOptions.socketOption(.so_sndbuf))).flatMap { $0 }
        let peer = context.channel.remoteAddress.map(Self.describe) ?? "?"
        shared.writer.record(.connectionOpen(ConnectionOpenEvent(t: shared.clock.now(), connection: connectionID, peer: peer, sendBuffer: sendBuffer)))
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        if var a = active {
            let action = a.machine.clientClosed()
            active = a
            perform(action, for: a.exchange, context: context)
        }
        active = nil
        shared.writer.record(.connectionClose(ConnectionCloseEvent(t: shared.clock.now(), connection: connectionID, by: closedByProxy ? "proxy" : "client", requests: requests)))
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            requests += 1
            let t = shared.clock.now()
            let id = shared.nextExchangeID()
            if head.method == .CONNECT {
                recordRequest(head, t: t, exchange: id, url: nil)
                tunnels.start(head: head, exchange: id, connection: connectionID, context: context)
                return
            }
            switch RequestTarget.resolve(head.uri, upstream: shared.configuration.upstream, ownPort: shared.boundPort.load(ordering: .relaxed)) {
            case .success(let url):
                pending = Pending(head: head, t: t, exchange: id, url: url)
            case .failure(let refusal):
                recordRequest(head, t: t, exchange: id, url: nil)
                shared.writer.record(.error(ErrorEvent(t: shared.clock.now(), exchange: id, connection: connectionID, kind: "refused", message: refusal.message, status: Int(refusal.status.code))))
                respond(refusal.status, message: refusal.message, keepAlive: head.isKeepAlive, context: context)
            }
        case .body(var buffer):
            guard var p = pending else { return }
            if (p.body?.readableBytes ?? 0) + buffer.readableBytes > shared.configuration.maxRequestBody {
                p.tooLarge = true
                p.body = nil
            } else if !p.tooLarge {
                if p.body == nil { p.body = buffer } else { p.body!.writeBuffer(&buffer) }
            }
            pending = p
        case .end:
            guard let p = pending else { return }
            pending = nil
            recordRequest(p.head, t: p.t, exchange: p.exchange, url: p.url)
            if p.tooLarge {
                let message = "request body larger than \(shared.configuration.maxRequestBody) bytes; rangetap forwards request bodies up to that size"
                shared.writer.record(.error(ErrorEvent(t: shared.clock.now(), exchange: p.exchange, connection: connectionID, kind: "refused", message: message, status: 413)))
                respond(.payloadTooLarge, message: message, keepAlive: false, context: context)
                return
            }
            startExchange(p, context: context)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // A client resetting or abandoning its socket is how players cancel: channelInactive
        // records the cancel, so this is not an error.
        if let io = error as? IOError, [ECONNRESET, EPIPE, ETIMEDOUT].contains(io.errnoCode) {
            context.close(promise: nil)
            return
        }
        // HTTPServerProtocolErrorHandler has already answered a malformed request with 400.
        let isParseError = error is HTTPParserError
        shared.writer.record(.error(ErrorEvent(t: shared.clock.now(), exchange: nil, connection: connectionID, kind: isParseError ? "bad-request" : "client", message: isParseError ? "malformed request: \(error)" : "client connection error: \(error)", status: isParseError ? 400 : nil)))
        closedByProxy = true
        context.close(promise: nil)
    }

    // MARK: Exchanges

    private func startExchange(_ p: Pending, context: ChannelHandlerContext) {
        let loopBound = NIOLoopBound(self, eventLoop: context.eventLoop)
        let loop = context.eventLoop
        let exchange = Exchange(id: p.exchange, connection: connectionID, context: shared, loop: loop) { exchange, message in
            loop.execute { loopBound.value.handle(message, from: exchange) }
        }
        active = Active(exchange: exchange, machine: ExchangeStateMachine(clientVersion: p.head.version, clientKeepAlive: p.head.isKeepAlive))
        var body: [UInt8]? = nil
        if let b = p.body { body = Array(b.readableBytesView) }
        let request = CurlRequest(
            url: p.url, method: p.head.method.rawValue, headers: HeaderForwarding.upstreamRequestLines(p.head.headers),
            body: body ?? (p.head.method == .POST || p.head.method == .PUT ? [] : nil),
            insecure: shared.configuration.insecureUpstream, bufferSize: shared.configuration.upstreamBufferSize)
        exchange.start(request)
    }

    private func handle(_ message: Exchange.Message, from exchange: Exchange) {
        guard let context, var a = active, a.exchange === exchange else { return }
        let action: ExchangeStateMachine.Action
        switch message {
        case .head(let status, let headers): action = a.machine.upstreamHead(status: status, headers: headers)
        case .body(let buffer): action = a.machine.upstreamBody(buffer)
        case .end: action = a.machine.upstreamEnd()
        case .failed(let text): action = a.machine.upstreamFailed(message: text)
        }
        active = a
        perform(action, for: exchange, context: context)
    }

    private func perform(_ action: ExchangeStateMachine.Action, for exchange: Exchange, context: ChannelHandlerContext) {
        switch action {
        case .none:
            break
        case .writeHead(let head):
            context.writeAndFlush(wrapOutboundOut(.head(head)), promise: nil)
        case .writeBody(var buffer):
            // Written in slices of the same storage (no copy), each with its own completion, so
            // the bytes the client accepted are known to within one slice when it hangs up.
            let loopBound = NIOLoopBound(self, eventLoop: context.eventLoop)
            while buffer.readableBytes > 0 {
                let slice = buffer.readSlice(length: min(buffer.readableBytes, Self.deliverySlice))!
                let n = slice.readableBytes
                let promise = context.eventLoop.makePromise(of: Void.self)
                promise.futureResult.whenComplete { result in
                    loopBound.value.writeCompleted(n, written: (try? result.get()) != nil, exchange: exchange)
                }
                context.write(wrapOutboundOut(.body(.byteBuffer(slice))), promise: promise)
            }
            context.flush()
        case .writeEnd(let close):
            active = nil
            let written = context.writeAndFlush(wrapOutboundOut(.end(nil)))
            if close {
                closedByProxy = true
                let channel = context.channel
                written.whenComplete { _ in channel.close(promise: nil) }
            }
        case .respondWithError(let status, let message):
            let keepAlive = active?.machine.clientKeepAlive ?? false
            active = nil
            respond(status, message: message, keepAlive: keepAlive, context: context)
        case .closeConnection:
            active = nil
            closedByProxy = true
            context.close(promise: nil)
        case .cancelUpstream(let delivered):
            exchange.cancel(delivered: delivered, sendBuffer: sendBuffer)
        case .resumeUpstream:
            exchange.resume()
        }
    }

    private func writeCompleted(_ n: Int, written: Bool, exchange: Exchange) {
        let drained = exchange.flow.complete(n)
        guard let context, var a = active, a.exchange === exchange else {
            if drained { exchange.resume() }
            return
        }
        let action = a.machine.writeCompleted(n, written: written, windowDrained: drained)
        active = a
        perform(action, for: exchange, context: context)
    }

    // MARK: Helpers

    private func recordRequest(_ head: HTTPRequestHead, t: CaptureTime, exchange: Int, url: String?) {
        shared.writer.record(.request(RequestEvent(
            t: t, exchange: exchange, connection: connectionID, method: head.method.rawValue, target: head.uri,
            version: "HTTP/\(head.version.major).\(head.version.minor)", url: url,
            headers: HeaderForwarding.captureLines(head.headers, keepSecrets: shared.configuration.keepSecrets))))
    }

    /// The proxy's own response (an error it generates), plain text.
    private func respond(_ status: HTTPResponseStatus, message: String, keepAlive: Bool, context: ChannelHandlerContext) {
        var body = context.channel.allocator.buffer(capacity: message.utf8.count + 12)
        body.writeString("rangetap: \(message)\n")
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: "text/plain; charset=utf-8")
        headers.add(name: "Content-Length", value: String(body.readableBytes))
        if !keepAlive { headers.add(name: "Connection", value: "close") }
        context.write(wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: status, headers: headers))), promise: nil)
        context.write(wrapOutboundOut(.body(.byteBuffer(body))), promise: nil)
        let done = context.writeAndFlush(wrapOutboundOut(.end(nil)))
        if !keepAlive {
            closedByProxy = true
            let channel = context.channel
            done.whenComplete { _ in channel.close(promise: nil) }
        }
    }

    static func describe(_ address: SocketAddress) -> String {
        if let ip = address.ipAddress, let port = address.port { return "\(ip):\(port)" }
        return "\(address)"
    }
}

@available(*, unavailable)
extension ProxyHandler: Sendable {}
