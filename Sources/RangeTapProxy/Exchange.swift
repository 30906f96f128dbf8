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
        case head(status: Int, headers: HTTPHeaders)
        case body(ByteBuffer)
        case end
        case failed(String)
    }

    let id: Int
    let connection: Int
    let context: RecordingContext
    let flow: FlowControl
    private let loop: any EventLoop
    private let deliver: @Sendable (Exchange, Message) -> Void
    private let cancelInfo = Mutex<(t: CaptureTime, delivered: Int64, sendBuffer: Int?)?>(nil)
    private(set) var transfer: CurlTransfer?

    // Upstream thread only.
    private var assembler = UpstreamHeadAssembler()
    /// Bytes of the current round, not yet passed on, and when they began to arrive.
    private var pending: ByteBuffer?
    private var pendingSince: CaptureTime = 0
    private var received: Int64 = 0
    private var resourceBase: Int64?
    private var status = 0

    init(id: Int, connection: Int, context: RecordingContext, loop: any EventLoop, deliver: @escaping @Sendable (Exchange, Message) -> Void) {
        self.id = id
        self.connection = connection
        self.context = context
        self.loop = loop
        self.deliver = deliver
        self.flow = FlowControl(highWater: context.configuration.flowHighWater, lowWater: context.configuration.flowLowWater)
    }

    /// Starts the upstream transfer.
    func start(_ request: CurlRequest) {
        let t = CurlTransfer(request: request, delegate: self)
        transfer = t
        context.multi.start(t)
    }

    /// Event loop: the client went away having accepted `delivered` body bytes.
    func cancel(delivered: Int64, sendBuffer: Int?) {
        cancelInfo.withLock { $0 = (context.clock.now(), delivered, sendBuffer) }
        if let transfer { context.multi.cancel(transfer) }
    }

    /// Event loop: resume a transfer paused for back-pressure.
    func resume() {
        if let transfer { context.multi.unpause(transfer) }
    }

    // MARK: CurlTransferDelegate (upstream thread)

    func transfer(_ transfer: CurlTransfer, didReceiveHeaderLine line: UnsafeRawBufferPointer) {
        let now = context.clock.now()
        switch assembler.add(Latin1.string(line)) {
        case .none:
            break
        case .interim(let status, let lines):
            context.writer.record(.interim(ResponseEvent(t: now, exchange: id, status: status, lines: context.redact(lines), reused: nil, upstreamPort: nil)))
        case .final(let status, let lines):
            self.status = status
            let info = transfer.connectionInfo()
            context.writer.record(.response(ResponseEvent(t: now, exchange: id, status: status, lines: context.redact(lines), reused: info?.reused, upstreamPort: info?.localPort)))
            if status == 206, let cr = lines.first(named: "Content-Range"), let parsed = try? ContentRange.parse(cr) {
                resourceBase = parsed.range?.first
            } else if status == 200 {
                resourceBase = 0
            }
            deliver(self, .head(status: status, headers: HeaderForwarding.clientResponseHeaders(lines)))
        }
    }

    func transfer(_ transfer: CurlTransfer, didReceiveBody bytes: UnsafeRawBufferPointer) -> CurlWriteDecision {
        if cancelInfo.withLock({ $0 != nil }) { return .abort }
        guard flow.admit(bytes.count) else {
            passOn()
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

    /// Records the gathered bytes as one chunk and sends them to the client's event loop.
    private func passOn() {
        guard let buffer = pending, buffer.readableBytes > 0 else { return }
        pending = nil
        let size = buffer.readableBytes
        let chunk = ChunkEvent(t: pendingSince, exchange: id, size: size, offset: received, resourceOffset: resourceBase.map { $0 + received }, bodyOffset: nil)
        received += Int64(size)
        context.writer.recordChunk(chunk, bytes: buffer)
        deliver(self, .body(buffer))
    }

    func transfer(_ transfer: CurlTransfer, didFinish result: CurlResult) {
        let now = context.clock.now()
        switch (result, cancelInfo.withLock { $0 }) {
        case (.ok, let cancel):
            // libcurl finished the transfer: an end, even if the client closed meanwhile (it may
            // have had every byte: it closes as soon as Content-Length is reached).
            passOn()
            context.writer.record(.end(EndEvent(t: now, exchange: id, bytes: received, sha256: "", trailers: context.redact(assembler.trailers), delivered: cancel?.delivered)))
            deliver(self, .end)
        case (_, let cancel?):
            pending = nil
            context.writer.record(.cancel(CancelEvent(t: cancel.t, exchange: id, delivered: cancel.delivered, received: received, sendBuffer: cancel.sendBuffer, sha256: "")))
        case (.failed(let code, let message), nil):
            passOn()
            let text = "upstream failed: \(message) (curl error \(code))"
            context.writer.record(.error(ErrorEvent(t: now, exchange: id, connection: connection, kind: "upstream", message: text, curlCode: code, received: received, status: assembler.finalReceived ? nil : 502)))
            deliver(self, .failed(text))
        case (.cancelled, nil):
            // Cancelled without a client close: the proxy is shutting down.
            passOn()
            context.writer.record(.error(ErrorEvent(t: now, exchange: id, connection: connection, kind: "interrupted", message: "rangetap stopped before the response ended", received: received)))
            deliver(self, .failed("rangetap is shutting down"))
        }
    }

}
