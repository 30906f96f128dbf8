/// Nanoseconds since the capture's `t == 0`, from ``MonotonicClock``.
public typealias CaptureTime = Int64

/// One line of `events.jsonl`. See `docs/capture-format.md` for the exact JSON of each case.
public enum CaptureEvent: Sendable, Equatable {
    /// The first line: format version, wall-clock anchor and recording options.
    case header(CaptureHeader)
    /// A client connected to the proxy.
    case connectionOpen(ConnectionOpenEvent)
    /// A client connection ended.
    case connectionClose(ConnectionCloseEvent)
    /// A request head arrived from a client.
    case request(RequestEvent)
    /// An informational (1xx) response head arrived from upstream.
    case interim(ResponseEvent)
    /// The final response head arrived from upstream.
    case response(ResponseEvent)
    /// Body bytes arrived from upstream (one libcurl write callback).
    case chunk(ChunkEvent)
    /// The response body ended normally.
    case end(EndEvent)
    /// The client went away before the response ended.
    case cancel(CancelEvent)
    /// The exchange or connection failed.
    case error(ErrorEvent)
    /// A CONNECT tunnel ended; its bytes are counted, not recorded.
    case tunnel(TunnelEvent)
    /// The TLS handshake of an intercepted CONNECT tunnel finished, or the client refused it.
    case tls(TLSEvent)
    /// The proxy stopped reading an exchange's upstream body because its client was slow.
    case pause(FlowEvent)
    /// The proxy resumed reading an exchange's upstream body.
    case resume(FlowEvent)
    /// A fault injected by a `--fault` rule.
    case fault(FaultEvent)
    /// The shaping in force on the client's link.
    case shape(ShapeEvent)
    /// Body bytes written to a shaped client so far.
    case delivered(DeliveredEvent)

    /// The `type` string of this event in JSON.
    public var type: String {
        switch self {
        case .header: "capture"
        case .connectionOpen: "conn.open"
        case .connectionClose: "conn.close"
        case .request: "request"
        case .interim: "interim"
        case .response: "response"
        case .chunk: "chunk"
        case .end: "end"
        case .cancel: "cancel"
        case .error: "error"
        case .tunnel: "tunnel"
        case .tls: "tls"
        case .pause: "pause"
        case .resume: "resume"
        case .fault: "fault"
        case .shape: "shape"
        case .delivered: "delivered"
        }
    }

    /// The exchange this event belongs to, if any.
    public var exchange: Int? {
        switch self {
        case .request(let e): e.exchange
        case .interim(let e), .response(let e): e.exchange
        case .chunk(let e): e.exchange
        case .end(let e): e.exchange
        case .cancel(let e): e.exchange
        case .error(let e): e.exchange
        case .tunnel(let e): e.exchange
        case .tls(let e): e.exchange
        case .pause(let e), .resume(let e): e.exchange
        case .fault(let e): e.exchange
        case .delivered(let e): e.exchange
        case .header, .connectionOpen, .connectionClose, .shape: nil
        }
    }
}

/// The first event of every capture.
public struct CaptureHeader: Sendable, Equatable {
    /// The capture format version this build writes.
    public static let currentVersion = 1
    /// Format version of the capture.
    public var version: Int
    /// The program and version that wrote it.
    public var tool: String
    /// Wall-clock time of `t == 0`, ISO 8601 UTC (milliseconds shown; see ``startedAtMicros``).
    public var startedAt: String
    /// Wall-clock time of `t == 0` in microseconds since the Unix epoch, read back to back with
    /// the monotonic clock's zero (absent in captures written before it existed).
    public var startedAtMicros: Int64?
    /// Whether body bytes are stored in `body.bin` (false with `--no-bodies`).
    public var bodies: Bool
    /// Whether `end`, `cancel` and `error` events carry the SHA-256 of the exchange's body bytes
    /// (false with `--no-hash`: their `sha256` is then empty or absent). Written only when false;
    /// captures from before the option are hashed.
    public var hashes: Bool
    /// Whether secret header values were redacted.
    public var redacted: Bool
    /// The address the proxy listened on.
    public var listen: String
    /// The reverse-proxy upstream, if any.
    public var upstream: String?

