import NIOCore

/// Sits right above the server ``TLSHandler`` and flushes it before the ciphertext of what is
/// waiting would outgrow ``capacity``, splitting a larger write into slices of the same storage
/// (no copy), so one flush never encrypts more than that.
///
/// Used wherever rangetap terminates TLS: intercepted tunnels and `serve --tls`.
///
/// Why: `TLSHandler` encrypts everything written since the last flush into one buffer, which
/// lives until the socket has taken it. A 256 KiB round flushed at once would hold 256 KiB of
/// ciphertext beside its plaintext for as long as a slow client takes to read it; with the
/// budget a connection has at most 32 KiB of ciphertext in flight (docs/https.md, "Memory of an
/// idle connection"). Under swift-nio-ssl, which kept its outbound buffer at the largest size it
/// ever reached for the connection's life, the budget is also what kept idle connections small.
///
/// Each write becomes at least one TLS record of its own (one `SSL_write` per write), so the
/// ciphertext of a write is counted as its bytes plus ``recordOverhead`` per record of up to
/// 16 KiB: HTTP/2's 9-byte frame headers are records too.
///
/// What it costs: a `write(2)` per 31 KiB rather than per round (docs/https.md).
///
/// The promise of a split write goes with its last slice; the writes reach TLS in order, so it
/// completes once all of them are on the socket. Event loop only.
public final class TLSWriteBudget: ChannelOutboundHandler, RemovableChannelHandler {
    public typealias OutboundIn = ByteBuffer
    public typealias OutboundOut = ByteBuffer

    /// The ciphertext a flush may make, with what TLS itself adds: two full records' worth.
    public static let outboundBufferSize = 32 * 1024
    /// The ciphertext of application data one flush may make: ``outboundBufferSize`` less 1 KiB
    /// for what TLS itself may add to a flush (a key update, an alert).
    public static let defaultCapacity = outboundBufferSize - 1024
    /// The most framing a record adds: TLS 1.2 with AES-GCM (5-byte header, 8-byte explicit
    /// nonce, 16-byte tag); TLS 1.3 adds 22.
    public static let recordOverhead = 29
    /// The largest plaintext of one record.
    public static let recordSize = 16 * 1024

    /// The ciphertext one flush may make.
    public let capacity: Int
    /// Ciphertext that what was written since the last flush will make, at most.
    private var pending = 0
    /// Flushes this handler added.
    public private(set) var addedFlushes = 0

    /// A budget of `capacity` bytes of ciphertext per flush.
    public init(capacity: Int = TLSWriteBudget.defaultCapacity) {
        precondition(capacity > 2 * Self.recordOverhead, "a TLS write budget must hold a record")
        self.capacity = capacity
    }

    /// The most ciphertext `bytes` of plaintext written at once make.
    public static func ciphertext(of bytes: Int) -> Int {
        let records = max(1, (bytes + recordSize - 1) / recordSize)
        return bytes + records * recordOverhead
    }

    /// The most plaintext that fits in `room` bytes of ciphertext written at once (0 when not
    /// even a byte does).
    public static func plaintext(fitting room: Int) -> Int {
        guard room > recordOverhead else { return 0 }
        // Whole records first, then what is left of the last one.
        let full = room / (recordSize + recordOverhead)
        let rest = room - full * (recordSize + recordOverhead)
        return full * recordSize + max(0, rest - recordOverhead)
    }

    /// Passes the write on, flushing first (and splitting it) when its ciphertext would not fit.
    public func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        var buffer = unwrapOutboundIn(data)
        // Bounded: each pass either flushes a non-empty budget, or writes a slice that fills an
        // empty one (a whole budget holds at least one byte).
        while pending + Self.ciphertext(of: buffer.readableBytes) > capacity {
            // What fits is less than the buffer holds. With little room left, flush what waits
            // rather than cut off a sliver.
            let fits = Self.plaintext(fitting: capacity - pending)
            if fits > 0, pending == 0 || fits >= buffer.readableBytes / 2, let part = buffer.readSlice(length: fits) {
                context.write(wrapOutboundOut(part), promise: nil)
            }
            flushNow(context)
        }
        pending += Self.ciphertext(of: buffer.readableBytes)
        context.write(wrapOutboundOut(buffer), promise: promise)
    }

    /// Passes the flush on; the budget starts again.
    public func flush(context: ChannelHandlerContext) {
        pending = 0
        context.flush()
    }

    private func flushNow(_ context: ChannelHandlerContext) {
        pending = 0
        addedFlushes += 1
        context.flush()
    }
}
