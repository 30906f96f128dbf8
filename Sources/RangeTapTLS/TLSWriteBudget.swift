import NIOCore

/// Sits right above `NIOSSLServerHandler` and flushes it before the ciphertext of what is
/// waiting would outgrow ``capacity``, splitting a larger write into slices of the same storage
/// (no copy), so one flush never encrypts more than that.
///
/// Used wherever rangetap terminates TLS: intercepted tunnels and `serve --tls`.
///
/// Why: `NIOSSLHandler` (swift-nio-ssl 2.37) encrypts everything written since the last flush
/// into one outbound buffer and keeps that buffer, at the largest size it ever reached, for as
/// long as the connection lives (its `maximumPreservedOutboundBufferCapacity` setting is not
/// passed on in that version). A 256 KiB round flushed at once left every intercepted connection
/// that had carried a large body holding about 300 KiB while idle; with the budget the buffer
/// stays at 32 KiB, the size it reaches anyway for one full record (docs/https.md, "Memory of an
/// idle connection").
///
/// Each write becomes at least one TLS record of its own (one `SSL_write` per write), so the
/// ciphertext of a write is counted as its bytes plus ``recordOverhead`` per record of up to
/// 16 KiB: HTTP/2's 9-byte frame headers are records too.
///
/// What it costs: a `write(2)` per 31 KiB rather than per round, about 5 % of a single bulk TLS
/// transfer's throughput (docs/https.md). Keeping the added flushes from the socket (tried) saved
/// the syscalls but not the CPU: NIOSSL then needs a fresh buffer for each flush, as the socket
/// still holds the last one.
///
/// The promise of a split write goes with its last slice; the writes reach TLS in order, so it
/// completes once all of them are on the socket. Event loop only.
public final class TLSWriteBudget: ChannelOutboundHandler, RemovableChannelHandler {
    public typealias OutboundIn = ByteBuffer
    public typealias OutboundOut = ByteBuffer

    /// The outbound buffer's size to stay within: `NIOSSLHandler`'s starts at 16 KiB and grows by
    /// doubling, and a single full record (16 KiB and its framing) takes it to 32 KiB.
    public static let outboundBufferSize = 32 * 1024
    /// The ciphertext of application data one flush may make: the buffer less 1 KiB for what TLS
    /// itself adds to a flush (a TLS 1.3 server's session tickets go out with the first
    /// application data, about 400 bytes with BoringSSL).
    public static let defaultCapacity = outboundBufferSize - 1024
    /// The most framing a record adds: TLS 1.2 with AES-GCM (5-byte header, 8-byte explicit
    /// nonce, 16-byte tag); TLS 1.3 adds 22.
    public static let recordOverhead = 29
    /// The largest plaintext of one record.
    public static let recordSize = 16 * 1024

    /// The ciphertext of application data one flush may make when every flush is to stay within
    /// NIOSSL's initial 16 KiB outbound buffer: one record less 512 bytes of room for what TLS adds
    /// (a TLS 1.3 server's session tickets). HTTP/2 tunnels use it (``narrow(to:)``): a write per
    /// 16 KiB rather than per 31 KiB, for 16 KiB less per idle connection after large bodies.
    public static let oneRecordCapacity = recordSize - 512

    /// The ciphertext one flush may make.
    public private(set) var capacity: Int
    /// Ciphertext that what was written since the last flush will make, at most.
    private var pending = 0
    /// Flushes this handler added.
    public private(set) var addedFlushes = 0

    /// A budget of `capacity` bytes of ciphertext per flush.
    public init(capacity: Int = TLSWriteBudget.defaultCapacity) {
        precondition(capacity > 2 * Self.recordOverhead, "a TLS write budget must hold a record")
        self.capacity = capacity
    }

    /// Lowers the budget from the next write on (the next write flushes what waits first if that
    /// no longer fits). A budget only narrows: NIOSSL's outbound buffer keeps the largest size it
    /// reached. Event loop only.
    public func narrow(to newCapacity: Int) {
        precondition(newCapacity > 2 * Self.recordOverhead, "a TLS write budget must hold a record")
        capacity = min(capacity, newCapacity)
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
