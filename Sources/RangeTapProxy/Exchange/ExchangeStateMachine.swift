import NIOCore
import NIOHTTP1
import RangeTapCore

/// The whole life of one exchange, on its client connection's event loop: both halves — what
/// to write to the client for each thing upstream does, when to abort or resume the upstream
/// transfer, and, once both halves are done, whether it was an `end` or a `cancel`. A value
/// type: ``ProxyHandler`` feeds it what the client socket and the upstream transfer (through
/// ``Exchange``) report, carries out the ``Action`` it returns, and records what
/// ``takeRecord()`` hands out. Every transition is tested without I/O.
///
/// End or cancel is decided exactly once, only when both halves are done: a client that closed
/// before every byte reached it cancelled, even if libcurl had the whole body; an exchange whose
/// every byte the client acknowledged ended, even if the client then closed.
///
/// Response heads go to the client as the origin sent them, changed only where RFC 9110 and
/// RFC 9112 require it of a proxy (``ForwardedResponseHead``, and the framing and `Connection`
/// rules here); every change is listed in `docs/transparency.md`.
struct ExchangeStateMachine {
    enum State: Equatable {
        /// Request sent upstream; no final response head yet.
        case awaitingHead
        /// Head written; body streaming.
        case streaming
        /// Response ended toward the client.
        case finished
        /// The client went away first.
        case clientGone
    }

    enum Action: Equatable {
        case none
        /// Write an interim (1xx) head.
        case writeInterim(ClientHead)
        /// Write the final response head.
        case writeHead(ClientHead)
        /// Write body bytes; report the write's completion back with ``writeCompleted(_:written:windowDrained:)``.
        case writeBody(ByteBuffer)
        /// End the response (with trailer lines for a chunked body, if any); then close the connection if `close`.
        case writeEnd(close: Bool, trailers: [String])
        /// Answer with the proxy's own error response (no response head was sent yet).
        case respondWithError(HTTPResponseStatus, message: String)
        /// Close the connection: a failure after the head was sent can only be signalled this way.
        case closeConnection
        /// Abort the upstream transfer; the client accepted `delivered` body bytes (completed writes).
        case cancelUpstream(delivered: Int64)
        /// Let the paused upstream transfer continue.
        case resumeUpstream
    }

    /// At most this many interim (1xx) heads are relayed to the client per exchange.
    static let maxInterimRelayed = 32

    private(set) var state: State = .awaitingHead
    /// The exchange and connection ids, for the events this machine produces.
    let exchange: Int
    let connection: Int
    /// How the upstream transfer ended, once it has.
    private(set) var upstream: UpstreamOutcome?
    /// How the client side finished, once it has.
    private(set) var client: ClientOutcome?
    /// Whether the exchange's last event (end, cancel or error) has been produced.
    private(set) var isSettled = false
    /// The event waiting to be recorded (see ``takeRecord()``).
    private var outbox: CaptureEvent?
    /// Whether upstream delivered the whole body (false when it failed or was aborted).
    private var upstreamCompleted = false
    /// Body bytes the client socket accepted.
    private(set) var bytesDelivered: Int64 = 0
    /// Whether the client wants the connection kept open after this exchange.
    let clientKeepAlive: Bool
    /// The client's HTTP version.
    let clientVersion: HTTPVersion
    /// The request method (HEAD responses have no body).
    let method: String
    /// Whether the client sent `TE: trailers`.
    let clientAcceptsTrailers: Bool
    private var closeAfterEnd = false
    private var framing: ClientFraming = .noBody
    private var interimRelayed = 0
    /// Interim heads not relayed (over ``maxInterimRelayed``, or an HTTP/1.0 client).
    private(set) var interimHeld = 0

    init(clientVersion: HTTPVersion, clientKeepAlive: Bool, method: String = "GET", clientAcceptsTrailers: Bool = false, exchange: Int = 0, connection: Int = 0) {
        self.exchange = exchange
        self.connection = connection
        self.clientVersion = clientVersion
        self.clientKeepAlive = clientKeepAlive
        self.method = method
        self.clientAcceptsTrailers = clientAcceptsTrailers
    }

