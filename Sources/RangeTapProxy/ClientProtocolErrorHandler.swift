import NIOCore
import NIOHTTP1

/// Answers a request the HTTP/1.1 decoder could not parse with a 400 (431 for a head too large)
/// whose plain-text body says what was wrong (``ClientRequestError``), then passes the error on
/// so ``ProxyHandler`` records it and closes. A drop-in replacement for NIO's
/// `HTTPServerProtocolErrorHandler`, which answers with an empty body.
final class ClientProtocolErrorHandler: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = HTTPServerRequestPart
    typealias InboundOut = HTTPServerRequestPart
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = HTTPServerResponsePart

    /// A response head was written and its end was not yet: no error response can be sent.
    private var responseInProgress = false
    /// The request being read: its declared body length (nil when chunked or absent) and the
    /// body bytes seen so far; nil between requests.
    private var requestInProgress: (declared: Int?, chunked: Bool, received: Int)?

    init() {}

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        switch unwrapInboundIn(data) {
        case .head(let head):
            let chunked = head.headers[canonicalForm: "transfer-encoding"].contains { $0.lowercased() == "chunked" }
            requestInProgress = (head.headers.first(name: "content-length").flatMap { Int($0) }, chunked, 0)
        case .body(let buffer):
            requestInProgress?.received += buffer.readableBytes
        case .end:
            requestInProgress = nil
        }
        context.fireChannelRead(data)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if let parse = error as? HTTPParserError, parse == .invalidEOFState {
            // The client closed its side inside a request: nothing to answer, and not a 400.
            let left = ClientLeftMidRequest(
                declared: requestInProgress?.declared, chunked: requestInProgress?.chunked ?? false,
                received: requestInProgress?.received, afterHead: requestInProgress != nil)
            context.fireErrorCaught(left)
            return
        }
        guard let problem = ClientRequestError.describing(error) else {
            context.fireErrorCaught(error)
            return
        }
        // ByteToMessageHandler closes the channel right after this returns: write now.
        if !responseInProgress {
            var body = context.channel.allocator.buffer(capacity: 256)
            body.writeString("rangetap: \(problem)\n")
            let headers = HTTPHeaders([
                ("Content-Type", "text/plain; charset=utf-8"),
                ("Content-Length", String(body.readableBytes)),
                ("Connection", "close"),
            ])
            context.write(
                wrapOutboundOut(.head(HTTPResponseHead(version: .http1_1, status: problem.status, headers: headers))),
                promise: nil)
            context.write(wrapOutboundOut(.body(.byteBuffer(body))), promise: nil)
            context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        }
        context.fireErrorCaught(error)
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head(let head) where head.status.code / 100 != 1: responseInProgress = true
        case .end: responseInProgress = false
        default: break
        }
        context.write(data, promise: promise)
    }
}

@available(*, unavailable)
extension ClientProtocolErrorHandler: Sendable {}

/// The client closed the connection before its request was whole (the decoder saw the end of
/// the stream inside a request). Nothing was forwarded; the capture's `client` error says so.
public struct ClientLeftMidRequest: Error, Sendable, Hashable, CustomStringConvertible {
    /// The body length the head declared, if it did.
    public var declared: Int?
    /// Whether the body was chunked.
    public var chunked: Bool
    /// Body bytes received before the close.
    public var received: Int?
    /// Whether the whole head had arrived.
    public var afterHead: Bool
    /// Whether the request had gone to the origin with its body's first bytes (then stopped).
    public var forwarded = false

    public var description: String {
        guard afterHead else {
            return "the client closed the connection in the middle of a request head; nothing was forwarded"
        }
        let got = received ?? 0
        let what =
            declared.map { "\(got) of \($0) bytes" } ?? (chunked ? "\(got) bytes of a chunked body" : "\(got) bytes")
        return
            "the client closed the connection before its request body was whole (\(what) received); \(forwarded ? "rangetap stopped the request to the origin" : "nothing was forwarded")"
    }
}