    /// Creates a header.
    public init(
        version: Int = CaptureHeader.currentVersion, tool: String, startedAt: String, startedAtMicros: Int64? = nil,
        bodies: Bool, hashes: Bool = true, redacted: Bool, listen: String, upstream: String?
    ) {
        self.version = version
        self.hashes = hashes
        self.tool = tool
        self.startedAt = startedAt
        self.startedAtMicros = startedAtMicros
        self.bodies = bodies
        self.redacted = redacted
        self.listen = listen
        self.upstream = upstream
    }
}

/// A client connection opened.
public struct ConnectionOpenEvent: Sendable, Equatable {
    /// Time of accept.
    public var t: CaptureTime
    /// Connection id, unique in the capture.
    public var connection: Int
    /// The client's address.
    public var peer: String
    /// The socket's send buffer (SO_SNDBUF) in bytes: bytes the kernel can accept before the client reads.
    public var sendBuffer: Int?

    /// Creates the event.
    public init(t: CaptureTime, connection: Int, peer: String, sendBuffer: Int?) {
        self.t = t
        self.connection = connection
        self.peer = peer
        self.sendBuffer = sendBuffer
    }
}

/// A client connection closed.
public struct ConnectionCloseEvent: Sendable, Equatable {
    /// Time of close.
    public var t: CaptureTime
    /// Connection id.
    public var connection: Int
    /// Who closed it: the client or the proxy.
    public var by: Closer
    /// Requests received on this connection.
    public var requests: Int

    /// Creates the event.
    public init(t: CaptureTime, connection: Int, by: Closer, requests: Int) {
        self.t = t
        self.connection = connection
        self.by = by
        self.requests = requests
    }
}

/// A request head from a client.
public struct RequestEvent: Sendable, Equatable {
    /// Time the head was decoded.
    public var t: CaptureTime
    /// Exchange id, unique in the capture.
    public var exchange: Int
    /// The client connection it came on.
    public var connection: Int
    /// The method, as sent.
    public var method: String
    /// The request target, as sent (absolute-form for a forward proxy).
    public var target: String
    /// `HTTP/1.1`, `HTTP/1.0`, or `HTTP/2` for a request that came as an HTTP/2 stream.
    public var version: String
    /// The absolute URL fetched upstream (nil when the request was refused).
    public var url: String?
    /// Header lines in order and case (secrets redacted unless kept). For HTTP/2, the
    /// pseudo-header fields (`:method`, `:path`, …) first, as received, names lower-case.
    public var headers: [HeaderLine]
    /// The HTTP/2 stream id the request came on; nil for HTTP/1.x.
    public var stream: Int?

    /// Creates the event.
    public init(
        t: CaptureTime, exchange: Int, connection: Int, method: String, target: String, version: String, url: String?,
        headers: [HeaderLine], stream: Int? = nil
    ) {
        self.stream = stream
        self.t = t
        self.exchange = exchange
        self.connection = connection
        self.method = method
        self.target = target
        self.version = version
        self.url = url
        self.headers = headers
    }
}

/// A response head from upstream, every line exactly as received.
public struct ResponseEvent: Sendable, Equatable {
    /// Time the blank line ending the head arrived.
    public var t: CaptureTime
    /// Exchange id.
    public var exchange: Int
    /// Status code.
    public var status: Int
    /// Status line, field lines and the blank line, terminators included (secrets redacted).
    public var lines: [HeaderLine]
    /// Whether libcurl reused an upstream connection for this exchange.
    public var reused: Bool?
    /// Local port of the upstream connection: the same port means the same connection.
    public var upstreamPort: Int?

    /// Creates the event.
    public init(t: CaptureTime, exchange: Int, status: Int, lines: [HeaderLine], reused: Bool?, upstreamPort: Int?) {
        self.t = t
        self.exchange = exchange
        self.status = status
        self.lines = lines
        self.reused = reused
        self.upstreamPort = upstreamPort
    }

    /// The field lines (status line and blank line left out).
    public var fields: [HeaderLine] { lines.filter { $0.name != nil } }
}