    /// An interim (1xx) head from upstream: relayed to an HTTP/1.1 client, up to a bound.
    mutating func upstreamInterim(lines: [HeaderLine]) -> Action {
        guard state == .awaitingHead else { return .none }
        let status = StatusLine.status(of: lines.first)
        guard clientVersion == .http1_1 || (isHTTP2 && status != 101), interimRelayed < Self.maxInterimRelayed,
              let forwarded = try? HeaderForwarding.clientResponseHead(lines)
        else {
            interimHeld += 1
            return .none
        }
        interimRelayed += 1
        if isHTTP2 {
            return .writeInterim(Self.http2Head(status: status, statusLine: forwarded.statusLine, fields: forwarded.fields, changes: forwarded.changes, framing: .noBody))
        }
        let (statusLine, versionChange) = Self.ownVersion(forwarded.statusLine)
        let text = statusLine + forwarded.fields.joined() + "\r\n"
        return .writeInterim(ClientHead(status: StatusLine.status(of: lines.first), bytes: Latin1.bytes(text), framing: .noBody, changes: forwarded.changes + versionChange))
    }

    /// The final head from upstream, raw lines as libcurl delivered them.
    mutating func upstreamHead(lines: [HeaderLine]) -> Action {
        guard state == .awaitingHead else { return .none }
        let forwarded: ForwardedResponseHead
        do {
            forwarded = try HeaderForwarding.clientResponseHead(lines)
        } catch {
            state = .finished
            let message = "the upstream response head is unusable: \(error)"
            settle(with: .error(ErrorEvent(t: 0, exchange: exchange, connection: connection, kind: .upstream, message: message, status: 502)))
            return .respondWithError(.badGateway, message: message)
        }
        state = .streaming
        let status = StatusLine.status(of: lines.first)
        var changes = forwarded.changes
        var fields = forwarded.fields
        let (statusLine, versionChange) = Self.ownVersion(forwarded.statusLine)
        changes += versionChange

        // One pass over the field lines (as forwarded: whitespace before a colon removed), each
        // line's bytes compared with the two names (no name read out of every line).
        var transferEncoding: [HeaderLine] = []
        var hasLength = false
        for line in lines.dropFirst() {
            if let field = Self.forwardedField(line, named: "transfer-encoding") {
                transferEncoding.append(field)
            } else if !hasLength, Self.forwardedField(line, named: "content-length") != nil {
                hasLength = true
            }
        }
        let noBody = method == "HEAD" || status == 204 || status == 304 || (100..<200).contains(status)

        if isHTTP2 {
            // DATA frames and END_STREAM frame the body; no connection-specific fields.
            if !transferEncoding.isEmpty && hasLength {
                let removed = fields.filter { HeaderLine(raw: $0).isNamed("content-length") }
                fields.removeAll { HeaderLine(raw: $0).isNamed("content-length") }
                changes.append(HeadChange(.contentLengthWithTransferEncoding, original: removed))
            }
            framing = noBody ? .noBody : .http2
            return .writeHead(Self.http2Head(status: status, statusLine: forwarded.statusLine, fields: fields, changes: changes, framing: framing))
        }
        if !transferEncoding.isEmpty {
            if hasLength {
                let removed = fields.filter { HeaderLine(raw: $0).isNamed("content-length") }
                fields.removeAll { HeaderLine(raw: $0).isNamed("content-length") }
                changes.append(HeadChange(.contentLengthWithTransferEncoding, original: removed))
            }
            if clientVersion == .http1_1 {
                // The origin's own line(s), as the forwarded head would have sent them (repaired,
                // folds joined): rangetap frames the body in chunks again. A line holding a bare
                // CR stays refused (its `bare-cr` change): a client that takes the CR for a line
                // end would see a field the origin did not send. When no line is left, rangetap's
                // own `Transfer-Encoding: chunked` (what it sends) stands in.
                fields += forwarded.transferEncoding
                if forwarded.transferEncoding.isEmpty {
                    fields.append(Self.ownTransferEncoding)
                    if let i = changes.firstIndex(where: { $0.reason == .bareCR && Self.isTransferEncoding($0.original.first) }) {
                        changes[i].replacement = Self.ownTransferEncoding
                    }
                }
                changes.removeAll { $0.reason == .hopByHop && Self.isTransferEncoding($0.original.first) }
                framing = noBody ? .noBody : .chunked
            } else {
                changes.append(HeadChange(.transferEncodingToHTTP10, original: transferEncoding.map(\.raw)))
                framing = noBody ? .noBody : .closeDelimited
            }
        } else if noBody {
            framing = .noBody
        } else if hasLength {
            framing = .contentLength
        } else {
            framing = .closeDelimited
        }
        closeAfterEnd = framing == .closeDelimited
        if closeAfterEnd || !clientKeepAlive {
            if clientVersion == .http1_1 {
                fields.append("Connection: close\r\n")
                changes.append(HeadChange(.connectionAdded, original: [], replacement: "Connection: close\r\n"))
            }
        } else if clientVersion == .http1_0 {
            fields.append("Connection: keep-alive\r\n")
            changes.append(HeadChange(.connectionAdded, original: [], replacement: "Connection: keep-alive\r\n"))
        }
        let text = statusLine + fields.joined() + "\r\n"
        return .writeHead(ClientHead(status: status, bytes: Latin1.bytes(text), framing: framing, changes: changes))
    }

