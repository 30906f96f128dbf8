import Dispatch
import NIOCore
import RangeTapCore
import RangeTapCurl
import RangeTapReplay
import RangeTapSystem
import Synchronization

/// The upstream half of an exchange a `--map` rule answers: instead of libcurl, a file read
/// with the range engine's plan (``RangeAnswerPlanner``), delivered to the driver as an origin's
/// messages (head, body pieces, end), so the client side, `--shape`, `--fault` rules, cancels
/// and the capture treat it as any response. Recorded as any response (its `response` and
/// `chunk` events; `received` counts the bytes read from the file), with a `fault` event of
/// action `map` saying which rule and what was answered.
///
/// The file is read on one serial queue shared by every mapped transfer, in pieces of at most
/// ``piece`` bytes, each admitted by the exchange's ``FlowControl`` first: a full window pauses
/// the reading until the client's writes drain it, as a paused libcurl transfer does.
final class MappedTransfer: UpstreamTransfer, @unchecked Sendable {
    let id: Int
    let connection: Int
    let flow: FlowControl
    private let context: RecordingContext
    private let rule: MapRule
    private let captures: [String: CapturedResources]
    private let deliver: @Sendable (UpstreamMessage) -> Void
    private let aborted = Atomic<Bool>(false)
    /// Why the driver stopped the transfer (``stop(_:)``), if it did.
    private let stopReason = Mutex<ErrorEvent?>(nil)

    /// Where every mapped transfer reads: file reads never run on an event loop.
    private static let queue = DispatchQueue(label: "rangetap-map")
    /// The largest piece read at once.
    static let piece = 256 * 1024

    // Queue only.
    private var parts: [RangeAnswer.Part] = []
    private var partIndex = 0
    private var partDone: Int64 = 0
    private var sent: Int64 = 0
    private var fd: Int32 = -1
    private var target: MapTarget?
    private var resourceBase: Int64?
    private var waiting = false
    private var done = false

    init(
        id: Int, connection: Int, share: ConnectionShare?, context: RecordingContext, rule: MapRule,
        captures: [String: CapturedResources], deliver: @escaping @Sendable (UpstreamMessage) -> Void
    ) {
        self.id = id
        self.connection = connection
        self.context = context
        self.rule = rule
        self.captures = captures
        self.deliver = deliver
        flow = FlowControl(
            highWater: context.configuration.flowHighWater, lowWater: context.configuration.flowLowWater,
            budget: context.bodyBudget, share: share)
        context.liveExchanges.add(1, ordering: .relaxed)
        flow.onWake { [weak self] in self?.resume() }
    }

    deinit {
        flow.close()
        if fd >= 0 { System.close(fd) }
        context.liveExchanges.subtract(1, ordering: .relaxed)
    }

    func start(_ request: CurlRequest) {
        Self.queue.async { self.begin(request) }
    }

    func abort() {
        aborted.store(true, ordering: .relaxed)
        Self.queue.async { self.finish() }
    }

    func stop(_ failure: ErrorEvent) {
        stopReason.withLock { $0 = failure }
        Self.queue.async { self.finish() }
    }

    func resume() {
        Self.queue.async {
            guard self.waiting, !self.done else { return }
            self.waiting = false
            self.context.writer.record(.resume(FlowEvent(t: self.context.clock.now(), exchange: self.id)))
            self.pump()
        }
    }

    // MARK: Queue

    /// The value of the request's first field `name`, from the lines that would go upstream.
    private static func field(_ name: String, in lines: [String]) -> String? {
        for line in lines {
            guard let colon = line.firstIndex(of: ":"), line[..<colon].lowercased() == name else { continue }
            return String(line[line.index(after: colon)...]).trimmingHTTPSpaces
        }
        return nil
    }

    private func begin(_ request: CurlRequest) {
        let answer: RangeAnswer
        var source = "nothing"
        switch MapTarget.resolve(rule, url: request.url, captures: captures) {
        case .success(let target):
            answer = RangeAnswerPlanner.answer(
                method: request.method, range: Self.field("range", in: request.headers),
                ifRange: Self.field("if-range", in: request.headers), representation: target.representation,
                who: "rangetap --map '\(rule.text)'")
            source = target.origin
            self.target = target
            if case .file(let path) = target.bytes,
                answer.body.contains(where: { if case .resource = $0 { true } else { false } })
            {
                do {
                    fd = try System.openForReading(path)
                } catch {
                    fail("cannot read \(path) for --map '\(rule.text)': \(error)")
                    return
                }
            }
        case .failure(let miss):
            answer = .text(404, "rangetap --map '\(rule.text)': \(miss.reason)\n")
        }
        let range = answer.field("Content-Range").map { " [\($0)]" } ?? ""
        context.recordFault(
            exchange: id, rule: rule.text, action: "map",
            detail: "answered \(answer.status)\(range) from \(source), the origin not asked")
        var lines = ["HTTP/1.1 \(answer.status) \(RangeAnswer.reason(answer.status))"]
        lines += answer.fields.map { "\($0.name): \($0.value)" }
        lines += [
            "Content-Length: \(answer.contentLength)",
            "Date: \(HTTPDate.format(System.wallClockNanoseconds() / 1_000_000_000))", "",
        ]
        let head = lines.map { HeaderLine(raw: $0 + "\r\n") }
        context.writer.record(
            .response(
                ResponseEvent(
                    t: context.clock.now(), exchange: id, status: answer.status, lines: head, reused: nil,
                    upstreamPort: nil)))
        if answer.status == 206, let cr = answer.field("Content-Range"), let parsed = try? ContentRange.parse(cr) {
            resourceBase = parsed.range?.first
        } else if answer.status == 200 {
            resourceBase = 0
        }
        deliver(.head(head))
        parts = request.method == "HEAD" ? [] : answer.body
        pump()
    }