/// Body bytes from one upstream read.
public struct ChunkEvent: Sendable, Equatable {
    /// Arrival time.
    public var t: CaptureTime
    /// Exchange id.
    public var exchange: Int
    /// Number of bytes.
    public var size: Int
    /// Offset of the first byte within this response's body.
    public var offset: Int64
    /// Offset within the resource, when known (Content-Range start + offset, or offset for a 200).
    public var resourceOffset: Int64?
    /// Where the bytes sit in `body.bin`, nil when bodies are not recorded.
    public var bodyOffset: Int64?

    /// Creates the event.
    public init(t: CaptureTime, exchange: Int, size: Int, offset: Int64, resourceOffset: Int64?, bodyOffset: Int64?) {
        self.t = t
        self.exchange = exchange
        self.size = size
        self.offset = offset
        self.resourceOffset = resourceOffset
        self.bodyOffset = bodyOffset
    }
}

/// A response that ended as the origin framed it.
public struct EndEvent: Sendable, Equatable {
    /// Time of the end.
    public var t: CaptureTime
    /// Exchange id.
    public var exchange: Int
    /// Body bytes received from upstream.
    public var bytes: Int64
    /// SHA-256 of those bytes, lowercase hex.
    public var sha256: String
    /// Trailer lines, if the origin sent any.
    public var trailers: [HeaderLine]
    /// Body bytes that reached the client (see ``DeliveryMeasure``); absent in older captures.
    public var delivered: Int64?
    /// How ``delivered`` was measured.
    public var deliveredBy: DeliveryMeasure?
    /// HTTP/2 only: body bytes the client's HTTP/2 layer granted back with stream-level
    /// `WINDOW_UPDATE` (what its application consumed, reported late and in batches). A second
    /// figure beside ``delivered``, never a delivery measure.
    public var consumed: Int64?
    /// Body bytes rangetap answered itself instead of relaying the origin's (the body of a
    /// `--fault` `status=` answer); nil when it relayed the origin's (then ``bytes`` is the
    /// body). The third byte count beside *received* (``bytes``) and *delivered*.
    public var served: Int64?

    /// Creates the event.
    public init(
        t: CaptureTime, exchange: Int, bytes: Int64, sha256: String, trailers: [HeaderLine] = [],
        delivered: Int64? = nil, deliveredBy: DeliveryMeasure? = nil, consumed: Int64? = nil, served: Int64? = nil
    ) {
        self.t = t
        self.exchange = exchange
        self.bytes = bytes
        self.sha256 = sha256
        self.trailers = trailers
        self.delivered = delivered
        self.deliveredBy = deliveredBy
        self.consumed = consumed
        self.served = served
    }
}

/// The client closed before the response ended; the upstream transfer was aborted.
public struct CancelEvent: Sendable, Equatable {
    /// When the client's close was seen.
    public var t: CaptureTime
    /// Exchange id.
    public var exchange: Int
    /// Body bytes that reached the client: acknowledged by its TCP stack (see ``deliveredBy``).
    public var delivered: Int64
    /// Body bytes received from upstream before the abort.
    public var received: Int64
    /// The client socket's send buffer at the time.
    public var sendBuffer: Int?
    /// SHA-256 of the received bytes, lowercase hex.
    public var sha256: String
    /// How ``delivered`` was measured (absent in older captures: completed writes).
    public var deliveredBy: DeliveryMeasure?
    /// HTTP/2 only: body bytes the client granted back with stream-level `WINDOW_UPDATE` (see
    /// ``EndEvent/consumed``); never a delivery measure.
    public var consumed: Int64?

    /// Creates the event.
    public init(
        t: CaptureTime, exchange: Int, delivered: Int64, received: Int64, sendBuffer: Int?, sha256: String,
        deliveredBy: DeliveryMeasure? = nil, consumed: Int64? = nil
    ) {
        self.t = t
        self.exchange = exchange
        self.delivered = delivered
        self.received = received
        self.sendBuffer = sendBuffer
        self.sha256 = sha256
        self.deliveredBy = deliveredBy
        self.consumed = consumed
    }
}