    /// `line` as forwarded (whitespace between name and colon removed) when it is a field named
    /// `name` (a token), ignoring ASCII case; nil otherwise. What
    /// `line.removingSpaceBeforeColon()` and its `name` answer, read only as far as the name.
    static func forwardedField(_ line: HeaderLine, named name: String) -> HeaderLine? {
        let u = line.raw.utf8
        let n = name.utf8
        guard u.count > n.count else { return nil }
        let after = u.index(u.startIndex, offsetBy: n.count)
        guard HeaderByte.equalsIgnoringASCIICase(u[..<after], n) else { return nil }
        switch u[after] {
        case UInt8(ascii: ":"): return line
        case UInt8(ascii: " "), UInt8(ascii: "\t"):
            let field = line.removingSpaceBeforeColon()
            return field.isNamed(name) ? field : nil
        default: return nil
        }
    }

    /// Whether `raw` is a `Transfer-Encoding` field line (whitespace before its colon allowed).
    static func isTransferEncoding(_ raw: String?) -> Bool {
        raw.map { forwardedField(HeaderLine(raw: $0), named: "transfer-encoding") != nil } ?? false
    }

    /// The `Transfer-Encoding` line rangetap sends when the origin's cannot be forwarded.
    static let ownTransferEncoding = "Transfer-Encoding: chunked\r\n"

    /// Whether the client speaks HTTP/2 (this exchange is one stream).
    var isHTTP2: Bool { clientVersion.major == 2 }

    /// A head for an HTTP/2 client (RFC 9113 §8.3): `HTTP/2 CODE` as its first line (the
    /// `:status` pseudo-header field, no reason phrase), names lower-case.
    static func http2Head(status: Int, statusLine: String, fields: [String], changes: [HeadChange], framing: ClientFraming) -> ClientHead {
        var lowered: [String] = []
        var renamed: [String] = []
        for field in fields {
            guard let colon = field.firstIndex(of: ":") else { continue }
            let name = field[..<colon]
            let lower = name.lowercased()
            if lower != name { renamed.append(field) }
            lowered.append(lower + field[colon...])
        }
        let first = "HTTP/2 \(status)\r\n"
        let change = HeadChange(.http2, original: [statusLine] + renamed, replacement: first)
        return ClientHead(status: status, bytes: Latin1.bytes(first + lowered.joined() + "\r\n"), framing: framing, changes: changes + [change])
    }

    /// The status line with rangetap's own HTTP-version (RFC 9110 §6.2), and the change if any.
    static func ownVersion(_ statusLine: String) -> (String, [HeadChange]) {
        guard statusLine.hasPrefix("HTTP/"), !statusLine.hasPrefix("HTTP/1.1 ") else { return (statusLine, []) }
        guard let space = statusLine.firstIndex(of: " ") else { return (statusLine, []) }
        let replaced = "HTTP/1.1" + statusLine[space...]
        return (replaced, [HeadChange(.version, original: [statusLine], replacement: replaced)])
    }

    mutating func upstreamBody(_ buffer: ByteBuffer) -> Action {
        guard state == .streaming else { return .none }
        return .writeBody(buffer)
    }

