import NIOCore
import RangeTapCore
import Synchronization

/// Decides the answer to each request of a ``FixtureServer``, for all its connections: finds the
/// recorded exchange (faithful) or plans the RFC 9110 response (ideal), as a
/// ``ResponseProgram`` of raw bytes and pauses; reads the capture's bytes; counts what was sent.
final class FixtureResponder: Sendable {
    private let exchanges: Mutex<RecordedExchanges>?
    private let planner: IdealPlanner?
    private let body: BodyFile?
    private let speed: Double
    private let counters = Mutex(FixtureServer.Traffic())
    /// Receives one line per answered request.
    let lineSink: (@Sendable (String) -> Void)?
    /// Keeps every answered request, when the server was asked to.
    let requestLog: RequestLog?
    /// Largest write of resource bytes in ideal mode.
    static let piece: Int64 = 256 * 1024

    /// A faithful responder.
    init(
        exchanges: RecordedExchanges, body: BodyFile?, speed: Double, lineSink: (@Sendable (String) -> Void)?,
        requestLog: RequestLog? = nil
    ) {
        self.requestLog = requestLog
        self.exchanges = Mutex(exchanges)
        planner = nil
        self.body = body
        self.speed = speed
        self.lineSink = lineSink
    }

    /// An ideal responder.
    init(index: ResourceIndex, lineSink: (@Sendable (String) -> Void)?, requestLog: RequestLog? = nil) {
        self.requestLog = requestLog
        exchanges = nil
        planner = IdealPlanner(index: index)
        body = nil
        speed = 0
        self.lineSink = lineSink
    }

    /// What has been served so far.
    var traffic: FixtureServer.Traffic { counters.withLock { $0 } }

    /// The program that answers `request`.
    func program(for request: FixtureRequest) -> ResponseProgram {
        counters.withLock { $0.requests += 1 }
        let program = planner.map { idealProgram($0.plan(request), for: request) } ?? faithfulProgram(for: request)
        if let missing = program.uncaptured {
            counters.withLock {
                $0.uncapturedRefusals += 1
                $0.recentRefusals = Array(($0.recentRefusals + [missing]).suffix(5))
            }
        }
        return program
    }

    /// The program for a request head that did not parse: a 400, then close.
    func badRequestProgram() -> ResponseProgram {
        counters.withLock { $0.requests += 1 }
        let text = "rangetap serve: the request could not be parsed as HTTP/1.1\n"
        let head =
            "HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: \(text.utf8.count)\r\nConnection: close\r\n\r\n"
        return ResponseProgram(
            steps: [.send(Array((head + text).utf8), body: text.utf8.count)], keepAlive: false,
            summary: "bad request -> 400", status: 400)
    }

    /// Counts a response starting (`+1`) or ending (`-1`).
    func active(_ delta: Int) { counters.withLock { $0.activeResponses += delta } }

    /// Counts body bytes written.
    func sent(_ bytes: Int) {
        if bytes > 0 { counters.withLock { $0.bodyBytes += Int64(bytes) } }
    }

    /// The bytes of a step that reads the capture: `body.bin` bytes (chunk-framed if asked), or
    /// up to ``piece`` bytes of a resource from `range.lowerBound`.
    func recordedBytes(offset: Int64, count: Int, chunked: Bool) throws(FixtureError) -> [UInt8] {
        guard let body else { throw .noBodies("the capture") }
        guard chunked else { return try body.read(at: offset, count: count) }
        var bytes = Array((String(count, radix: 16) + "\r\n").utf8)
        try body.read(at: offset, count: count, into: &bytes)
        bytes += [13, 10]
        return bytes
    }

    /// Up to ``piece`` bytes of `range` of the resource at `path`.
    func resourceBytes(path: String, range: Range<Int64>) throws(FixtureError) -> [UInt8] {
        guard let planner else { throw .capture("no resource index") }
        return try planner.index.read(
            path, range.lowerBound..<min(range.upperBound, range.lowerBound.addingSaturating(Self.piece)))
    }

    // MARK: Ideal