    /// Reads and passes on pieces until the body is sent, the window is full, or the client left.
    private func pump() {
        while !done {
            if aborted.load(ordering: .relaxed) || stopReason.withLock({ $0 }) != nil {
                finish()
                return
            }
            guard partIndex < parts.count else {
                done = true
                deliver(.end(trailers: [], UpstreamOutcome(t: context.clock.now(), received: sent)))
                return
            }
            let part = parts[partIndex]
            let n = Int(min(Int64(Self.piece), part.count - partDone))
            if n == 0 {
                partIndex += 1
                partDone = 0
                continue
            }
            guard flow.admit(n) else {
                waiting = true
                context.writer.record(.pause(FlowEvent(t: context.clock.now(), exchange: id)))
                return
            }
            let t = context.clock.now()
            var buffer = context.allocator.buffer(capacity: n)
            switch part {
            case .literal(let bytes):
                buffer.writeBytes(bytes[Int(partDone)..<Int(partDone) + n])
            case .resource(let span):
                let offset = span.lowerBound + partDone
                guard read(offset..<offset + Int64(n), into: &buffer) else {
                    fail("the source of --map '\(rule.text)' ended or failed at byte \(offset) while it was being sent")
                    return
                }
            }
            partDone += Int64(n)
            let chunk = ChunkEvent(
                t: t, exchange: id, size: n, offset: sent,
                resourceOffset: resourceBase.map { $0.addingSaturating(sent) },
                bodyOffset: nil)
            sent += Int64(n)
            context.writer.record(chunk, bytes: buffer)
            deliver(.body(buffer))
        }
    }

    /// Appends the bytes of `range` of the representation to `buffer`; false when they could not all be read.
    private func read(_ range: Range<Int64>, into buffer: inout ByteBuffer) -> Bool {
        let n = Int(range.count)
        switch target?.bytes {
        case .file?:
            let got = buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: n) { raw in
                (try? System.read(
                    fd, into: UnsafeMutableRawBufferPointer(rebasing: raw.prefix(n)), at: range.lowerBound))
                    ?? 0
            }
            return got == n
        case .capture(let resources, let url)?:
            guard let bytes = try? resources.read(url, range), bytes.count == n else { return false }
            buffer.writeBytes(bytes)
            return true
        case nil:
            return false
        }
    }

    /// The transfer stopped before its end: the client left, or the driver stopped it.
    private func finish() {
        guard !done else { return }
        done = true
        let now = context.clock.now()
        if let failure = stopReason.withLock({ $0 }), !aborted.load(ordering: .relaxed) {
            var event = failure
            event.received = sent
            deliver(.failed(failure.message, timedOut: false, UpstreamOutcome(t: now, received: sent, failure: event)))
        } else {
            deliver(.failed("the client left", timedOut: false, UpstreamOutcome(t: now, received: sent)))
        }
    }

    /// The file could not be read: the exchange fails as an upstream would.
    private func fail(_ message: String) {
        done = true
        let now = context.clock.now()
        let event = ErrorEvent(
            t: now, exchange: id, connection: connection, kind: .upstream, message: message, received: sent,
            status: 502)
        deliver(.failed(message, timedOut: false, UpstreamOutcome(t: now, received: sent, failure: event)))
    }
}

/// The upstream of mapped exchanges: a ``MappedTransfer`` per exchange, answering from `rule`
/// (with `captures`, the indexed captures of `capture=` rules).
struct MappedUpstream: UpstreamConnector {
    let rule: MapRule
    let captures: [String: CapturedResources]

    func transfer(
        id: Int, connection: Int, share: ConnectionShare?, context: RecordingContext,
        deliver: @escaping @Sendable (UpstreamMessage) -> Void
    ) -> any UpstreamTransfer {
        MappedTransfer(
            id: id, connection: connection, share: share, context: context, rule: rule, captures: captures,
            deliver: deliver)
    }

    var activeTransfers: Int { 0 }

    func shutdown() {}
}
