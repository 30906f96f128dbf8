import NIOCore

/// First on a plain client connection: if its first bytes are the HTTP/2 connection preface
/// (`PRI * HTTP/2.0…`, RFC 9113 §3.4: h2c with prior knowledge), replaces the HTTP/1.1 handlers
/// with ``H2Pipeline``'s; otherwise removes itself. Bytes are held until that is decided.
final class H2PrefaceSniffer: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer

    static let preface = Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8)

    private let shared: RecordingContext
    private var held: ByteBuffer?
    private var decided = false

    init(shared: RecordingContext) {
        self.shared = shared
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !decided else {
            context.fireChannelRead(data)
            return
        }
        var buffer = unwrapInboundIn(data)
        if held == nil { held = buffer } else { held!.writeBuffer(&buffer) }
        let seen = held!.readableBytesView.prefix(Self.preface.count)
        guard seen.elementsEqual(Self.preface.prefix(seen.count)) else {
            decide(http2: false, context: context)
            return
        }
        if seen.count == Self.preface.count { decide(http2: true, context: context) }
    }

    func channelInactive(context: ChannelHandlerContext) {
        if !decided, held != nil { decide(http2: false, context: context) }
        context.fireChannelInactive()
    }

    private func decide(http2: Bool, context: ChannelHandlerContext) {
        decided = true
        let bytes = held
        held = nil
        if http2 {
            do {
                try switchToHTTP2(context: context)
            } catch {
                context.close(promise: nil)
                return
            }
        }
        if let bytes { context.fireChannelRead(NIOAny(bytes)) }
        context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
    }

    /// Takes the connection id and request count from the HTTP/1.1 proxy handler (which recorded
    /// the connection's opening), removes the HTTP/1.1 handlers and adds the HTTP/2 ones.
    private func switchToHTTP2(context: ChannelHandlerContext) throws {
        let sync = context.pipeline.syncOperations
        let proxy = try sync.handler(type: ProxyHandler.self)
        let inherited = proxy.inheritance
        let names = TunnelStarter.httpHandlerNames
        for name in [names.rawHeads, names.encoder, names.decoder, names.pipelining, names.errors, names.proxy] {
            _ = sync.removeHandler(name: name)
        }
        try H2Pipeline.install(on: context.channel, shared: shared, session: .plain, inherited: inherited)
    }
}

@available(*, unavailable)
extension H2PrefaceSniffer: Sendable {}
