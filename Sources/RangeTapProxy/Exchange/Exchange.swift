import Foundation
import NIOCore
import NIOHTTP1
import RangeTapCore
import RangeTapCurl
import Synchronization

/// One proxied request's upstream half: the libcurl delegate on the upstream thread, and the
/// messages it posts to its client connection's event loop, where ``ExchangeStateMachine``
/// decides what they mean (including, with the client's side, whether the exchange ended or
/// was cancelled).
///
/// On the upstream thread, per libcurl write callback: a flow-control check and one copy of the
/// bytes into the `ByteBuffer` that goes to the client. Per round of `curl_multi_perform` (the
/// bytes that arrived together): one chunk event queued to the capture writer, sharing that
/// buffer, and one task posted to the event loop. Nothing is logged, nothing waits on disk.
final class Exchange: UpstreamTransfer, CurlTransferDelegate, @unchecked Sendable {

    let id: Int
    let connection: Int
    let context: RecordingContext
    let flow: FlowControl
    private let multi: CurlMulti
    private let deliver: @Sendable (UpstreamMessage) -> Void
    /// Set when the client side gave up on the exchange: the upstream thread stops reading.
    private let aborted = Atomic<Bool>(false)
    /// Cleared when libcurl lets go of the transfer, so the two never keep each other alive.
    private let transferRef = Mutex<CurlTransfer?>(nil)
    /// Why the driver stopped the transfer (``stop(_:)``), if it did.
    private let stopReason = Mutex<ErrorEvent?>(nil)
    /// The client's request body as it streams (set at the start, before the multi thread runs).
    private var body: RequestBody?

    // Upstream thread only.
    private var assembler = ResponseHeadAssembler()
    /// Bytes of the current round, not yet passed on, and when they began to arrive.
    private var pending: ByteBuffer?
    private var pendingSince: CaptureTime = 0
    /// How large the next round's buffer is made.
    private var sizer: RoundSizer
    private var received: Int64 = 0
    private var resourceBase: Int64?
    private var status = 0
    private var interimCount = 0
    /// At most this many interim (1xx) heads are recorded per exchange.
    static let maxInterimRecorded = 100

    init(
        id: Int, connection: Int, share: ConnectionShare?, context: RecordingContext, multi: CurlMulti,
        deliver: @escaping @Sendable (UpstreamMessage) -> Void
    ) {
        self.id = id
        self.connection = connection
        self.context = context
        self.multi = multi
        self.deliver = deliver
        self.flow = FlowControl(
            highWater: context.configuration.flowHighWater, lowWater: context.configuration.flowLowWater,
            budget: context.bodyBudget, share: share)
        self.sizer = RoundSizer(largest: context.configuration.upstreamBufferSize)
        context.liveExchanges.add(1, ordering: .relaxed)
        // Woken by the budget when another exchange's bytes drained (any thread; the multi
        // thread takes the unpause).
        flow.onWake { [weak self] in self?.resume() }
    }

    deinit {
        flow.close()
        context.liveExchanges.subtract(1, ordering: .relaxed)
    }

    /// Starts the upstream transfer.
    func start(_ request: CurlRequest) {
        let t = CurlTransfer(request: request, delegate: self)
        transferRef.withLock { $0 = t }
        if let body = request.bodySource as? RequestBody {
            self.body = body
            let multi = self.multi
            body.onBytes { [weak t] in if let t { multi.unpauseSending(t) } }
        }
        multi.start(t)
    }

    /// Event loop: the client left mid-response: abort the upstream transfer. Its end comes back
    /// as a `.failed` message (or `.end`, when libcurl had finished first).
    func abort() {
        aborted.store(true, ordering: .relaxed)
        if let transfer = transferRef.withLock({ $0 }) { multi.cancel(transfer) }
    }

    /// Event loop: the client's request failed on the way; the transfer ends with `failure`.
    func stop(_ failure: ErrorEvent) {
        stopReason.withLock { $0 = failure }
        if let transfer = transferRef.withLock({ $0 }) { multi.cancel(transfer) }
    }

    /// Event loop: resume a transfer paused for back-pressure.
    func resume() {
        if let transfer = transferRef.withLock({ $0 }) { multi.unpause(transfer) }
    }

    // MARK: CurlTransferDelegate (upstream thread)

