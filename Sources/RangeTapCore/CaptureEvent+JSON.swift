import Foundation

extension CaptureEvent {
    /// The event as one line of `events.jsonl`, newline included.
    public func jsonLine() -> [UInt8] {
        var j = JSONLineBuilder()
        j.add("type", type)
        switch self {
        case .header(let h):
            j.add("version", h.version)
            j.add("tool", h.tool)
            j.add("startedAt", h.startedAt)
            j.add("startedAtUs", h.startedAtMicros)
            j.add("bodies", h.bodies)
            if !h.hashes { j.add("hashes", false) }
            j.add("redacted", h.redacted)
            j.add("listen", h.listen)
            j.add("upstream", h.upstream)
        case .connectionOpen(let e):
            j.add("t", e.t)
            j.add("conn", e.connection)
            j.add("peer", e.peer)
            j.add("sndbuf", e.sendBuffer)
        case .connectionClose(let e):
            j.add("t", e.t)
            j.add("conn", e.connection)
            j.add("by", e.by.rawValue)
            j.add("requests", e.requests)
        case .request(let e):
            j.add("t", e.t)
            j.add("ex", e.exchange)
            j.add("conn", e.connection)
            j.add("method", e.method)
            j.add("target", e.target)
            j.add("version", e.version)
            j.add("url", e.url)
            j.add("stream", e.stream)
            j.add("headers", e.headers)
        case .interim(let e), .response(let e):
            j.add("t", e.t)
            j.add("ex", e.exchange)
            j.add("status", e.status)
            j.add("reused", e.reused)
            j.add("upstreamPort", e.upstreamPort)
            j.add("lines", e.lines)
        case .chunk(let e):
            j.add("t", e.t)
            j.add("ex", e.exchange)
            j.add("size", e.size)
            j.add("off", e.offset)
            j.add("res", e.resourceOffset)
            j.add("at", e.bodyOffset)
        case .end(let e):
            j.add("t", e.t)
            j.add("ex", e.exchange)
            j.add("bytes", e.bytes)
            j.add("sha256", e.sha256)
            if !e.trailers.isEmpty { j.add("trailers", e.trailers) }
            j.add("delivered", e.delivered)
            j.add("deliveredBy", e.deliveredBy?.rawValue)
            j.add("consumed", e.consumed)
            j.add("served", e.served)
        case .cancel(let e):
            j.add("t", e.t)
            j.add("ex", e.exchange)
            j.add("delivered", e.delivered)
            j.add("received", e.received)
            j.add("sndbuf", e.sendBuffer)
            j.add("sha256", e.sha256)
            j.add("deliveredBy", e.deliveredBy?.rawValue)
            j.add("consumed", e.consumed)
        case .error(let e):
            j.add("t", e.t)
            j.add("ex", e.exchange)
            j.add("conn", e.connection)
            j.add("kind", e.kind.rawValue)
            j.add("message", e.message)
            j.add("curlCode", e.curlCode)
            j.add("received", e.received)
            j.add("sha256", e.sha256)
            j.add("status", e.status)
            j.add("delivered", e.delivered)
        case .tunnel(let e):
            j.add("t", e.t)
            j.add("opened", e.opened)
            j.add("ex", e.exchange)
            j.add("conn", e.connection)
            j.add("authority", e.authority)
            j.add("up", e.up)
            j.add("down", e.down)
            j.add("intercepted", e.intercepted)
        case .tls(let e):
            j.add("t", e.t)
            j.add("conn", e.connection)
            j.add("ex", e.exchange)
            j.add("authority", e.authority)
            j.add("outcome", e.outcome.rawValue)
            j.add("sni", e.serverName)
            j.add("version", e.version)
            j.add("alpn", e.alpn)
            j.add("cipher", e.cipher)
            j.add("reason", e.reason)
        case .pause(let e), .resume(let e):
            j.add("t", e.t)
            j.add("ex", e.exchange)
        case .fault(let e):
            j.add("t", e.t)
            j.add("ex", e.exchange)
            j.add("rule", e.rule)
            j.add("action", e.action)
            j.add("detail", e.detail)
            if let lines = e.lines { j.add("lines", lines) }
        case .shape(let e):
            j.add("t", e.t)
            j.add("spec", e.spec)
            j.add("trace", e.trace)
        case .delivered(let e):
            j.add("t", e.t)
            j.add("ex", e.exchange)
            j.add("bytes", e.bytes)
        }
        return j.finish()
    }