    private func idealProgram(_ response: RangeAnswer, for request: FixtureRequest) -> ResponseProgram {
        var steps: [ResponseProgram.Step] = [
            .send(response.head(keepAlive: request.keepAlive, http10: request.isHTTP10), body: 0)
        ]
        var sent: Int64 = 0
        if request.method != "HEAD" {
            for part in response.body {
                switch part {
                case .literal(let bytes): steps.append(.send(bytes, body: bytes.count))
                case .resource(let range): steps.append(.sendResource(path: request.path, range: range))
                }
                sent += part.count
            }
        }
        let summary =
            "\(request.summary) -> \(response.status)\(response.field("Content-Range").map { " [\($0)]" } ?? "") \(sent) B"
        return ResponseProgram(
            steps: steps, keepAlive: request.keepAlive, summary: summary, status: response.status,
            uncaptured: response.uncaptured)
    }

    // MARK: Faithful

    private func faithfulProgram(for request: FixtureRequest) -> ResponseProgram {
        guard
            let exchange = exchanges!.withLock({
                $0.match(method: request.method, origin: request.origin, path: request.path, range: request.range)
            })
        else {
            let text = exchanges!.withLock { $0.notFoundText(for: request) }
            let head =
                "HTTP/1.1 404 Not Found\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: \(text.utf8.count)\r\n\(request.keepAlive ? "" : "Connection: close\r\n")\r\n"
            return ResponseProgram(
                steps: [.send(Array((head + text).utf8), body: text.utf8.count)], keepAlive: request.keepAlive,
                summary: "\(request.summary) -> 404 (no such exchange in the capture)", status: 404)
        }
        // Every step at its recorded time after the request, scaled by the speed.
        let at = { (t: CaptureTime) -> ResponseProgram.Step? in
            guard self.speed > 0, t > exchange.requestAt else { return nil }
            return .pause(until: request.arrived + .nanoseconds(Int64(Double(t - exchange.requestAt) / self.speed)))
        }
        var steps: [ResponseProgram.Step] = []
        for interim in exchange.interims {
            if let p = at(interim.t) { steps.append(p) }
            steps.append(.send(interim.lines.flatMap { Latin1.bytes($0.raw) }, body: 0))
        }
        guard let response = exchange.response else {
            // The recording proxy answered by itself (a refused request, an unreachable upstream), or nothing came.
            if case .error(let t, let status?, let message) = exchange.ending {
                if let p = at(t) { steps.append(p) }
                let text = message + "\n"
                let head =
                    "HTTP/1.1 \(status) \(status == 502 ? "Bad Gateway" : "Error")\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: \(text.utf8.count)\r\nConnection: close\r\n\r\n"
                steps.append(.send(Array((head + text).utf8), body: text.utf8.count))
                return ResponseProgram(
                    steps: steps, keepAlive: false,
                    summary: "\(request.summary) -> \(status) as recorded (exchange \(exchange.id): \(message))",
                    status: status)
            }
            return ResponseProgram(
                steps: steps, keepAlive: false,
                summary: "\(request.summary) -> closed: exchange \(exchange.id) has no response head")
        }
        if let p = at(response.t) { steps.append(p) }
        steps.append(.send(response.lines.flatMap { Latin1.bytes($0.raw) }, body: 0))

        var sent: Int64 = 0
        let chunked = exchange.isChunked
        let withBody = exchange.hasBody(method: request.method)
        if withBody {
            if body == nil || exchange.missingBodies {
                return ResponseProgram(
                    steps: steps, keepAlive: false,
                    summary:
                        "\(request.summary) -> \(response.status), then closed: the capture has no body bytes for exchange \(exchange.id)",
                    status: response.status)
            }
            for chunk in exchange.chunks {
                if let p = at(chunk.t) { steps.append(p) }
                steps.append(.sendRecorded(offset: chunk.bodyOffset, count: chunk.size, chunked: chunked))
                sent += Int64(chunk.size)
            }
        }
        var keepAlive = request.keepAlive && !exchange.closesConnection
        switch exchange.ending {
        case .end(let t, let trailers):
            if let p = at(t) { steps.append(p) }
            if chunked && withBody {
                steps.append(
                    .send(Array("0\r\n".utf8) + trailers.flatMap { Latin1.bytes($0.raw) } + [13, 10], body: 0))
            }
        case .cancel(let t), .error(let t, _, _):
            // Cut short as recorded: what was recorded, then the connection closes.
            if let p = at(t) { steps.append(p) }
            keepAlive = false
        case .open:
            keepAlive = false
        }
        let summary =
            "\(request.summary) -> \(response.status) as recorded (exchange \(exchange.id)) \(sent) B\(keepAlive ? "" : ", then close")"
        return ResponseProgram(steps: steps, keepAlive: keepAlive, summary: summary, status: response.status)
    }
}
