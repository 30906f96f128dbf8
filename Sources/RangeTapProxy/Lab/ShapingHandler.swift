import NIOCore
import RangeTapCore

/// First handler of a shaped client's pipeline (nearest the socket): every byte rangetap sends
/// the client waits until the link (``ShapedLink``) has carried it, plus the latency, then goes
/// to the socket in order. Below TLS and HTTP/2, so handshakes, heads and bodies of every
/// protocol cross the same link.
///
/// A write's promise completes when its last byte reached the socket, so the exchange's flow
/// window counts bytes still waiting here and the upstream transfer pauses as for a slow client:
/// memory stays bounded whatever the rate. A close waits for the queue to drain.
final class ShapingHandler: ChannelOutboundHandler, RemovableChannelHandler {
    typealias OutboundIn = IOData
    typealias OutboundOut = IOData

    private struct Piece {
        var buffer: ByteBuffer
        var promise: EventLoopPromise<Void>?
        var due: Int64
    }

    private let control: ShapeControl
    private var link: ShapedLink
    private var generation: Int
    /// Written, not yet flushed.
    private var unflushed: [(ByteBuffer, EventLoopPromise<Void>?)] = []
    /// Flushed and scheduled, in order.
    private var queue = CircularBuffer<Piece>()
    private var lastDue: Int64 = 0
    private var timer: Scheduled<Void>?
    private var timerDue: Int64 = .max
    private var pendingClose: (CloseMode, EventLoopPromise<Void>?)?

    init(control: ShapeControl) {
        self.control = control
        (link, generation) = control.linkForNewConnection()
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        guard case .byteBuffer(let buffer) = unwrapOutboundIn(data) else {
            context.write(data, promise: promise)
            return
        }
        unflushed.append((buffer, promise))
    }

    func flush(context: ChannelHandlerContext) {
        schedule()
        pump(context: context)
    }

    func close(context: ChannelHandlerContext, mode: CloseMode, promise: EventLoopPromise<Void>?) {
        if mode == .input || (queue.isEmpty && unflushed.isEmpty) {
            context.close(mode: mode, promise: promise)
            return
        }
        // Bytes already handed to the link still reach the client first, then the close.
        if pendingClose == nil {
            pendingClose = (mode, promise)
        } else {
            pendingClose!.1?.futureResult.cascade(to: promise)
        }
        schedule()
        pump(context: context)
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        timer?.cancel()
        for (_, promise) in unflushed { promise?.fail(ChannelError.ioOnClosedChannel) }
        unflushed = []
        while let piece = queue.popFirst() { piece.promise?.fail(ChannelError.ioOnClosedChannel) }
    }

    /// Puts the flushed writes on the link, cut into slices of a few milliseconds each.
    private func schedule() {
        guard !unflushed.isEmpty else { return }
        let current = control.current
        if current.generation != generation, control.scope == .connection {
            link.update(current.spec, nowNs: control.clock.now())
        }
        generation = current.generation
        let now = control.clock.now()
        let slice = link.sliceBytes
        for (var buffer, promise) in unflushed {
            if buffer.readableBytes == 0 {
                queue.append(Piece(buffer: buffer, promise: promise, due: max(lastDue, now)))
                continue
            }
            while buffer.readableBytes > 0 {
                let n = min(buffer.readableBytes, slice)
                let piece = buffer.readSlice(length: n)!
                // TCP does not reorder: jitter delays a slice, never past the one after it.
                let due = max(link.departure(bytes: n, nowNs: now), lastDue)
                lastDue = due
                queue.append(Piece(buffer: piece, promise: buffer.readableBytes == 0 ? promise : nil, due: due))
            }
        }
        unflushed = []
    }

    /// Writes every piece that is due, then sleeps until the next one.
    private func pump(context: ChannelHandlerContext) {
        let now = control.clock.now()
        var wrote = false
        // Within 200 µs counts as due: a timer that fires a little early does not spin.
        while let first = queue.first, first.due <= now + 200_000 {
            let piece = queue.removeFirst()
            context.write(wrapOutboundOut(.byteBuffer(piece.buffer)), promise: piece.promise)
            wrote = true
        }
        if wrote { context.flush() }
        if let next = queue.first {
            arm(at: next.due, context: context)
        } else if let (mode, promise) = pendingClose {
            pendingClose = nil
            context.close(mode: mode, promise: promise)
        }
    }

    private func arm(at due: Int64, context: ChannelHandlerContext) {
        if timer != nil, timerDue <= due { return }
        timer?.cancel()
        timerDue = due
        let loopBound = NIOLoopBound((self, context), eventLoop: context.eventLoop)
        let wait = max(0, due - control.clock.now())
        timer = context.eventLoop.scheduleTask(in: .nanoseconds(wait)) {
            let (handler, context) = loopBound.value
            handler.timer = nil
            handler.timerDue = .max
            handler.pump(context: context)
        }
    }
}

@available(*, unavailable)
extension ShapingHandler: Sendable {}