    /// Decodes one line of `events.jsonl`. Returns nil for an event type this build does not
    /// know (a newer minor addition), so readers can skip it; malformed lines are errors naming
    /// the line and the key.
    /// Numbers are checked too (see ``validate(lineNumber:)``): a negative size or an offset
    /// that overflows is an error, never a value handed on to range maths.
    public static func decode(
        jsonLine line: Data, lineNumber: Int, decoder: JSONDecoder = JSONDecoder()
    ) throws(CaptureError) -> CaptureEvent? {
        let event = try decodeUnchecked(jsonLine: line, lineNumber: lineNumber, decoder: decoder)
        try event?.validate(lineNumber: lineNumber)
        return event
    }

    private static func decodeUnchecked(
        jsonLine line: Data, lineNumber: Int, decoder: JSONDecoder
    ) throws(CaptureError) -> CaptureEvent? {
        if let chunk = ChunkLineParser.parse(line) { return .chunk(chunk) }
        let r: RawEvent
        do {
            r = try decoder.decode(RawEvent.self, from: line)
        } catch {
            throw CaptureError.malformedEvent(
                line: lineNumber, reason: CaptureLineDiagnosis.diagnose(line) ?? Self.describe(error))
        }
        func need<T>(_ v: T?, _ key: String) throws(CaptureError) -> T {
            guard let v else {
                throw CaptureError.malformedEvent(line: lineNumber, reason: "field \"\(key)\" is missing")
            }
            return v
        }
        func lines(_ a: [String]?) -> [HeaderLine] { (a ?? []).map(HeaderLine.init(raw:)) }
        switch r.type {
        case "capture":
            return .header(
                CaptureHeader(
                    version: try need(r.version, "version"), tool: try need(r.tool, "tool"),
                    startedAt: try need(r.startedAt, "startedAt"), startedAtMicros: r.startedAtUs,
                    bodies: try need(r.bodies, "bodies"), hashes: r.hashes ?? true,
                    redacted: try need(r.redacted, "redacted"), listen: try need(r.listen, "listen"),
                    upstream: r.upstream))
        case "conn.open":
            return .connectionOpen(
                ConnectionOpenEvent(
                    t: try need(r.t, "t"), connection: try need(r.conn, "conn"), peer: try need(r.peer, "peer"),
                    sendBuffer: r.sndbuf))
        case "conn.close":
            return .connectionClose(
                ConnectionCloseEvent(
                    t: try need(r.t, "t"), connection: try need(r.conn, "conn"),
                    by: ConnectionCloseEvent.Closer(rawValue: try need(r.by, "by")),
                    requests: try need(r.requests, "requests")))
        case "request":
            return .request(
                RequestEvent(
                    t: try need(r.t, "t"), exchange: try need(r.ex, "ex"), connection: try need(r.conn, "conn"),
                    method: try need(r.method, "method"), target: try need(r.target, "target"),
                    version: try need(r.version_, "version"), url: r.url,
                    headers: lines(try need(r.headers, "headers")), stream: r.stream))
        case "interim", "response":
            let e = ResponseEvent(
                t: try need(r.t, "t"), exchange: try need(r.ex, "ex"), status: try need(r.status, "status"),
                lines: lines(try need(r.lines, "lines")), reused: r.reused, upstreamPort: r.upstreamPort)
            return r.type == "interim" ? .interim(e) : .response(e)
        case "chunk":
            return .chunk(
                ChunkEvent(
                    t: try need(r.t, "t"), exchange: try need(r.ex, "ex"), size: try need(r.size, "size"),
                    offset: try need(r.off, "off"), resourceOffset: r.res, bodyOffset: r.at))
        case "end":
            return .end(
                EndEvent(
                    t: try need(r.t, "t"), exchange: try need(r.ex, "ex"), bytes: try need(r.bytes, "bytes"),
                    sha256: try need(r.sha256, "sha256"), trailers: lines(r.trailers), delivered: r.delivered,
                    deliveredBy: r.deliveredBy.flatMap(DeliveryMeasure.init(rawValue:)), consumed: r.consumed,
                    served: r.served))
        case "cancel":
            return .cancel(
                CancelEvent(
                    t: try need(r.t, "t"), exchange: try need(r.ex, "ex"),
                    delivered: try need(r.delivered, "delivered"), received: try need(r.received, "received"),
                    sendBuffer: r.sndbuf, sha256: try need(r.sha256, "sha256"),
                    deliveredBy: r.deliveredBy.flatMap(DeliveryMeasure.init(rawValue:)), consumed: r.consumed))
        case "error":
            return .error(
                ErrorEvent(
                    t: try need(r.t, "t"), exchange: r.ex, connection: r.conn,
                    kind: ErrorEvent.Kind(rawValue: try need(r.kind, "kind")), message: try need(r.message, "message"),
                    curlCode: r.curlCode, received: r.received ?? 0, sha256: r.sha256, status: r.status,
                    delivered: r.delivered))
        case "tunnel":
            return .tunnel(
                TunnelEvent(
                    t: try need(r.t, "t"), opened: try need(r.opened, "opened"), exchange: try need(r.ex, "ex"),
                    connection: try need(r.conn, "conn"), authority: try need(r.authority, "authority"),
                    up: try need(r.up, "up"), down: try need(r.down, "down"), intercepted: r.intercepted))
        case "tls":
            guard let outcome = TLSEvent.Outcome(rawValue: try need(r.outcome, "outcome")) else {
                throw CaptureError.malformedEvent(
                    line: lineNumber, reason: "field \"outcome\" must be established, rejected or failed")
            }
            return .tls(
                TLSEvent(
                    t: try need(r.t, "t"), connection: try need(r.conn, "conn"), exchange: try need(r.ex, "ex"),
                    authority: try need(r.authority, "authority"), outcome: outcome, serverName: r.sni,
                    version: r.version_, alpn: r.alpn, cipher: r.cipher, reason: r.reason))
        case "pause":
            return .pause(FlowEvent(t: try need(r.t, "t"), exchange: try need(r.ex, "ex")))
        case "resume":
            return .resume(FlowEvent(t: try need(r.t, "t"), exchange: try need(r.ex, "ex")))
        case "fault":
            return .fault(
                FaultEvent(
                    t: try need(r.t, "t"), exchange: try need(r.ex, "ex"), rule: try need(r.rule, "rule"),
                    action: try need(r.action, "action"), detail: try need(r.detail, "detail"),
                    lines: r.lines.map { lines($0) }))
        case "shape":
            return .shape(ShapeEvent(t: try need(r.t, "t"), spec: try need(r.spec, "spec"), trace: r.trace))
        case "delivered":
            return .delivered(
                DeliveredEvent(t: try need(r.t, "t"), exchange: try need(r.ex, "ex"), bytes: try need(r.bytes, "bytes"))
            )
        default:
            return nil
        }
    }

