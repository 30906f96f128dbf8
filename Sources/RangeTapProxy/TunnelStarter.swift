import NIOCore
import NIOHTTP1
import NIOPosix
import NIOSSL
import RangeTapCore
import RangeTapTLS

/// Starts what a client's `CONNECT host:port` asks for. With a CA and the host not excluded
/// by `--no-intercept`, the tunnel is intercepted: rangetap answers 200, terminates the
/// client's TLS with a certificate minted for the host, and serves the decrypted requests with
/// the same HTTP handlers as the plain listener (each an exchange with an `https://` URL).
/// Otherwise it is an opaque relay: rangetap connects upstream, answers 200, and glues the two
/// sockets together, counting bytes each way. Either way a `tunnel` event records it when the
/// connection has closed.
struct TunnelStarter {
    let shared: RecordingContext
    let wire: ClientWire

    /// Names of the HTTP handlers on a client pipeline.
    struct HandlerNames: Sendable {
        var rawHeads, encoder, decoder, pipelining, errors, proxy: String

        init(prefix: String) {
            rawHeads = prefix + ".raw-heads"
            encoder = prefix + ".encoder"
            decoder = prefix + ".decoder"
            pipelining = prefix + ".pipelining"
            errors = prefix + ".errors"
            proxy = prefix + ".proxy"
        }
    }

    /// The handlers of the plain listener, removed when a tunnel starts.
    static let httpHandlerNames = HandlerNames(prefix: "rangetap")
    /// The handlers inside an intercepted tunnel.
    static let tunnelHandlerNames = HandlerNames(prefix: "rangetap.tunnel")

    func start(head: HTTPRequestHead, exchange: Int, connection: Int, handler: ProxyHandler, context: ChannelHandlerContext) {
        let authority = head.uri
        guard let colon = authority.lastIndex(of: ":"), let port = Int(authority[authority.index(after: colon)...]), port > 0, port < 65536 else {
            fail(context: context, exchange: exchange, connection: connection, status: .badRequest, message: "CONNECT target \"\(authority.prefix(200))\" is not host:port")
            return
        }
        var host = String(authority[..<colon])
        if host.hasPrefix("[") && host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        if shared.intercepts(host) {
            // After the decoder has handed on the CONNECT's end: the handlers change between
            // messages, not in the middle of one.
            let me = NIOLoopBound((self, context, handler.inheritance), eventLoop: context.eventLoop)
            let host = host
            context.eventLoop.execute {
                let (starter, context, inherited) = me.value
                starter.intercept(authority: authority, host: host, port: port, exchange: exchange, inherited: inherited, context: context)
            }
            return
        }
        let clientChannel = context.channel
        let loop = context.eventLoop
        let counters = TunnelCounters()
        let shared = self.shared
        let contextBox = NIOLoopBound(context, eventLoop: loop)
        let me = NIOLoopBound(self, eventLoop: loop)
        ClientBootstrap(group: loop)
            .channelOption(.socketOption(.tcp_nodelay), value: 1)
            .connect(host: host, port: port)
            .whenComplete { result in
                let context = contextBox.value
                switch result {
                case .failure(let error):
                    me.value.fail(context: context, exchange: exchange, connection: connection, status: .badGateway, message: "cannot connect to \(authority): \(error)")
                case .success(let upstream):
                    let opened = shared.clock.now()
                    me.value.handOver(client: clientChannel, upstream: upstream, counters: counters).whenComplete { result in
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
        return p.removeHandler(name: names.pipelining)
            .flatMap { p.removeHandler(name: names.errors) }
            .flatMap { p.removeHandler(name: names.encoder) }
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
            .flatMap { p.removeHandler(name: names.proxy) }
            .flatMap { p.removeHandler(name: names.decoder) }  // leftover bytes go to the glue
            .map {
                // Bytes the client sent together with its CONNECT reach the glue outside a read
                // cycle (no channelReadComplete follows them): flush them on now.
                upstream.flush()
            }
    }

    /// Answers 200, then puts TLS and a new set of HTTP handlers where the plain ones were. The
    /// request decoder goes last, so a ClientHello sent right behind the CONNECT reaches TLS.
    private func intercept(authority: String, host: String, port: Int, exchange: Int, inherited: ClientSession.Inherited, context: ChannelHandlerContext) {
        guard let contexts = shared.intercept else { return }
        let tlsContext: NIOSSLContext
        do {
            tlsContext = try contexts.context(for: host)
        } catch {
            fail(context: context, exchange: exchange, connection: inherited.connection, status: .badGateway, message: "cannot intercept \(authority): \(error)")
            return
        }
        let shared = self.shared
        let wire = NIOLoopBound(self.wire, eventLoop: context.eventLoop)
        let client = context.channel
        let names = Self.httpHandlerNames
        let p = client.pipeline
        let opened = shared.clock.now()
        let origin = port == 443 ? "https://\(authority.prefix(upTo: authority.lastIndex(of: ":")!))" : "https://\(authority)"
        let session = ClientSession(origin: origin, tls: true, inherited: inherited)
        let handshakeTimeout = shared.configuration.headTimeoutMs > 0 ? TimeAmount.milliseconds(Int64(shared.configuration.headTimeoutMs)) : nil
        let hello = NIOLoopBound(TLSHelloTap(), eventLoop: context.eventLoop)
        let watcher = NIOLoopBound(TLSSessionHandler(shared: shared, hello: hello.value, connection: inherited.connection, exchange: exchange, authority: authority, timeout: handshakeTimeout), eventLoop: context.eventLoop)
        p.removeHandler(name: names.pipelining)
            .flatMap { p.removeHandler(name: names.errors) }
            .flatMap { p.removeHandler(name: names.encoder) }
            .flatMap { p.removeHandler(name: names.rawHeads) }
            .flatMap {
                var ok = client.allocator.buffer(capacity: 64)
                ok.writeString("HTTP/1.1 200 Connection Established\r\n\r\n")
                return client.writeAndFlush(ok)
            }
            .flatMapThrowing {
                let sync = client.pipeline.syncOperations
                try sync.addHandler(hello.value)
                try sync.addHandler(NIOSSLServerHandler(context: tlsContext))
                try sync.addHandler(watcher.value)
                try ProxyServer.addHTTPHandlers(to: sync, context: shared, wire: wire.value, session: session, names: Self.tunnelHandlerNames)
            }
            .flatMap { p.removeHandler(name: names.proxy) }
            .flatMap { p.removeHandler(name: names.decoder) }  // leftover bytes go to TLS
            .whenComplete { result in
                if case .failure(let error) = result {
                    shared.writer.record(.error(ErrorEvent(t: shared.clock.now(), exchange: exchange, connection: inherited.connection, kind: "tls", message: "cannot start intercepting \(authority): \(error)", status: nil)))
                    client.close(promise: nil)
                }
            }
        client.closeFuture.whenComplete { _ in
            shared.writer.record(.tunnel(TunnelEvent(t: shared.clock.now(), opened: opened, exchange: exchange, connection: inherited.connection, authority: authority, up: hello.value.bytesIn, down: hello.value.bytesOut, intercepted: true)))
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
