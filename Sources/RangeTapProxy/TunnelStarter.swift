import NIOCore
import NIOHTTP1
import NIOPosix
import RangeTapCore

/// Turns a client connection that sent `CONNECT host:port` into an opaque relay: connects
/// upstream, answers 200, drops the HTTP handlers and glues the two sockets together, counting
/// bytes each way. The tunnel is recorded (as a `tunnel` event) when both sides have closed.
struct TunnelStarter: Sendable {
    let shared: RecordingContext

    /// Names of the HTTP handlers on a client pipeline, removed when a tunnel starts.
    static let httpHandlerNames = ["rangetap.encoder", "rangetap.decoder", "rangetap.pipelining", "rangetap.errors", "rangetap.proxy"]

    func start(head: HTTPRequestHead, exchange: Int, connection: Int, context: ChannelHandlerContext) {
        let authority = head.uri
        guard let colon = authority.lastIndex(of: ":"), let port = Int(authority[authority.index(after: colon)...]), port > 0, port < 65536 else {
            fail(context: context, exchange: exchange, connection: connection, status: .badRequest, message: "CONNECT target \"\(authority.prefix(200))\" is not host:port")
            return
        }
        var host = String(authority[..<colon])
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        let clientChannel = context.channel
        let loop = context.eventLoop
        let counters = TunnelCounters()
        let shared = self.shared
        let contextBox = NIOLoopBound(context, eventLoop: loop)
        ClientBootstrap(group: loop)
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .connect(host: host, port: port)
            .whenComplete { result in
                let context = contextBox.value
                switch result {
                case .failure(let error):
                    fail(context: context, exchange: exchange, connection: connection, status: .badGateway, message: "cannot connect to \(authority): \(error)")
                case .success(let upstream):
                    let opened = shared.clock.now()
                    handOver(client: clientChannel, upstream: upstream, counters: counters).whenComplete { result in
                        if case .failure = result {
                            clientChannel.close(promise: nil)
                            upstream.close(promise: nil)
                        }
                    }
                    let both = clientChannel.closeFuture.and(upstream.closeFuture)
                    both.whenComplete { _ in
                        shared.writer.record(.tunnel(TunnelEvent(t: shared.clock.now(), opened: opened, exchange: exchange, connection: connection, authority: authority, up: counters.up, down: counters.down)))
                    }
                }
            }
    }

    /// Replaces HTTP on the client channel by the relay. The 200 is written raw (RFC 9110 §9.3.6:
    /// no Content-Length or Transfer-Encoding on a 2xx to CONNECT), and the request decoder goes
    /// last, so bytes the client sent right after its CONNECT reach the tunnel.
    private func handOver(client: any Channel, upstream: any Channel, counters: TunnelCounters) -> EventLoopFuture<Void> {
        let names = Self.httpHandlerNames
        let p = client.pipeline
        return p.removeHandler(name: names[2])  // pipelining
            .flatMap { p.removeHandler(name: names[3]) }  // errors
            .flatMap { p.removeHandler(name: names[0]) }  // encoder
            .flatMap {
                var ok = client.allocator.buffer(capacity: 64)
                ok.writeString("HTTP/1.1 200 Connection Established\r\n\r\n")
                return client.writeAndFlush(ok)
            }
            .flatMapThrowing {
                // Both channels live on this event loop.
                let (a, b) = TunnelGlue.pair(counters: counters)
                try client.pipeline.syncOperations.addHandler(a)
                try upstream.pipeline.syncOperations.addHandler(b)
            }
            .flatMap { p.removeHandler(name: names[4]) }  // proxy
            .flatMap { p.removeHandler(name: names[1]) }  // decoder: leftover bytes go to the glue
            .map {
                // Bytes the client sent together with its CONNECT reach the glue outside a read
                // cycle (no channelReadComplete follows them): flush them on now.
                upstream.flush()
            }
    }

    private func fail(context: ChannelHandlerContext, exchange: Int, connection: Int, status: HTTPResponseStatus, message: String) {
        shared.writer.record(.error(ErrorEvent(t: shared.clock.now(), exchange: exchange, connection: connection, kind: status == .badGateway ? "upstream" : "refused", message: message, status: Int(status.code))))
        var body = context.channel.allocator.buffer(capacity: message.utf8.count + 12)
        body.writeString("rangetap: \(message)\n")
        var headers = HTTPHeaders()
        headers.add(name: "Content-Type", value: "text/plain; charset=utf-8")
        headers.add(name: "Content-Length", value: String(body.readableBytes))
        headers.add(name: "Connection", value: "close")
        context.write(NIOAny(HTTPServerResponsePart.head(HTTPResponseHead(version: .http1_1, status: status, headers: headers))), promise: nil)
        context.write(NIOAny(HTTPServerResponsePart.body(.byteBuffer(body))), promise: nil)
        let channel = context.channel
        context.writeAndFlush(NIOAny(HTTPServerResponsePart.end(nil))).whenComplete { _ in channel.close(promise: nil) }
    }
}

/// Byte counts of one tunnel; touched only on its event loop.
final class TunnelCounters: @unchecked Sendable {
    var up: Int64 = 0
    var down: Int64 = 0
}

/// One side of a tunnel: what it reads it writes to its partner's channel, pausing reads
/// while the partner cannot take more.
final class TunnelGlue: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private var partner: TunnelGlue?
    private var context: ChannelHandlerContext?
    private let counters: TunnelCounters
    private let isClientSide: Bool
    private var pendingRead = false

    private init(counters: TunnelCounters, isClientSide: Bool) {
        self.counters = counters
        self.isClientSide = isClientSide
    }

    /// A glued pair: the first goes on the client channel, the second on the upstream one.
    static func pair(counters: TunnelCounters) -> (TunnelGlue, TunnelGlue) {
        let a = TunnelGlue(counters: counters, isClientSide: true)
        let b = TunnelGlue(counters: counters, isClientSide: false)
        a.partner = b
        b.partner = a
        return (a, b)
    }

    func handlerAdded(context: ChannelHandlerContext) { self.context = context }
    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
        partner = nil
    }

    private var partnerWritable: Bool { partner?.context?.channel.isWritable ?? true }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let buffer = unwrapInboundIn(data)
        if isClientSide { counters.up += Int64(buffer.readableBytes) } else { counters.down += Int64(buffer.readableBytes) }
        partner?.context?.write(wrapOutboundOut(buffer), promise: nil)
    }

    func channelReadComplete(context: ChannelHandlerContext) {
        partner?.context?.flush()
    }

    func channelInactive(context: ChannelHandlerContext) {
        partner?.context?.close(promise: nil)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable { partner?.resumeReading() }
    }

    func read(context: ChannelHandlerContext) {
        if partnerWritable { context.read() } else { pendingRead = true }
    }

    private func resumeReading() {
        if pendingRead, let context {
            pendingRead = false
            context.read()
        }
    }
}

@available(*, unavailable)
extension TunnelGlue: Sendable {}