    private static func describe(_ error: any Error) -> String {
        if let e = error as? DecodingError {
            switch e {
            case .typeMismatch(_, let c), .valueNotFound(_, let c), .keyNotFound(_, let c), .dataCorrupted(let c):
                let path = c.codingPath.map(\.stringValue).joined(separator: ".")
                return path.isEmpty ? "not a valid event object" : "field \"\(path)\" has the wrong type"
            @unknown default:
                return "invalid JSON"
            }
        }
        return "invalid JSON"
    }
}

/// Every key any event may carry; the `type` says which must be present.
private struct RawEvent: Decodable {
    static let knownTypes: Set<String> = [
        "capture", "conn.open", "conn.close", "request", "interim", "response", "chunk", "end", "cancel", "error",
        "tunnel", "tls", "pause", "resume", "fault", "shape", "delivered",
    ]
    var type: String
    var t: Int64?
    var ex: Int?
    var conn: Int?
    // header
    var version: Int?
    var tool: String?
    var startedAt: String?
    var startedAtUs: Int64?
    var bodies: Bool?
    var hashes: Bool?
    var redacted: Bool?
    var listen: String?
    var upstream: String?
    // connections
    var peer: String?
    var sndbuf: Int?
    var by: String?
    var requests: Int?
    // request
    var method: String?
    var target: String?
    var version_: String?
    var url: String?
    var headers: [String]?
    // response
    var status: Int?
    var lines: [String]?
    var reused: Bool?
    var upstreamPort: Int?
    var stream: Int?
    // chunk
    var size: Int?
    var off: Int64?
    var res: Int64?
    var at: Int64?
    // end, cancel, error
    var bytes: Int64?
    var sha256: String?
    var trailers: [String]?
    var delivered: Int64?
    var deliveredBy: String?
    var consumed: Int64?
    var served: Int64?
    var received: Int64?
    var kind: String?
    var message: String?
    var curlCode: Int?
    // tunnel
    var opened: Int64?
    var authority: String?
    var up: Int64?
    var down: Int64?
    var intercepted: Bool?
    // tls
    var outcome: String?
    var sni: String?
    var alpn: String?
    var cipher: String?
    var reason: String?
    // fault, shape
    var rule: String?
    var action: String?
    var detail: String?
    var spec: String?
    var trace: String?

    enum CodingKeys: String, CodingKey {
        case type, t, ex, conn, tool, startedAt, startedAtUs, bodies, hashes, redacted, listen, upstream, peer, sndbuf,
            by, requests
        case method, target, url, headers, status, lines, reused, upstreamPort, size, off, res, at, stream
        case bytes, sha256, trailers, delivered, deliveredBy, consumed, served, received, kind, message, curlCode,
            opened,
            authority, up, down
        case intercepted, outcome, sni, alpn, cipher, reason
        case rule, action, detail, spec, trace
        case version
    }

