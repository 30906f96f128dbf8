import NIOCore

/// Sits right below `NIOHTTP2Handler` on a client connection and lowers, in the client's
/// SETTINGS frames, `SETTINGS_HEADER_TABLE_SIZE` to at most ``maxHeaderTableSize`` before
/// NIOHTTP2 reads it.
///
/// Why: the value is how large the client lets rangetap's HPACK encoder make its dynamic table,
/// and NIOHTTP2 grows the encoder's table to whatever the client says. A client announcing
/// 2³¹−1 made the proxy keep every response header it sent for the connection's life (+32 MiB
/// per 2,000 responses with 8 KB of unique headers). An encoder may always use a smaller table
/// than the decoder allows (RFC 7541 §4.2), so the client decodes the same. Only SETTINGS
/// frames are held and rewritten; every other byte passes in the buffers it came in.
/// Event loop only.
final class H2SettingsClamp: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer

    /// The largest HPACK encoder table a client can make rangetap keep.
    static let maxHeaderTableSize: UInt32 = 64 * 1024
    /// Largest SETTINGS frame held to be rewritten (NIOHTTP2's own frame size limit): a larger
    /// one passes on for NIOHTTP2 to refuse.
    static let maxHeld = 16_384

    /// Client preface bytes still to pass before the first frame.
    private var prefaceLeft = 24
    /// The start of a frame header that the last read ended inside (withheld until whole).
    private var header: [UInt8] = []
    /// Payload bytes of the current (not SETTINGS) frame still to pass.
    private var skipping = 0
    /// The SETTINGS frame being gathered (header and payload so far), and its payload length.
    private var settings: (bytes: ByteBuffer, length: Int)?

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let read = unwrapInboundIn(data)
        var buffer = read
        // Bytes from `passStart` to the reader index go on as a slice of this read, uncopied.
        var passStart = buffer.readerIndex
        func pass() {
            let end = buffer.readerIndex
            if end > passStart {
                context.fireChannelRead(wrapInboundOut(read.getSlice(at: passStart, length: end - passStart)!))
            }
            passStart = end
        }
        while buffer.readableBytes > 0 {
            if prefaceLeft > 0 {
                let n = min(prefaceLeft, buffer.readableBytes)
                prefaceLeft -= n
                buffer.moveReaderIndex(forwardBy: n)
            } else if skipping > 0 {
                let n = min(skipping, buffer.readableBytes)
                skipping -= n
                buffer.moveReaderIndex(forwardBy: n)
            } else if var held = settings {
                let n = min(held.length + 9 - held.bytes.readableBytes, buffer.readableBytes)
                var part = buffer.readSlice(length: n)!
                held.bytes.writeBuffer(&part)
                passStart = buffer.readerIndex
                if held.bytes.readableBytes == held.length + 9 {
                    settings = nil
                    context.fireChannelRead(wrapInboundOut(Self.clamped(held.bytes)))
                } else {
                    settings = held
                }
            } else if !header.isEmpty || buffer.readableBytes < 9 {
                // A frame header split across reads: withheld until whole.
                pass()
                let n = min(9 - header.count, buffer.readableBytes)
                header += buffer.readBytes(length: n)!
                passStart = buffer.readerIndex
                guard header.count == 9 else { continue }
                let whole = header
                header = []
                var bytes = context.channel.allocator.buffer(capacity: 9)
                bytes.writeBytes(whole)
                start(frameHeader: bytes, context: context)
            } else {
                let at = buffer.readerIndex
                let length =
                    Int(buffer.getInteger(at: at, as: UInt8.self)!) << 16
                    | Int(buffer.getInteger(at: at + 1, as: UInt16.self)!)
                if buffer.getInteger(at: at + 3, as: UInt8.self) == 4, length <= Self.maxHeld {
                    pass()
                    start(frameHeader: buffer.readSlice(length: 9)!, context: context)
                    passStart = buffer.readerIndex
                } else {
                    buffer.moveReaderIndex(forwardBy: 9)
                    skipping = length
                }
            }
        }
        pass()
    }

    /// A whole frame header (9 bytes) not passed on yet: a small SETTINGS frame is gathered, any
    /// other frame's header goes on and its payload passes.
    private func start(frameHeader: ByteBuffer, context: ChannelHandlerContext) {
        let length =
            Int(frameHeader.getInteger(at: frameHeader.readerIndex, as: UInt8.self)!) << 16
            | Int(frameHeader.getInteger(at: frameHeader.readerIndex + 1, as: UInt16.self)!)
        guard frameHeader.getInteger(at: frameHeader.readerIndex + 3, as: UInt8.self) == 4, length <= Self.maxHeld
        else {
            context.fireChannelRead(wrapInboundOut(frameHeader))
            skipping = length
            return
        }
        var held = context.channel.allocator.buffer(capacity: 9 + length)
        var h = frameHeader
        held.writeBuffer(&h)
        if length == 0 {
            context.fireChannelRead(wrapInboundOut(held))
        } else {
            settings = (held, length)
        }
    }

    /// `frame` (a whole SETTINGS frame) with every `SETTINGS_HEADER_TABLE_SIZE` above the cap
    /// lowered to it.
    static func clamped(_ frame: ByteBuffer) -> ByteBuffer {
        var frame = frame
        var at = frame.readerIndex + 9
        let end = frame.writerIndex
        while at + 6 <= end {
            if frame.getInteger(at: at, as: UInt16.self) == 1,
                let value = frame.getInteger(at: at + 2, as: UInt32.self), value > maxHeaderTableSize
            {
                frame.setInteger(maxHeaderTableSize, at: at + 2)
            }
            at += 6
        }
        return frame
    }
}

@available(*, unavailable)
extension H2SettingsClamp: Sendable {}
