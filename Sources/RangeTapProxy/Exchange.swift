import Foundation
import NIOCore
import NIOHTTP1
import RangeTapCore
import RangeTapCurl
import Synchronization

/// One proxied request: the libcurl delegate on the upstream thread, and the messages it
/// posts to its client connection's event loop.
///
/// On the upstream thread, per libcurl write callback: a flow-control check and one copy of the
/// bytes into the `ByteBuffer` that goes to the client. Per round of `curl_multi_perform` (the
/// bytes that arrived together): one chunk event queued to the capture writer, sharing that
/// buffer, and one task posted to the event loop. Nothing is logged, nothing waits on disk.
final class Exchange: CurlTransferDelegate, @unchecked Sendable {
    /// What the upstream thread tells the connection.
    enum Message {
        /// An interim (1xx) head, raw lines.
        case interim([HeaderLine])
        /// The final head, raw lines as libcurl delivered them.
        case head([HeaderLine])
        case body(ByteBuffer)
        /// The body ended; trailer lines, if the origin sent any.
        case end(trailers: [HeaderLine])
        /// The transfer failed; `timedOut` when the upstream went silent (504 rather than 502).
        case failed(String, timedOut: Bool)
    }

    /// What the client side knows when it is done with the exchange.
    struct ClientOutcome {
        /// When the client's close was seen, or when the last byte was seen acknowledged.
        var t: CaptureTime
        /// Body bytes that reached the client.
        var delivered: Int64
        /// How `delivered` was measured.
        var measure: DeliveryMeasure
        /// True when the client closed; false when it was seen to have every byte.
        var gone: Bool
        /// The client socket's send buffer.
        var sendBuffer: Int?
    }

    /// What libcurl said when it completed the transfer.
    private struct UpstreamEnd {
        var t: CaptureTime
        var received: Int64
        var trailers: [HeaderLine]
    }

    /// Decides, exactly once, whether the exchange is an `end` or a `cancel`: only when both
    /// halves are done. A client that closed before every byte reached it cancelled, even if
    /// libcurl had the whole body.
    private struct Settlement {
        var upstream: UpstreamEnd?
        var client: ClientOutcome?
        var recorded = false
    }

    let id: Int
    let connection: Int
    let context: RecordingContext
    let flow: FlowControl
    private let loop: any EventLoop
    private let deliver: @Sendable (Exchange, Message) -> Void
    private let settlement = Mutex(Settlement())
    /// Cleared when libcurl lets go of the transfer, so the two never keep each other alive.
    private let transferRef = Mutex<CurlTransfer?>(nil)

    // Upstream thread only.
    private var assembler = UpstreamHeadAssembler()
    /// Bytes of the current round, not yet passed on, and when they began to arrive.
    private var pending: ByteBuffer?
    private var pendingSince: CaptureTime = 0
    private var received: Int64 = 0
    private var resourceBase: Int64?
    private var status = 0
    private var interimCount = 0
    /// At most this many interim (1xx) heads are recorded per exchange.
    static let maxInterimRecorded = 100

    init(id: Int, connection: Int, context: RecordingContext, loop: any EventLoop, deliver: @escaping @Sendable (Exchange, Message) -> Void) {
        self.id = id
        self.connection = connection
        self.context = context
        self.loop = loop
        self.deliver = deliver
        self.flow = FlowControl(highWater: context.configuration.flowHighWater, lowWater: context.configuration.flowLowWater)
        context.liveExchanges.add(1, ordering: .relaxed)
    }

    deinit {
        context.liveExchanges.subtract(1, ordering: .relaxed)
    }

    /// Starts the upstream transfer.
    func start(_ request: CurlRequest) {
        let t = CurlTransfer(request: request, delegate: self)
        transferRef.withLock { $0 = t }
        context.multi.start(t)
    }

    /// Whether the client side has reported its outcome (upstream thread: stop reading).
    private var clientGone: Bool { settlement.withLock { $0.client?.gone == true } }

    /// Event loop: the client is done with this exchange: it closed (`gone`), or every body
    /// byte was seen to reach it. Records the end or cancel if libcurl is done too; otherwise a
    /// client that closed gets the upstream transfer aborted.
    func clientDone(_ outcome: ClientOutcome) {
        let event = settlement.withLock { s -> CaptureEvent? in
            guard s.client == nil else { return nil }
            s.client = outcome
            return Self.settle(&s, exchange: id)
        }
        if let event {
            context.writer.record(event)
        } else if outcome.gone, let transfer = transferRef.withLock({ $0 }) {
            context.multi.cancel(transfer)
        }
    }

    /// Event loop: resume a transfer paused for back-pressure.
    func resume() {
        if let transfer = transferRef.withLock({ $0 }) { context.multi.unpause(transfer) }
    }