    init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        type = try c.decode(String.self, forKey: .type)
        // An event type from a newer writer may use these keys differently: leave it undecoded.
        guard Self.knownTypes.contains(type) else { return }
        t = try c.decodeIfPresent(Int64.self, forKey: .t)
        ex = try c.decodeIfPresent(Int.self, forKey: .ex)
        conn = try c.decodeIfPresent(Int.self, forKey: .conn)
        // `version` is an integer in the header and a string such as "HTTP/1.1" in a request.
        if type == "request" || type == "tls" {
            version_ = try c.decodeIfPresent(String.self, forKey: .version)
        } else {
            version = try c.decodeIfPresent(Int.self, forKey: .version)
        }
        tool = try c.decodeIfPresent(String.self, forKey: .tool)
        startedAt = try c.decodeIfPresent(String.self, forKey: .startedAt)
        startedAtUs = try c.decodeIfPresent(Int64.self, forKey: .startedAtUs)
        bodies = try c.decodeIfPresent(Bool.self, forKey: .bodies)
        hashes = try c.decodeIfPresent(Bool.self, forKey: .hashes)
        redacted = try c.decodeIfPresent(Bool.self, forKey: .redacted)
        listen = try c.decodeIfPresent(String.self, forKey: .listen)
        upstream = try c.decodeIfPresent(String.self, forKey: .upstream)
        peer = try c.decodeIfPresent(String.self, forKey: .peer)
        sndbuf = try c.decodeIfPresent(Int.self, forKey: .sndbuf)
        by = try c.decodeIfPresent(String.self, forKey: .by)
        requests = try c.decodeIfPresent(Int.self, forKey: .requests)
        method = try c.decodeIfPresent(String.self, forKey: .method)
        target = try c.decodeIfPresent(String.self, forKey: .target)
        url = try c.decodeIfPresent(String.self, forKey: .url)
        headers = try c.decodeIfPresent([String].self, forKey: .headers)
        status = try c.decodeIfPresent(Int.self, forKey: .status)
        lines = try c.decodeIfPresent([String].self, forKey: .lines)
        reused = try c.decodeIfPresent(Bool.self, forKey: .reused)
        upstreamPort = try c.decodeIfPresent(Int.self, forKey: .upstreamPort)
        stream = try c.decodeIfPresent(Int.self, forKey: .stream)
        size = try c.decodeIfPresent(Int.self, forKey: .size)
        off = try c.decodeIfPresent(Int64.self, forKey: .off)
        res = try c.decodeIfPresent(Int64.self, forKey: .res)
        at = try c.decodeIfPresent(Int64.self, forKey: .at)
        bytes = try c.decodeIfPresent(Int64.self, forKey: .bytes)
        sha256 = try c.decodeIfPresent(String.self, forKey: .sha256)
        trailers = try c.decodeIfPresent([String].self, forKey: .trailers)
        delivered = try c.decodeIfPresent(Int64.self, forKey: .delivered)
        deliveredBy = try c.decodeIfPresent(String.self, forKey: .deliveredBy)
        consumed = try c.decodeIfPresent(Int64.self, forKey: .consumed)
        served = try c.decodeIfPresent(Int64.self, forKey: .served)
        received = try c.decodeIfPresent(Int64.self, forKey: .received)
        kind = try c.decodeIfPresent(String.self, forKey: .kind)
        message = try c.decodeIfPresent(String.self, forKey: .message)
        curlCode = try c.decodeIfPresent(Int.self, forKey: .curlCode)
        opened = try c.decodeIfPresent(Int64.self, forKey: .opened)
        authority = try c.decodeIfPresent(String.self, forKey: .authority)
        up = try c.decodeIfPresent(Int64.self, forKey: .up)
        down = try c.decodeIfPresent(Int64.self, forKey: .down)
        intercepted = try c.decodeIfPresent(Bool.self, forKey: .intercepted)
        outcome = try c.decodeIfPresent(String.self, forKey: .outcome)
        sni = try c.decodeIfPresent(String.self, forKey: .sni)
        alpn = try c.decodeIfPresent(String.self, forKey: .alpn)
        cipher = try c.decodeIfPresent(String.self, forKey: .cipher)
        reason = try c.decodeIfPresent(String.self, forKey: .reason)
        rule = try c.decodeIfPresent(String.self, forKey: .rule)
        action = try c.decodeIfPresent(String.self, forKey: .action)
        detail = try c.decodeIfPresent(String.self, forKey: .detail)
        spec = try c.decodeIfPresent(String.self, forKey: .spec)
        trace = try c.decodeIfPresent(String.self, forKey: .trace)
    }
}
