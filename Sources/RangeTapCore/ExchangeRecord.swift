/// One request/response exchange, assembled from its events.
public struct ExchangeRecord: Sendable, Equatable {
    /// How the exchange ended.
    public enum Outcome: Sendable, Equatable {
        /// Still open (capture being written or cut off).
        case open
        /// The body ended as the origin framed it.
        case complete
        /// The client went away first.
        case cancelled
        /// A failure; the message says which.
        case failed(String)
    }

    /// Exchange id.
    public var id: Int
    /// Client connection id.
    public var connection: Int
    /// Method.
    public var method: String
    /// Request target as sent.
    public var target: String
    /// Upstream URL.
    public var url: String?
    /// The request's Range value, raw.
    public var requestRange: String?
    /// Request header lines.
    public var requestHeaders: [HeaderLine] = []
    /// Final status, if a response came.
    public var status: Int?
    /// Response lines as received.
    public var responseLines: [HeaderLine] = []
    /// Interim (1xx) statuses seen.
    public var interimStatuses: [Int] = []
    /// The response's Content-Range value, raw.
    public var contentRange: String?
    /// Whether the upstream connection was reused.
    public var upstreamReused: Bool?
    /// Upstream connection local port.
    public var upstreamPort: Int?
    /// Body chunks received (empty when the log does not keep them; see ``chunkCount``).
    public var chunks: [ChunkEvent] = []
    /// Number of body chunks received.
    public var chunkCount = 0
    /// Arrival time of the first body chunk.
    public var firstChunkAt: CaptureTime?
    /// Arrival time of the last body chunk.
    public var lastChunkAt: CaptureTime?
    /// The request's HTTP version (`HTTP/1.1`, `HTTP/1.0`, `HTTP/2`).
    public var requestVersion = "HTTP/1.1"
    /// The HTTP/2 stream id the request came on; nil for HTTP/1.x (and in older captures).
    public var stream: Int?
    /// Time the final response head arrived.
    public var responseAt: CaptureTime?
    /// Body bytes received from upstream.
    public var bytesReceived: Int64 = 0
    /// Body bytes accepted by the client socket (known for cancels).
    public var bytesDelivered: Int64?
    /// Body bytes rangetap answered itself instead of the origin's (a `--fault` `status=`
    /// answer's body, a `--map` answer's bytes); nil when it relayed the origin's.
    public var bytesServed: Int64?
    /// What kind of failure ended it (an `error` event's `kind`); nil unless it failed.
    public var failure: ErrorEvent.Kind?
    /// Body bytes the client was sent: rangetap's own (``bytesServed``) when it answered, else
    /// the origin's (``bytesReceived``).
    public var bytesSent: Int64 { bytesServed ?? bytesReceived }
    /// The word for ``bytesSent`` in messages: `served` when rangetap answered, else `received`.
    public var sentWord: String { bytesServed == nil ? "received" : "served" }
    /// Body bytes the client got: ``bytesDelivered`` where it was measured; else none for a
    /// cancel, and ``bytesSent`` otherwise.
    public var bytesToClient: Int64 { bytesDelivered ?? (outcome == .cancelled ? 0 : bytesSent) }
    /// SHA-256 of the bytes received.
    public var sha256: String?
    /// Request time.
    public var start: CaptureTime
    /// Time of the end, cancel or error.
    public var end: CaptureTime?
    /// How it ended.
    public var outcome: Outcome = .open
    /// Send buffer of the client socket on cancel.
    public var sendBuffer: Int?
    /// How ``bytesDelivered`` was measured.
    public var deliveredBy: DeliveryMeasure?
    /// HTTP/2 only: body bytes the client granted back with `WINDOW_UPDATE` (what its
    /// application consumed, late); a second figure beside ``bytesDelivered``.
    public var bytesConsumed: Int64?
    /// Nanoseconds the proxy held the upstream transfer paused for a slow client.
    public var pausedNs: Int64 = 0
    /// Start of the pause in progress, if any.
    public var pausedSince: CaptureTime?
    /// Faults injected into this exchange by `--fault` rules, in order.
    public var faults: [FaultEvent] = []
    /// Client-side delivery progress (written only while the link is shaped).
    public var deliveries: [DeliveredEvent] = []

