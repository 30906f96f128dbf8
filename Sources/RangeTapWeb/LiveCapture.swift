import Foundation
import NIOCore
import NIOHTTP1
import RangeTapCore
import RangeTapMedia

/// A capture as it grows, read with the reader `inspect --follow` uses (``CaptureTail``,
/// ``CaptureAnalysisBuilder``), analysed again (media time included) at most every 0.5 s while
/// something changed, and sent to the page's event streams: what the page shows is what the
/// capture holds. Confined to one event loop: every method runs on ``loop``.
final class LiveCapture: @unchecked Sendable {
    let loop: any EventLoop
    private let path: String
    private let tail: CaptureTail
    private var builder: CaptureAnalysisBuilder
    private var analysis: CaptureAnalysis
    private var byID: [Int: Int] = [:]
    private let info: WebCaptureInfo
    /// Exchanges changed since the last analysis.
    private var dirty: Set<Int> = []
    private var changed = false
    private var lastAnalysis = DispatchTime(uptimeNanoseconds: 0)
    /// How long the last analysis took: the next waits at least four times that (and 0.5 s).
    private var analysisCost: UInt64 = 0
    private var streams: [ObjectIdentifier: any Channel] = [:]
    private var poller: RepeatedTask?
    private var quietTicks = 0
    private var readError: String?

    /// The shortest time between two updates: with the 100 ms poll, an event reaches the page
    /// within 0.5 s of being written (while an analysis costs under a quarter of this).
    static let interval: UInt64 = 400_000_000

    /// Told once when the capture cannot be read on.
    private let onReadError: @Sendable (String) -> Void

    init(
        path: String, live: Bool, loop: any EventLoop, onReadError: @escaping @Sendable (String) -> Void
    ) throws(WebError) {
        self.onReadError = onReadError
        self.path = path
        self.loop = loop
        do {
            tail = try CaptureTail(path: path)
        } catch {
            throw WebError("cannot read the capture \(path): \(error)")
        }
        builder = CaptureAnalysisBuilder(header: tail.header, keepChunks: true)
        analysis = builder.finish()
        info = WebCaptureInfo(
            path: path, tool: tail.header.tool, startedAt: tail.header.startedAt, live: live)
    }

    /// Reads what is there, then polls every 100 ms.
    func start() {
        loop.preconditionInEventLoop()
        poll(force: true)
        poller = loop.scheduleRepeatedTask(initialDelay: .milliseconds(100), delay: .milliseconds(100)) {
            [weak self] _ in
            self?.poll(force: false)
        }
    }

    func stop() {
        poller?.cancel()
        for channel in streams.values { channel.close(promise: nil) }
        streams = [:]
    }

    private func poll(force: Bool) {
        do {
            // What is there, in the tail's batches: all of it at the start, else up to 50 ms of
            // reading per poll (a large backlog is read over several polls).
            let started = DispatchTime.now().uptimeNanoseconds
            while true {
                let events = try tail.next()
                if events.isEmpty { break }
                changed = true
                for event in events {
                    builder.apply(event)
                    if let id = event.exchange { dirty.insert(id) }
                }
                if !force && DispatchTime.now().uptimeNanoseconds - started > 50_000_000 { break }
            }
        } catch {
            // Shown on the page as a finding and said once on stderr; what came before the bad
            // line stays on the page.
            if readError == nil {
                readError = "\(error)"
                changed = true
                onReadError("\(error)")
            }
        }
        let now = DispatchTime.now()
        let wait = max(Self.interval, analysisCost * 4)
        if changed && (force || now.uptimeNanoseconds - lastAnalysis.uptimeNanoseconds >= wait) {
            analyse()
            lastAnalysis = now
            analysisCost = DispatchTime.now().uptimeNanoseconds - now.uptimeNanoseconds
            changed = false
            if !force { send(event: "update", payload: update()) }
            dirty = []
            quietTicks = 0
        } else {
            quietTicks += 1
            if quietTicks >= 150 {  // 15 s without an update: keep proxies and browsers from timing out.
                quietTicks = 0
                for channel in streams.values { write(": ping\n\n", to: channel) }
            }
        }
    }

    private func analyse() {
        var a = builder.finish()
        if a.header.bodies, let reader = try? CaptureReader(path: path) {
            MediaAnalysis.addMedia(to: &a, reader: reader)
        }
        analysis = a
        byID = Dictionary(uniqueKeysWithValues: a.exchanges.enumerated().map { ($1.record.id, $0) })
    }

    private var exchanges: [CaptureAnalysis.Exchange] { analysis.exchanges.filter { $0.record.method != "CONNECT" } }

    private func summary() -> WebSummary { WebSummary(analysis, latest: builder.latest) }

    private func findings() -> [WebFinding] {
        let read = readError.map {
            [WebFinding(code: "capture-unreadable", sev: "error", ex: nil, msg: "the capture cannot be read on: \($0)")]
        }
        return (read ?? []) + (analysis.findings + analysis.exchanges.flatMap(\.findings)).map(WebFinding.init)
    }

    private func update() -> WebUpdate {
        let changed = dirty.sorted().compactMap { byID[$0].map { analysis.exchanges[$0] } }
            .filter { $0.record.method != "CONNECT" }
        return WebUpdate(exchanges: changed.map(WebExchange.init), findings: findings(), summary: summary())
    }

    /// Everything, for a page that just connected.
    func reset() -> WebReset {
        WebReset(
            capture: info, exchanges: exchanges.map(WebExchange.init), findings: findings(), summary: summary())
    }

    /// One exchange's detail; nil when the capture has no such exchange.
    func detail(_ id: Int) -> WebDetail? {
        byID[id].map { WebDetail(analysis.exchanges[$0]) }
    }

    /// Makes `channel` an event stream: the reset now, updates as they come, until it closes.
    func subscribe(_ channel: any Channel) {
        loop.preconditionInEventLoop()
        let key = ObjectIdentifier(channel)
        streams[key] = channel
        channel.closeFuture.hop(to: loop).whenComplete { [weak self] _ in self?.streams[key] = nil }
        write(Self.event("reset", reset()), to: channel)
    }

    private func send(event: String, payload: some Encodable) {
        guard !streams.isEmpty else { return }
        let text = Self.event(event, payload)
        for channel in streams.values { write(text, to: channel) }
    }

    private func write(_ text: String, to channel: any Channel) {
        let buffer = channel.allocator.buffer(string: text)
        channel.writeAndFlush(HTTPServerResponsePart.body(.byteBuffer(buffer)), promise: nil)
    }

    /// An SSE event: its name, then the JSON on one `data:` line.
    static func event(_ name: String, _ payload: some Encodable) -> String {
        let data = (try? JSONEncoder().encode(payload)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
        return "event: \(name)\ndata: \(data)\n\n"
    }
}
