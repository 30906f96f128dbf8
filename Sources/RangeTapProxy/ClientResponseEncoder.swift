import NIOCore
import NIOHTTP1
import RangeTapCore

/// What ``ProxyHandler`` hands the encoder beside the `HTTPServerResponsePart`s that NIO's
/// pipelining handler must see: the exact head bytes and the trailer lines to send.
final class ClientHeadSlot {
    /// The head to send for the next `.head` part.
    var next: ClientHead?
    /// Trailer lines for the next `.end` part of a chunked body, CRLF-terminated.
    var trailers: [String] = []
}

@available(*, unavailable)
extension ClientHeadSlot: Sendable {}

/// Writes responses to the client socket. Proxied heads go out as the bytes ``ClientHead``
/// holds (the origin's head, changed only as `docs/transparency.md` lists); the proxy's own
/// responses (errors, the 200 for CONNECT, parser errors) are serialized from their
/// `HTTPResponseHead`. Bodies are framed as the head said: passed through for a length or a
/// close, in chunks (one per write) for chunked.
final class ClientResponseEncoder: ChannelOutboundHandler, RemovableChannelHandler {
    typealias OutboundIn = HTTPServerResponsePart
    typealias OutboundOut = IOData

    private let slot: ClientHeadSlot
    private var framing: ClientFraming = .noBody

    init(slot: ClientHeadSlot) {
        self.slot = slot
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        switch unwrapOutboundIn(data) {
        case .head(let head):
            let bytes: [UInt8]
            if let raw = slot.next {
                slot.next = nil
                bytes = raw.bytes
                if !(100..<200).contains(raw.status) || raw.status == 101 { framing = raw.framing }
            } else {
                (bytes, framing) = Self.serialize(head)
            }
            var buffer = context.channel.allocator.buffer(capacity: bytes.count)
            buffer.writeBytes(bytes)
            context.write(wrapOutboundOut(.byteBuffer(buffer)), promise: promise)
        case .body(let body):
            switch framing {
            case .noBody:
                promise?.succeed()
            case .contentLength, .closeDelimited, .http2:
                context.write(wrapOutboundOut(body), promise: promise)
            case .chunked:
                guard body.readableBytes > 0 else {
                    promise?.succeed()
                    return
                }
                var header = context.channel.allocator.buffer(capacity: 12)
                header.writeString(String(body.readableBytes, radix: 16) + "\r\n")
                context.write(wrapOutboundOut(.byteBuffer(header)), promise: nil)
                context.write(wrapOutboundOut(body), promise: nil)
                context.write(wrapOutboundOut(.byteBuffer(Self.crlf)), promise: promise)
            }
        case .end:
            var tail = context.channel.allocator.buffer(capacity: 5)
            if framing == .chunked {
                tail.writeString("0\r\n")
                for line in slot.trailers { tail.writeBytes(Latin1.bytes(line)) }
                tail.writeString("\r\n")
            }
            slot.trailers = []
            framing = .noBody
            context.write(wrapOutboundOut(.byteBuffer(tail)), promise: promise)
        }
    }

    private static let crlf = ByteBuffer(string: "\r\n")

    /// A head rangetap writes itself: `HTTP/1.1 CODE REASON`, the fields as given.
    static func serialize(_ head: HTTPResponseHead) -> ([UInt8], ClientFraming) {
        var text =
            "HTTP/\(head.version.major).\(head.version.minor) \(head.status.code) \(head.status.reasonPhrase)\r\n"
        var headers = head.headers
        let code = Int(head.status.code)
        var framing: ClientFraming
        if (100..<200).contains(code) || code == 204 || code == 304 {
            framing = .noBody
        } else if headers.contains(name: "content-length") {
            framing = .contentLength
        } else if headers[canonicalForm: "transfer-encoding"].contains("chunked") {
            framing = .chunked
        } else if head.version == .http1_1 {
            headers.add(name: "Transfer-Encoding", value: "chunked")
            framing = .chunked
        } else {
            framing = .closeDelimited
        }
        for (name, value) in headers { text += "\(name): \(value)\r\n" }
        text += "\r\n"
        return (Latin1.bytes(text), framing)
    }
}

@available(*, unavailable)
extension ClientResponseEncoder: Sendable {}
