import NIOCore

/// Request heads as the client sent them, in order, for ``ProxyHandler`` to take one per
/// decoded request head.
final class RawRequestHeads {
    private var heads: [[UInt8]] = []
    /// Whether a head's first bytes arrived and its blank line not yet (the connection is not
    /// idle then, however long the head takes: `--head-timeout` is its limit).
    var inProgress = false

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
    typealias OutboundOut = ByteBuffer

    private var scanner = RequestHeadScanner()
    private let heads: RawRequestHeads
    private let headTimeout: TimeAmount?
    private var headTimer: Scheduled<Void>?

    /// `headTimeout`: how long a head may take from its first byte to its blank line.
    init(heads: RawRequestHeads, headTimeout: TimeAmount? = nil) {
        self.heads = heads
        self.headTimeout = headTimeout
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        headTimer?.cancel()
        headTimer = nil
    }

    func channelInactive(context: ChannelHandlerContext) {
        headTimer?.cancel()
        headTimer = nil
        context.fireChannelInactive()
    }

    /// Starts the head timer at a head's first byte; stops it when the head is whole.
    private func watchHead(context: ChannelHandlerContext) {
        heads.inProgress = scanner.isInsideHead
        guard let headTimeout else { return }
        if !scanner.isInsideHead {
            headTimer?.cancel()
            headTimer = nil
        } else if headTimer == nil {
            let bound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
            headTimer = context.eventLoop.scheduleTask(in: headTimeout) {
                let (tap, context) = bound.value
                tap.headTimedOut(context: context, after: headTimeout)
            }
        }
    }

    /// The head did not complete in time: 408, told to the proxy for the capture, and a close.
    private func headTimedOut(context: ChannelHandlerContext, after limit: TimeAmount) {
        headTimer = nil
        let message =
            "the request head did not arrive whole within \(Double(limit.nanoseconds) / 1e9) s (--head-timeout); rangetap closed the connection"
        context.fireUserInboundEventTriggered(HeadTimeout(message: message))
        var response = context.channel.allocator.buffer(capacity: 160)
        response.writeString(
            "HTTP/1.1 408 Request Timeout\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: \(message.utf8.count + 11)\r\nConnection: close\r\n\r\nrangetap: \(message)\n"
        )
        let channel = context.channel
        context.writeAndFlush(wrapOutboundOut(response)).whenComplete { _ in channel.close(promise: nil) }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let buffer = unwrapInboundIn(data)
        let segments = buffer.withUnsafeReadableBytes { scanner.feed($0) }
        watchHead(context: context)
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

/// A user event: a request head took longer than `--head-timeout` (the client got 408).
struct HeadTimeout {
    let message: String
}
