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

/// Sits before NIO's HTTP decoder and passes every byte on unchanged, keeping a copy of each
/// request head (``RequestHeadScanner``) so the capture holds the bytes received and the
/// upstream gets the client's lines, not the decoder's normalised values.
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
        let found = buffer.withUnsafeReadableBytes { scanner.feed($0) }
        if !found.isEmpty { heads.append(found) }
        context.fireChannelRead(data)
    }
}

@available(*, unavailable)
extension RawRequestTap: Sendable {}