    /// Whether a `--fault` rule changed what the client got: findings about this exchange are
    /// then the user's doing, not the origin's.
    public var injected: Bool { !faults.isEmpty }
    /// The response head as the client got it: the last head a fault rewrote, else the origin's.
    public var clientResponseLines: [HeaderLine] {
        faults.last(where: { $0.lines != nil })?.lines ?? responseLines
    }

    /// Duration in milliseconds, if ended.
    public var durationMs: Double? { end.map { Double($0.subtractingSaturating(start)) / 1e6 } }
    /// The request path (absolute-form targets reduced to their path).
    public var path: String {
        let parts = URLParts(target)
        guard parts.isAbsolute else { return target }
        return parts.rest.hasPrefix("/") ? String(parts.rest) : "/"
    }
}

extension ExchangeRecord {
    /// Ends the pause in progress at `t`, adding it to ``pausedNs``.
    mutating func closePause(at t: CaptureTime) {
        guard let since = pausedSince else { return }
        pausedSince = nil
        if t > since { pausedNs += t - since }
    }
}

/// Builds ``ExchangeRecord``s from a stream of events, in capture order.
public struct ExchangeLog: Sendable {
    /// Exchanges by id, as far as seen.
    public private(set) var exchanges: [Int: ExchangeRecord] = [:]
    /// Ids in order of their request.
    public private(set) var order: [Int] = []
    /// Errors not tied to an exchange (bad requests before a head was complete).
    public private(set) var connectionErrors: [ErrorEvent] = []
    /// Client connections opened.
    public private(set) var connections = 0
    /// CONNECT tunnels.
    public private(set) var tunnels: [TunnelEvent] = []
    /// TLS handshakes of intercepted tunnels, established or refused.
    public private(set) var handshakes: [TLSEvent] = []
    /// The shaping of the client link at the start and at each change (`record --shape`).
    public private(set) var shapes: [ShapeEvent] = []
    /// Whether to keep each chunk event in its record (off for long live sessions).
    public var keepChunks: Bool
    /// Whether to replace URL passwords in request targets and URLs with `<redacted>`
    /// (``URLRedaction``): on for captures marked `redacted`, so every report built from the
    /// records hides them even where the recorder kept them.
    public var redactsURLPasswords: Bool

    /// An empty log.
    public init(keepChunks: Bool = true, redactsURLPasswords: Bool = false) {
        self.keepChunks = keepChunks
        self.redactsURLPasswords = redactsURLPasswords
    }