    private static func settle(_ s: inout Settlement, exchange: Int) -> CaptureEvent? {
        guard !s.recorded, let u = s.upstream, let c = s.client else { return nil }
        s.recorded = true
        if c.gone && c.delivered < u.received {
            return .cancel(CancelEvent(t: c.t, exchange: exchange, delivered: c.delivered, received: u.received, sendBuffer: c.sendBuffer, sha256: "", deliveredBy: c.measure))
        }
        return .end(EndEvent(t: u.t, exchange: exchange, bytes: u.received, sha256: "", trailers: u.trailers, delivered: min(c.delivered, u.received), deliveredBy: c.measure))
    }

    // MARK: CurlTransferDelegate (upstream thread)

    func transfer(_ transfer: CurlTransfer, didReceiveHeaderLine line: UnsafeRawBufferPointer) {
        let now = context.clock.now()
        switch assembler.add(Latin1.string(line)) {
        case .none:
            break
        case .interim(let status, let lines):
            interimCount += 1
            // Bounded: an origin that sends 1xx heads forever fills neither the capture nor the client.
            guard interimCount <= Self.maxInterimRecorded else { return }
            context.writer.record(.interim(ResponseEvent(t: now, exchange: id, status: status, lines: context.redact(lines), reused: nil, upstreamPort: nil)))
            deliver(self, .interim(lines))
        case .final(let status, let lines):
            self.status = status
            let info = transfer.connectionInfo()
            context.writer.record(.response(ResponseEvent(t: now, exchange: id, status: status, lines: context.redact(lines), reused: info?.reused, upstreamPort: info?.localPort)))
            if status == 206, let cr = lines.first(named: "Content-Range"), let parsed = try? ContentRange.parse(cr) {
                resourceBase = parsed.range?.first
            } else if status == 200 {
                resourceBase = 0
            }
            deliver(self, .head(lines))
        }
    }

    func transfer(_ transfer: CurlTransfer, didReceiveBody bytes: UnsafeRawBufferPointer) -> CurlWriteDecision {
        if clientGone { return .abort }
        guard flow.admit(bytes.count) else {
            passOn()
            context.writer.record(.pause(FlowEvent(t: context.clock.now(), exchange: id)))
            return .pause
        }
        // libcurl hands one socket read over in 16 KiB calls: gather them (the one copy, into
        // the buffer that goes to the client) and pass them on together when the round ends.
        if let p = pending, p.writableBytes < bytes.count { passOn() }
        if pending == nil {
            pending = context.allocator.buffer(capacity: max(bytes.count, context.configuration.upstreamBufferSize))
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

    /// Records the gathered bytes as one chunk and sends them to the client's event loop.
    private func passOn() {
        guard let buffer = pending, buffer.readableBytes > 0 else { return }
        pending = nil
        let size = buffer.readableBytes
        let chunk = ChunkEvent(t: pendingSince, exchange: id, size: size, offset: received, resourceOffset: resourceBase.map { $0.addingSaturating(received) }, bodyOffset: nil)
        received += Int64(size)
        context.writer.recordChunk(chunk, bytes: buffer)
        deliver(self, .body(buffer))
    }

    func transfer(_ transfer: CurlTransfer, didFinish result: CurlResult) {
        transferRef.withLock { $0 = nil }
        let now = context.clock.now()
        switch result {
        case .ok:
            // libcurl has the whole body; whether it is an end or a cancel depends on the client.
            passOn()
            let event = settlement.withLock { s -> CaptureEvent? in
                s.upstream = UpstreamEnd(t: now, received: received, trailers: context.redact(assembler.trailers))
                return Self.settle(&s, exchange: id)
            }
            if let event {
                context.writer.record(event)
            } else {
                deliver(self, .end(trailers: assembler.trailers))
            }
        case .failed, .cancelled:
            let gone = settlement.withLock { s -> ClientOutcome? in
                guard !s.recorded else { return nil }
                s.recorded = true
                return s.client ?? ClientOutcome(t: now, delivered: 0, measure: .writes, gone: false)
            }
            guard let gone else { return }
            if gone.gone {
                pending = nil
                context.writer.record(.cancel(CancelEvent(t: gone.t, exchange: id, delivered: gone.delivered, received: received, sendBuffer: gone.sendBuffer, sha256: "", deliveredBy: gone.measure)))
            } else if case .failed(let code, let message) = result {
                passOn()
                let timedOut = code == CurlMulti.idleTimeoutCode
                let text = "upstream failed: \(UpstreamFailure.describe(curlCode: code, message: message, headReceived: assembler.finalReceived))"
                context.writer.record(.error(ErrorEvent(t: now, exchange: id, connection: connection, kind: timedOut ? "upstream-timeout" : "upstream", message: text, curlCode: code, received: received, status: assembler.finalReceived ? nil : timedOut ? 504 : 502)))
                deliver(self, .failed(text, timedOut: timedOut))
            } else {
                // Cancelled without a client close: the proxy is shutting down.
                passOn()
                context.writer.record(.error(ErrorEvent(t: now, exchange: id, connection: connection, kind: "interrupted", message: "rangetap stopped before the response ended", received: received)))
                deliver(self, .failed("rangetap is shutting down", timedOut: false))
            }
        }
    }
}
