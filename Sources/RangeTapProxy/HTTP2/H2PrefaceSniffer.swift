import NIOCore

/// First on a plain client connection: if its first bytes are the HTTP/2 connection preface
/// (`PRI * HTTP/2.0…`, RFC 9113 §3.4: h2c with prior knowledge), replaces the HTTP/1.1 handlers
/// with ``H2Pipeline``'s; otherwise removes itself. Bytes are held until that is decided.
final class H2PrefaceSniffer: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    static let preface = Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8)

    private let shared: RecordingContext
    private let wire: ClientWire
    private var held: ByteBuffer?
    /// Set once the first bytes were judged; bytes arriving while the HTTP/1.1 handlers are
    /// being removed are held too.
    private var decided = false
    private var switching = false

    init(shared: RecordingContext, wire: ClientWire) {
        self.shared = shared
        self.wire = wire
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard !decided || switching else {
            context.fireChannelRead(data)
            return
        }
        var buffer = unwrapInboundIn(data)
        if held == nil { held = buffer } else { held!.writeBuffer(&buffer) }
        guard !switching else { return }
        let seen = held!.readableBytesView.prefix(Self.preface.count)
        if !seen.elementsEqual(Self.preface.prefix(seen.count)) {
            decided = true
            release(context: context)
        } else if seen.count == Self.preface.count {
            decided = true
            switching = true
            switchToHTTP2(context: context)
        }
    }

    func channelInactive(context: ChannelHandlerContext) {
        if !decided, held != nil {
            decided = true
            release(context: context)
        }
        context.fireChannelInactive()
    }

    /// Passes on what was held and leaves the pipeline.
    private func release(context: ChannelHandlerContext) {
        switching = false
        if let bytes = held {
            held = nil
            context.fireChannelRead(NIOAny(bytes))
            // Outside the read that brought them (the handlers were switched in between): the
            // read's end too, or what the bytes asked for (a SETTINGS ACK, a response to a
            // HEADERS frame sent with the preface) would wait for the client's next frame.
            context.fireChannelReadComplete()
        }
        context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
    }

    /// Takes the connection id and request count from the HTTP/1.1 proxy handler (which recorded
    /// the connection's opening), removes the HTTP/1.1 handlers (the request decoder leaves on
    /// the next tick) and adds the HTTP/2 ones, then passes on the held bytes.
    private func switchToHTTP2(context: ChannelHandlerContext) {
        let sync = context.pipeline.syncOperations
        guard let proxy = try? sync.handler(type: ProxyHandler.self) else {
            release(context: context)
            return
        }
        let inherited = proxy.inheritance
        let names = TunnelStarter.httpHandlerNames
        let removals = [names.rawHeads, names.encoder, names.decoder, names.pipelining, names.errors, names.proxy].map {
            sync.removeHandler(name: $0)
        }
        let shared = self.shared
        let wire = NIOLoopBound(self.wire, eventLoop: context.eventLoop)
        let me = NIOLoopBound(self, eventLoop: context.eventLoop)
        let channel = context.channel
        EventLoopFuture.andAllSucceed(removals, on: context.eventLoop)
            .flatMapThrowing {
                try H2Pipeline.install(
                    on: channel, shared: shared, wire: wire.value, session: .plain, inherited: inherited)
            }
            .whenComplete { result in
                switch result {
                case .success:
                    guard let context = try? channel.pipeline.syncOperations.context(handler: me.value) else { return }
                    me.value.release(context: context)
                case .failure:
                    channel.close(promise: nil)
                }
            }
    }
}

@available(*, unavailable)
extension H2PrefaceSniffer: Sendable {}