    /// Upstream ended the body; `trailers` are its trailer lines (chunked bodies), `outcome`
    /// when and with how many bytes (for the settlement).
    mutating func upstreamEnd(trailers: [HeaderLine] = [], outcome: UpstreamOutcome? = nil) -> Action {
        upstream = outcome ?? UpstreamOutcome(t: 0, received: 0, trailers: trailers)
        upstreamCompleted = true
        switch state {
        case .streaming:
            state = .finished
            var sent: [String] = []
            if (framing == .chunked || framing == .http2) && clientAcceptsTrailers {
                sent = trailers.map { String($0.removingSpaceBeforeColon().content) + "\r\n" }.filter { !$0.contains("\r\n\r") }
            }
            return .writeEnd(close: closeAfterEnd || !clientKeepAlive, trailers: sent)
        case .awaitingHead:
            // libcurl ended without a head (cannot happen for HTTP, but never leave a client hanging).
            state = .finished
            let message = "the upstream response ended before its head"
            settle(with: .error(ErrorEvent(t: upstream!.t, exchange: exchange, connection: connection, kind: .upstream, message: message, status: 502)))
            return .respondWithError(.badGateway, message: message)
        case .finished, .clientGone:
            settleIfDone()
            return .none
        }
    }

    /// The upstream transfer failed, or was aborted. `outcome` carries the `error` event to
    /// record when the client is still there; when the client already left, the exchange is a
    /// `cancel` instead.
    mutating func upstreamFailed(message: String, timedOut: Bool = false, outcome: UpstreamOutcome? = nil) -> Action {
        let outcome = outcome ?? UpstreamOutcome(t: 0, received: 0)
        upstream = outcome
        upstreamCompleted = false
        switch state {
        case .awaitingHead:
            state = .finished
            if let failure = outcome.failure { settle(with: .error(failure)) }
            return .respondWithError(timedOut ? .gatewayTimeout : .badGateway, message: message)
        case .streaming:
            state = .finished
            if let failure = outcome.failure { settle(with: .error(failure)) }
            return .closeConnection
        case .clientGone:
            settleIfDone()
            return .none
        case .finished:
            if let failure = outcome.failure { settle(with: .error(failure)) }
            return .none
        }
    }

    /// The client closed its connection. `outcome` says how many body bytes reached it (by
    /// default: the writes the socket accepted). Mid-response, the upstream transfer is aborted;
    /// the exchange settles when upstream has stopped.
    mutating func clientClosed(_ outcome: ClientOutcome? = nil) -> Action {
        let outcome = outcome ?? ClientOutcome(t: 0, delivered: bytesDelivered, measure: .writes, gone: true)
        switch state {
        case .awaitingHead, .streaming:
            state = .clientGone
            client = outcome
            settleIfDone()
            return .cancelUpstream(delivered: outcome.delivered)
        case .finished:
            if client == nil { client = outcome }
            settleIfDone()
            return .none
        case .clientGone:
            return .none
        }
    }

    /// Every body byte of a finished response was seen to reach the client (or rangetap closed
    /// the connection after the last byte, leaving the rest to the kernel).
    mutating func clientReceivedAll(_ outcome: ClientOutcome) -> Action {
        guard state == .finished, client == nil else { return .none }
        client = outcome
        settleIfDone()
        return .none
    }

    /// The event to record now, if an input just produced one (an `end`, `cancel` or `error`).
    mutating func takeRecord() -> CaptureEvent? {
        defer { outbox = nil }
        return outbox
    }

    /// Settles once both halves are done.
    private mutating func settleIfDone() {
        guard !isSettled, let u = upstream, let c = client else { return }
        let cancel = CaptureEvent.cancel(CancelEvent(t: c.t, exchange: exchange, delivered: c.delivered, received: u.received, sendBuffer: c.sendBuffer, sha256: "", deliveredBy: c.measure, consumed: c.consumed))
        if !upstreamCompleted {
            // The transfer stopped short: a client that left first cancelled; otherwise it failed.
            if c.gone { settle(with: cancel) } else if let failure = u.failure { settle(with: .error(failure)) }
        } else if c.gone && c.delivered < u.received {
            settle(with: cancel)
        } else {
            settle(with: .end(EndEvent(t: u.t, exchange: exchange, bytes: u.received, sha256: "", trailers: u.trailers, delivered: min(c.delivered, u.received), deliveredBy: c.measure, consumed: c.consumed)))
        }
    }

    private mutating func settle(with event: CaptureEvent) {
        guard !isSettled else { return }
        isSettled = true
        outbox = event
    }

    /// A body write finished. `written` tells whether the socket took it; `windowDrained` is
    /// ``FlowControl/complete(_:)``'s answer.
    mutating func writeCompleted(_ bytes: Int, written: Bool, windowDrained: Bool) -> Action {
        if written { bytesDelivered += Int64(bytes) }
        return windowDrained && state == .streaming ? .resumeUpstream : .none
    }
}
