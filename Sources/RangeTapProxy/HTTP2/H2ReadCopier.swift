import NIOCore

/// Sits right below `NIOHTTP2Handler` and hands it small reads (``limit`` bytes or fewer) in
/// buffers of their own size, copied out of the buffer they arrived in.
///
/// Why: the HTTP/2 frame decoder keeps the last buffer it was given, empty or not, until the next
/// read, and on a plain (h2c) connection that is NIO's read buffer, sized for the largest reads.
/// (Under swift-nio-ssl it was a 32 KiB plaintext buffer per read; `TLSHandler` hands up buffers
/// the size of the read, so under TLS the copy now saves little.) A client's reads on an HTTP/2
/// connection are small (requests, `WINDOW_UPDATE`s, `PING`s), so the copy costs less than the
/// memory it frees; larger reads (uploads) pass through as they are.
/// (docs/https.md, "Memory of an idle connection".) Event loop only.
final class H2ReadCopier: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    /// The largest read that is copied.
    static let limit = 4096

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let buffer = unwrapInboundIn(data)
        guard buffer.readableBytes <= Self.limit else {
            context.fireChannelRead(data)
            return
        }
        var copy = context.channel.allocator.buffer(capacity: buffer.readableBytes)
        copy.writeImmutableBuffer(buffer)
        context.fireChannelRead(wrapInboundOut(copy))
    }
}