/// A failure: a malformed request, an unreachable or failing upstream, a refused request.
public struct ErrorEvent: Sendable, Equatable {
    /// When it happened.
    public var t: CaptureTime
    /// The exchange, if one had begun.
    public var exchange: Int?
    /// The client connection.
    public var connection: Int?
    /// What went wrong: a bad request, a refusal, an upstream failure...
    public var kind: Kind
    /// What went wrong, for a person.
    public var message: String
    /// libcurl's CURLcode, for upstream failures.
    public var curlCode: Int?
    /// Body bytes received from upstream before the failure.
    public var received: Int64
    /// SHA-256 of those bytes.
    public var sha256: String?
    /// Status sent to the client by the proxy itself (400, 502...), if any.
    public var status: Int?
    /// Body bytes that reached the client before the failure, where rangetap decided it: a
    /// `--fault` cut (`reset-after`, `truncate-after`) passes on exactly this many, then closes
    /// or resets the client's connection. Nil otherwise.
    public var delivered: Int64?

    /// Creates the event.
    public init(
        t: CaptureTime, exchange: Int?, connection: Int?, kind: Kind, message: String, curlCode: Int? = nil,
        received: Int64 = 0, sha256: String? = nil, status: Int? = nil, delivered: Int64? = nil
    ) {
        self.t = t
        self.exchange = exchange
        self.connection = connection
        self.kind = kind
        self.message = message
        self.curlCode = curlCode
        self.received = received
        self.sha256 = sha256
        self.status = status
        self.delivered = delivered
    }
}

/// A CONNECT tunnel, recorded as byte counts and times only.
public struct TunnelEvent: Sendable, Equatable {
    /// When the tunnel closed.
    public var t: CaptureTime
    /// When it was established (`200` sent to the client).
    public var opened: CaptureTime
    /// Exchange id of the CONNECT request.
    public var exchange: Int
    /// Client connection id.
    public var connection: Int
    /// `host:port` asked for.
    public var authority: String
    /// Bytes from client to server.
    public var up: Int64
    /// Bytes from server to client.
    public var down: Int64
    /// Whether rangetap terminated TLS in the tunnel and recorded the exchanges inside it
    /// (then `up` and `down` count encrypted bytes); nil in captures from before interception.
    public var intercepted: Bool?

    /// Creates the event.
    public init(
        t: CaptureTime, opened: CaptureTime, exchange: Int, connection: Int, authority: String, up: Int64, down: Int64,
        intercepted: Bool? = nil
    ) {
        self.t = t
        self.opened = opened
        self.exchange = exchange
        self.connection = connection
        self.authority = authority
        self.up = up
        self.down = down
        self.intercepted = intercepted
    }
}

/// The TLS handshake between a client and rangetap inside an intercepted CONNECT tunnel.
public struct TLSEvent: Sendable, Equatable {
    /// How a handshake ended.
    public enum Outcome: String, Sendable, Equatable {
        /// Completed: the exchanges inside follow on the same connection.
        case established
        /// The client refused rangetap's certificate (an alert such as `unknown_ca` or
        /// `bad_certificate`, or a close in the middle of the handshake): a CA not trusted yet,
        /// or certificate pinning.
        case rejected
        /// The handshake failed for another reason (no common version or cipher, not TLS…).
        case failed
    }

    /// When the handshake ended.
    public var t: CaptureTime
    /// Client connection id.
    public var connection: Int
    /// Exchange id of the CONNECT request.
    public var exchange: Int
    /// `host:port` of the CONNECT.
    public var authority: String
    /// How it ended.
    public var outcome: Outcome
    /// The server name the client sent (SNI); nil when it sent none (an IP literal).
    public var serverName: String?
    /// Negotiated version: `TLSv1.3`, `TLSv1.2`…
    public var version: String?
    /// Negotiated application protocol (ALPN), if any.
    public var alpn: String?
    /// Negotiated cipher suite, by its IANA name.
    public var cipher: String?
    /// Why it failed, in words (rejected or failed).
    public var reason: String?

    /// Creates the event.
    public init(
        t: CaptureTime, connection: Int, exchange: Int, authority: String, outcome: Outcome, serverName: String? = nil,
        version: String? = nil, alpn: String? = nil, cipher: String? = nil, reason: String? = nil
    ) {
        self.t = t
        self.connection = connection
        self.exchange = exchange
        self.authority = authority
        self.outcome = outcome
        self.serverName = serverName
        self.version = version
        self.alpn = alpn
        self.cipher = cipher
        self.reason = reason
    }
}
