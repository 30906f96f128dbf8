import NIOCore

/// Request heads as the client sent them, in order, for ``ProxyHandler`` to take one per
/// decoded request head.
final class RawRequestHeads {
    private var heads: [[UInt8]] = []

    /// Appends heads found in the stream.
    func append(_ found: [[UInt8]]) { heads += found }

    /// The oldest head not yet taken.
    func take() -> [UInt8]? { heads.isEmpty ? nil : heads.removeFirst() }
}

@available(*, unavailable)
extension RawRequestHeads: Sendable {}

/// Sits before NIO's HTTP decoder. Keeps a copy of each request head as received
/// (``RequestHeadScanner``) so the capture holds the bytes received and the upstream gets the
/// client's lines, not the decoder's normalised values; hands the decoder each head with bare
/// LF line ends and obs-folds repaired (RFC 9112 §2.2, §5.2), which NIO's strict parser would
/// refuse; passes every other byte on unchanged.
final class RawRequestTap: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    private var scanner = RequestHeadScanner()
    private let heads: RawRequestHeads

    init(heads: RawRequestHeads) {
        self.heads = heads
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let buffer = unwrapInboundIn(data)
        let segments = buffer.withUnsafeReadableBytes { scanner.feed($0) }
        // The common case, all body bytes: pass the buffer itself on.
        if segments.count == 1, case .pass(let r) = segments[0], r.count == buffer.readableBytes {
            context.fireChannelRead(data)
            return
        }
        var out = context.channel.allocator.buffer(capacity: buffer.readableBytes + 16)
        for segment in segments {
            switch segment {
            case .pass(let r):
                out.writeImmutableBuffer(buffer.getSlice(at: buffer.readerIndex + r.lowerBound, length: r.count)!)
            case .head(let raw):
                heads.append([raw])
                out.writeBytes(RequestHeadScanner.normalized(raw))
            case .held(let bytes):
                out.writeBytes(bytes)
            }
        }
        if out.readableBytes > 0 { context.fireChannelRead(wrapInboundOut(out)) }
    }
}

@available(*, unavailable)
extension RawRequestTap: Sendable {}