    func transfer(_ transfer: CurlTransfer, didReceiveHeaderLine line: UnsafeRawBufferPointer) {
        switch assembler.add(HeaderLine(raw: Latin1.string(line))) {
        case .none:
            break
        case .interim(let head):
            // The time of the head's last line (this callback), read only when a head is complete.
            let now = context.clock.now()
            let (status, lines) = (head.status, head.lines)
            interimCount += 1
            // Bounded: an origin that sends 1xx heads forever fills neither the capture nor the client.
            guard interimCount <= Self.maxInterimRecorded else { return }
            context.writer.record(
                .interim(
                    ResponseEvent(
                        t: now, exchange: id, status: status, lines: context.redact(lines), reused: nil,
                        upstreamPort: nil)))
            deliver(.interim(lines))
        case .final(let head):
            let now = context.clock.now()
            let (status, lines) = (head.status, head.lines)
            self.status = status
            sizer.bodyLength = lines.first(named: "Content-Length").flatMap(ContentLength.parse)
            let info = transfer.connectionInfo()
            context.writer.record(
                .response(
                    ResponseEvent(
                        t: now, exchange: id, status: status, lines: context.redact(lines), reused: info?.reused,
                        upstreamPort: info?.localPort)))
            if status == 206, let cr = lines.first(named: "Content-Range"), let parsed = try? ContentRange.parse(cr) {
                resourceBase = parsed.range?.first
            } else if status == 200 {
                resourceBase = 0
            }
            deliver(.head(lines))
        }
    }

    func transfer(_ transfer: CurlTransfer, didReceiveBody bytes: UnsafeRawBufferPointer) -> CurlWriteDecision {
        if aborted.load(ordering: .relaxed) { return .abort }
        if transfer.deliveringHeld {
            flow.admitHeld(bytes.count)
        } else if !flow.admit(bytes.count) {
            passOn()
            context.writer.record(.pause(FlowEvent(t: context.clock.now(), exchange: id)))
            return .pause
        }
        // libcurl hands one socket read over in 16 KiB calls: gather them (the one copy, into
        // the buffer that goes to the client) and pass them on together when the round ends.
        if let p = pending, p.writableBytes < bytes.count { passOn(filled: true) }
        if pending == nil {
            pending = context.allocator.buffer(capacity: sizer.capacity(first: bytes.count, received: received))
            pendingSince = context.clock.now()
        }
        pending!.writeBytes(bytes)
        return .consumed
    }

    func transferDidEndRound(_ transfer: CurlTransfer) {
        passOn()
    }

    func transferWillResume(_ transfer: CurlTransfer) {
        context.writer.record(.resume(FlowEvent(t: context.clock.now(), exchange: id)))
    }

    /// Records the gathered bytes as one chunk and sends them to the client's event loop;
    /// `filled` when the round's buffer had no room left for the next callback.
    private func passOn(filled: Bool = false) {
        guard let buffer = pending, buffer.readableBytes > 0 else { return }
        pending = nil
        let size = buffer.readableBytes
        sizer.roundEnded(size: size, filled: filled)
        let chunk = ChunkEvent(
            t: pendingSince, exchange: id, size: size, offset: received,
            resourceOffset: resourceBase.map { $0.addingSaturating(received) }, bodyOffset: nil)
        received += Int64(size)
        context.writer.record(chunk, bytes: buffer)
        deliver(.body(buffer))
    }

    func transfer(_ transfer: CurlTransfer, didFinish result: CurlResult) {
        transferRef.withLock { $0 = nil }
        body?.close()
        let now = context.clock.now()
        let clientLeft = aborted.load(ordering: .relaxed)
        if !clientLeft, let failure = stopReason.withLock({ $0 }), result != .ok {
            // The client's request failed on the way: its error, not the origin's.
            passOn()
            var event = failure
            event.received = received
            deliver(
                .failed(failure.message, timedOut: false, UpstreamOutcome(t: now, received: received, failure: event)))
            return
        }
        switch result {
        case .ok:
            // libcurl has the whole body; whether it is an end or a cancel depends on the client.
            passOn()
            deliver(
                .end(
                    trailers: assembler.trailers,
                    UpstreamOutcome(t: now, received: received, trailers: context.redact(assembler.trailers))))
        case .failed, .cancelled:
            if clientLeft {
                // Aborted because the client left: bytes not passed on were never delivered.
                pending = nil
                deliver(.failed("the client left", timedOut: false, UpstreamOutcome(t: now, received: received)))
            } else if case .failed(let code, let message) = result {
                passOn()
                let timedOut = code == CurlMulti.idleTimeoutCode
                let text =
                    "upstream failed: \(UpstreamFailure.describe(curlCode: code, message: message, headReceived: assembler.finalReceived))"
                let event = ErrorEvent(
                    t: now, exchange: id, connection: connection, kind: timedOut ? .upstreamTimeout : .upstream,
                    message: text, curlCode: code, received: received,
                    status: assembler.finalReceived ? nil : timedOut ? 504 : 502)
                deliver(.failed(text, timedOut: timedOut, UpstreamOutcome(t: now, received: received, failure: event)))
            } else {
                // Cancelled without a client close: the proxy is shutting down.
                passOn()
                let event = ErrorEvent(
                    t: now, exchange: id, connection: connection, kind: .interrupted,
                    message: "rangetap stopped before the response ended", received: received)
                deliver(
                    .failed(
                        "rangetap is shutting down", timedOut: false,
                        UpstreamOutcome(t: now, received: received, failure: event)))
            }
        }
    }
}