    /// Applies one event; returns the exchange when this event finished it.
    @discardableResult
    public mutating func apply(_ event: CaptureEvent) -> ExchangeRecord? {
        switch event {
        case .header, .connectionClose: return nil
        case .connectionOpen:
            connections += 1
            return nil
        case .request(let r):
            let target = URLRedaction.redactingUserinfo(r.target, if: redactsURLPasswords)
            let url = r.url.map { URLRedaction.redactingUserinfo($0, if: redactsURLPasswords) }
            var rec = ExchangeRecord(
                id: r.exchange, connection: r.connection, method: r.method, target: target, url: url, start: r.t)
            rec.requestRange = r.headers.first(named: "Range")
            rec.requestHeaders = r.headers
            rec.requestVersion = r.version
            rec.stream = r.stream
            exchanges[r.exchange] = rec
            order.append(r.exchange)
            return nil
        case .interim(let r):
            exchanges[r.exchange]?.interimStatuses.append(r.status)
            return nil
        case .response(let r):
            update(r.exchange) { rec in
                rec.status = r.status
                rec.responseLines = r.lines
                rec.contentRange = r.lines.first(named: "Content-Range")
                rec.upstreamReused = r.reused
                rec.upstreamPort = r.upstreamPort
                rec.responseAt = r.t
            }
            return nil
        case .chunk(let c):
            let keepChunks = keepChunks
            update(c.exchange) { rec in
                // A `--map` answer's bytes are rangetap's own, not the origin's: served.
                if rec.isMapped {
                    rec.bytesServed = (rec.bytesServed ?? 0).addingSaturating(Int64(c.size))
                } else {
                    rec.bytesReceived = rec.bytesReceived.addingSaturating(Int64(c.size))
                }
                rec.chunkCount += 1
                if rec.firstChunkAt == nil { rec.firstChunkAt = c.t }
                rec.lastChunkAt = c.t
                if keepChunks { rec.chunks.append(c) }
            }
            return nil
        case .end(let e):
            return finish(e.exchange, t: e.t) { rec in
                rec.outcome = .complete
                rec.sha256 = e.sha256
                rec.bytesDelivered = e.delivered
                rec.deliveredBy = e.deliveredBy
                rec.bytesConsumed = e.consumed
                rec.bytesServed = e.served ?? rec.bytesServed
                rec.closePause(at: e.t)
            }
        case .cancel(let e):
            return finish(e.exchange, t: e.t) { rec in
                rec.outcome = .cancelled
                rec.bytesDelivered = e.delivered
                rec.sendBuffer = e.sendBuffer
                rec.sha256 = e.sha256
                rec.deliveredBy = e.deliveredBy
                rec.bytesConsumed = e.consumed
                rec.closePause(at: e.t)
            }
        case .error(var e):
            if redactsURLPasswords { e.message = URLRedaction.redactingURLPasswords(inText: e.message) }
            guard let ex = e.exchange, exchanges[ex] != nil else {
                connectionErrors.append(e)
                return nil
            }
            return finish(ex, t: e.t) { rec in
                rec.outcome = .failed(e.message)
                rec.failure = e.kind
                if let delivered = e.delivered { rec.bytesDelivered = delivered }
                rec.sha256 = e.sha256
                if rec.status == nil, let s = e.status { rec.status = s }
            }
        case .pause(let f):
            if exchanges[f.exchange] != nil, exchanges[f.exchange]!.pausedSince == nil {
                exchanges[f.exchange]!.pausedSince = f.t
            }
            return nil
        case .resume(let f):
            exchanges[f.exchange]?.closePause(at: f.t)
            return nil
        case .tls(let h):
            handshakes.append(h)
            return nil
        case .fault(let f):
            exchanges[f.exchange]?.faults.append(f)
            return nil
        case .delivered(let d):
            exchanges[d.exchange]?.deliveries.append(d)
            return nil
        case .shape(let s):
            shapes.append(s)
            return nil
        case .tunnel(let t):
            tunnels.append(t)
            return finish(t.exchange, t: t.t) { rec in
                rec.bytesReceived = t.down
                // A tunnel is recorded once rangetap answered 200; an error recorded against the
                // CONNECT (captures of older builds recorded a tunnel that never started) stands.
                if case .failed = rec.outcome { return }
                rec.outcome = .complete
                rec.status = 200
            }
        }
    }

    private mutating func finish(_ ex: Int, t: CaptureTime, _ change: (inout ExchangeRecord) -> Void) -> ExchangeRecord?
    {
        guard let index = exchanges.index(forKey: ex) else { return nil }
        exchanges.values[index].end = t
        change(&exchanges.values[index])
        return exchanges.values[index]
    }

    /// Changes the record of `ex` in place, if there is one (a record copied out and back
    /// retained and released every field of it, for every event).
    private mutating func update(_ ex: Int, _ change: (inout ExchangeRecord) -> Void) {
        guard let index = exchanges.index(forKey: ex) else { return }
        change(&exchanges.values[index])
    }

    /// Exchanges in request order.
    public var records: [ExchangeRecord] { order.compactMap { exchanges[$0] } }

    /// Drops a finished exchange (live logging keeps memory flat this way): its record, and
    /// in time its place in ``order`` (which is compacted once it holds twice as many ids as
    /// there are records, so a long session's log stays as small as its open exchanges).
    public mutating func forget(_ ex: Int) {
        exchanges.removeValue(forKey: ex)
        if order.count > 64 && order.count > 2 * exchanges.count {
            order.removeAll { exchanges[$0] == nil }
        }
    }
}
