import NIOCore
import NIOHTTP1
import RangeTapCore

/// The whole life of one exchange, on its client connection's event loop: both halves — what
/// to write to the client for each thing upstream does, when to abort or resume the upstream
/// transfer, and, once both halves are done, whether it was an `end` or a `cancel`. A value
/// type: ``ExchangeDriver`` feeds it what the client's writer (an HTTP/1.1 connection or an
/// HTTP/2 stream) and the upstream transfer report, carries out the ``Action`` it returns, and
/// records what ``takeRecord()`` hands out. Every transition is tested without I/O.
///
/// End or cancel is decided exactly once, only when both halves are done: a client that closed
/// before every byte reached it cancelled, even if libcurl had the whole body; an exchange whose
/// every byte the client acknowledged ended, even if the client then closed.
///
/// Response heads go to the client as the origin sent them, changed only where RFC 9110 and
/// RFC 9112 require it of a proxy (``ForwardedResponseHead``, and the framing and `Connection`
/// rules here); every change is listed in `docs/transparency.md`.
struct ExchangeStateMachine {
    /// Where the exchange is. Each case carries what only it has, so a combination that cannot
    /// happen (a client outcome while the response still streams, a body framing before the
    /// head) cannot be built.
    enum State: Equatable {
        /// Request sent upstream; no final response head yet. `interimRelayed`: 1xx heads
        /// relayed to the client so far.
        case awaitingHead(interimRelayed: Int)
        /// Head written; the body streams to the client.
        case streaming(Body)
        /// HTTP/2: the body's last declared byte went out on a DATA frame with END_STREAM (as
        /// origins send it); the upstream transfer has not reported its end yet.
        case bodyEnded(Body)
        /// The response ended toward the client, and upstream completed (`upstream`); waiting
        /// for the client's half: every byte acknowledged, or a close.
        case responseEnded(upstream: UpstreamOutcome)
        /// The client went first (`client`); waiting for the aborted upstream transfer to stop.
        case clientGone(client: ClientOutcome)
        /// The exchange's last event (end, cancel or error) is decided. Late messages of a
        /// transfer stopping after an error answer are ignored here.
        case settled
    }

    /// The streaming body's framing toward the client and how far it got.
    struct Body: Equatable {
        var framing: ClientFraming
        /// Whether the connection closes after the response (close-delimited, or the client asked).
        var closeAfterEnd: Bool
        /// HTTP/2 without trailers: the body length the head declared, whose last byte ends the
        /// stream on its own DATA frame (so a client that stops reading at Content-Length leaves
        /// no frame unread behind it: a close with unread bytes is a TCP reset, which loses the
        /// client's last acknowledgement).
        var endsAt: Int64?
        /// Body bytes handed to the client's writer.
        var written: Int64 = 0
    }

    enum Action: Equatable {
        case none
        /// Write an interim (1xx) head.
        case writeInterim(ClientHead)
        /// Write the final response head.
        case writeHead(ClientHead)
        /// Write body bytes; report the write's completion back with ``writeCompleted(_:written:windowDrained:)``.
        /// `last` (HTTP/2 only): they end the body the head declared, so their DATA frame ends the stream.
        case writeBody(ByteBuffer, last: Bool)
        /// Body bytes past the end the head declared, after the stream ended: not written; their
        /// count completes as an unwritten write.
        case discardBody(Int)
        /// End the response (with trailer lines for a chunked body, if any); then close the
        /// connection if `close`. `bodyEnded`: HTTP/2, the last body write already ended the
        /// stream, its completion is the end's.
        case writeEnd(close: Bool, trailers: [String], bodyEnded: Bool)
        /// Answer with the proxy's own error response (no response head was sent yet).
        case respondWithError(HTTPResponseStatus, message: String)
        /// Close the connection: a failure after the head was sent can only be signalled this way.
        case closeConnection
        /// Abort the upstream transfer; the client accepted `delivered` body bytes (completed writes).
        case cancelUpstream(delivered: Int64)
        /// Let the paused upstream transfer continue.
        case resumeUpstream
    }

    /// The largest HTTP/2 response header list rangetap sends: one frame of the default size
    /// (swift-nio-http2 writes no CONTINUATION frames).
    static let maxHTTP2HeadList = 16_384

    /// At most this many interim (1xx) heads are relayed to the client per exchange.
    static let maxInterimRelayed = 32

    private(set) var state: State = .awaitingHead(interimRelayed: 0)
    /// The exchange and connection ids, for the events this machine produces.
    let exchange: Int
    let connection: Int
    /// The event waiting to be recorded (see ``takeRecord()``).
    private var outbox: CaptureEvent?
    /// Body bytes the client socket accepted (completed writes), in whatever state.
    private(set) var bytesDelivered: Int64 = 0
    /// Whether the client wants the connection kept open after this exchange.
    let clientKeepAlive: Bool
    /// The client's HTTP version.
    let clientVersion: HTTPVersion
    /// The request method (HEAD responses have no body).
    let method: String
    /// Whether the client sent `TE: trailers`.
    let clientAcceptsTrailers: Bool
    /// Interim heads not relayed (over ``maxInterimRelayed``, or an HTTP/1.0 client).
    private(set) var interimHeld = 0

    init(
        clientVersion: HTTPVersion, clientKeepAlive: Bool, method: String = "GET", clientAcceptsTrailers: Bool = false,
        exchange: Int = 0, connection: Int = 0
    ) {
        self.exchange = exchange
        self.connection = connection
        self.clientVersion = clientVersion
        self.clientKeepAlive = clientKeepAlive
        self.method = method
        self.clientAcceptsTrailers = clientAcceptsTrailers
    }

    /// Whether the exchange's last event has been produced.
    var isSettled: Bool { state == .settled }

    /// Whether the response ended toward the client and only the client's half is awaited.
    var isResponseEnded: Bool {
        if case .responseEnded = state { return true }
        return false
    }

    /// Whether the frame ending the response went to the client's writer: the last declared
    /// body byte's (HTTP/2), or the end after the body.
    var isEndWritten: Bool {
        switch state {
        case .bodyEnded, .responseEnded: true
        default: false
        }
    }

    /// Whether the client's half is still to be reported (it has not closed, nor been seen to
    /// have every byte).
    var awaitsClient: Bool {
        switch state {
        case .clientGone, .settled: false
        default: true
        }
    }

    /// An input the machine's contract rules out in this state: a programming error in the
    /// driver or the upstream half, never the peers' doing.
    private func invalid(_ input: String) -> Never {
        preconditionFailure("ExchangeStateMachine of exchange \(exchange): \(input) in state \(state)")
    }

    /// An interim (1xx) head from upstream: relayed to an HTTP/1.1 client, up to a bound.
    mutating func upstreamInterim(lines: [HeaderLine]) -> Action {
        let interimRelayed: Int
        switch state {
        case .awaitingHead(let n): interimRelayed = n
        case .clientGone, .settled: return .none
        default: invalid("an interim head after the final head")
        }
        let status = StatusLine.status(of: lines.first)
        guard clientVersion == .http1_1 || (isHTTP2 && status != 101), interimRelayed < Self.maxInterimRelayed,
            let forwarded = try? HeaderForwarding.clientResponseHead(lines)
        else {
            interimHeld += 1
            return .none
        }
        state = .awaitingHead(interimRelayed: interimRelayed + 1)
        if isHTTP2 {
            return .writeInterim(
                Self.http2Head(
                    status: status, statusLine: forwarded.statusLine, fields: forwarded.fields,
                    changes: forwarded.changes, framing: .noBody))
        }
        let (statusLine, versionChange) = Self.ownVersion(forwarded.statusLine)
        let text = statusLine + forwarded.fields.joined() + "\r\n"
        return .writeInterim(
            ClientHead(
                status: StatusLine.status(of: lines.first), bytes: Latin1.bytes(text), framing: .noBody,
                changes: forwarded.changes + versionChange))
    }

    /// The final head from upstream, raw lines as libcurl delivered them.
    mutating func upstreamHead(lines: [HeaderLine]) -> Action {
        switch state {
        case .awaitingHead: break
        case .clientGone, .settled: return .none
        default: invalid("a second final head")
        }
        let forwarded: ForwardedResponseHead
        do {
            forwarded = try HeaderForwarding.clientResponseHead(lines)
        } catch {
            let message = "the upstream response head is unusable: \(error)"
            settle(
                with: .error(
                    ErrorEvent(
                        t: 0, exchange: exchange, connection: connection, kind: .upstream, message: message, status: 502
                    )))
            return .respondWithError(.badGateway, message: message)
        }
        let status = StatusLine.status(of: lines.first)
        var changes = forwarded.changes
        var fields = forwarded.fields
        let (statusLine, versionChange) = Self.ownVersion(forwarded.statusLine)
        changes += versionChange

        // One pass over the field lines (as forwarded: whitespace before a colon removed), each
        // line's bytes compared with the two names (no name read out of every line).
        var transferEncoding: [HeaderLine] = []
        var length: HeaderLine?
        for line in lines.dropFirst() {
            if let field = Self.forwardedField(line, named: "transfer-encoding") {
                transferEncoding.append(field)
            } else if length == nil, let field = Self.forwardedField(line, named: "content-length") {
                length = field
            }
        }
        let hasLength = length != nil
        let noBody = method == "HEAD" || status == 204 || status == 304 || (100..<200).contains(status)

        if isHTTP2 {
            // DATA frames and END_STREAM frame the body; no connection-specific fields.
            if !transferEncoding.isEmpty && hasLength {
                let removed = fields.filter { HeaderLine(raw: $0).isNamed("content-length") }
                fields.removeAll { HeaderLine(raw: $0).isNamed("content-length") }
                changes.append(HeadChange(.contentLengthWithTransferEncoding, original: removed))
            }
            // swift-nio-http2 sends a header block in one HEADERS frame (no CONTINUATION): a
            // block over the client's frame size would fail the whole connection. A head whose
            // header list (RFC 9113 §6.5.2: name, value and 32 per field) exceeds one frame is
            // answered 502 on its stream instead; HPACK makes most blocks smaller than that.
            let listSize = fields.reduce(32 + 7 + 3) { $0 + $1.utf8.count - 2 + 32 }
            if listSize > Self.maxHTTP2HeadList {
                let message =
                    "the origin's response head is \(listSize) bytes as an HTTP/2 header list, more than one HTTP/2 frame (\(Self.maxHTTP2HeadList)) holds; rangetap's HTTP/2 library cannot split it into CONTINUATION frames (over HTTP/1.1 it passes)"
                settle(
                    with: .error(
                        ErrorEvent(
                            t: 0, exchange: exchange, connection: connection, kind: .upstream, message: message,
                            status: 502)))
                return .respondWithError(.badGateway, message: message)
            }
            let framing: ClientFraming = noBody ? .noBody : .http2
            let declared =
                framing == .http2 && transferEncoding.isEmpty
                ? length?.value.flatMap { ContentLength.parse(String($0)) } : nil
            state = .streaming(
                Body(framing: framing, closeAfterEnd: false, endsAt: clientAcceptsTrailers ? nil : declared))
            return .writeHead(
                Self.http2Head(
                    status: status, statusLine: forwarded.statusLine, fields: fields, changes: changes, framing: framing
                ))
        }
        let framing: ClientFraming
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
                    if let i = changes.firstIndex(where: {
                        $0.reason == .bareCR && Self.isTransferEncoding($0.original.first)
                    }) {
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
        let closeAfterEnd = framing == .closeDelimited
        state = .streaming(Body(framing: framing, closeAfterEnd: closeAfterEnd || !clientKeepAlive))
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
    static func http2Head(
        status: Int, statusLine: String, fields: [String], changes: [HeadChange], framing: ClientFraming
    ) -> ClientHead {
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
        return ClientHead(
            status: status, bytes: Latin1.bytes(first + lowered.joined() + "\r\n"), framing: framing,
            changes: changes + [change])
    }

    /// The status line with rangetap's own HTTP-version (RFC 9110 §6.2), and the change if any.
    static func ownVersion(_ statusLine: String) -> (String, [HeadChange]) {
        guard statusLine.hasPrefix("HTTP/"), !statusLine.hasPrefix("HTTP/1.1 ") else { return (statusLine, []) }
        guard let space = statusLine.firstIndex(of: " ") else { return (statusLine, []) }
        let replaced = "HTTP/1.1" + statusLine[space...]
        return (replaced, [HeadChange(.version, original: [statusLine], replacement: replaced)])
    }

    /// Body bytes from upstream.
    mutating func upstreamBody(_ buffer: ByteBuffer) -> Action {
        switch state {
        case .streaming(var body):
            let n = Int64(buffer.readableBytes)
            body.written += n
            if let end = body.endsAt, body.written >= end {
                // The bytes up to the declared end end the stream; any past it are the origin's
                // excess, which the client, its body whole, never sees.
                let over = Int(body.written - end)
                state = .bodyEnded(body)
                guard over > 0 else { return .writeBody(buffer, last: true) }
                // Rare (an origin sending more than it declared): the head of the buffer goes, the
                // rest counts as not written.
                return over == buffer.readableBytes
                    ? .discardBody(over)
                    : .writeBody(
                        buffer.getSlice(at: buffer.readerIndex, length: buffer.readableBytes - over)!, last: true)
            }
            state = .streaming(body)
            return .writeBody(buffer, last: false)
        case .bodyEnded:
            return .discardBody(buffer.readableBytes)
        case .clientGone, .settled:
            // Bytes the upstream thread passed on before it saw the abort.
            return .none
        case .awaitingHead:
            invalid("body bytes before the head")
        case .responseEnded:
            invalid("body bytes after the upstream end")
        }
    }

    /// Upstream ended the body; `trailers` are its trailer lines (chunked bodies), `outcome`
    /// when and with how many bytes (for the settlement).
    mutating func upstreamEnd(trailers: [HeaderLine] = [], outcome: UpstreamOutcome? = nil) -> Action {
        let upstream = outcome ?? UpstreamOutcome(t: 0, received: 0, trailers: trailers)
        switch state {
        case .streaming(let body), .bodyEnded(let body):
            let bodyEnded = if case .bodyEnded = state { true } else { false }
            state = .responseEnded(upstream: upstream)
            var sent: [String] = []
            if !bodyEnded, body.framing == .chunked || body.framing == .http2, clientAcceptsTrailers {
                sent = trailers.map { String($0.removingSpaceBeforeColon().content) + "\r\n" }.filter {
                    !$0.contains("\r\n\r")
                }
            }
            return .writeEnd(close: body.closeAfterEnd, trailers: sent, bodyEnded: bodyEnded)
        case .awaitingHead:
            // libcurl ended without a head (an origin's doing, not HTTP): never leave a client hanging.
            let message = "the upstream response ended before its head"
            settle(
                with: .error(
                    ErrorEvent(
                        t: upstream.t, exchange: exchange, connection: connection, kind: .upstream, message: message,
                        status: 502)))
            return .respondWithError(.badGateway, message: message)
        case .clientGone(let client):
            settle(upstream: upstream, completed: true, client: client)
            return .none
        case .settled:
            // The end of a transfer whose exchange already settled (its head was answered with an error).
            return .none
        case .responseEnded:
            invalid("a second upstream end")
        }
    }

    /// The upstream transfer failed, or was aborted. `outcome` carries the `error` event to
    /// record when the client is still there; when the client already left, the exchange is a
    /// `cancel` instead.
    mutating func upstreamFailed(message: String, timedOut: Bool = false, outcome: UpstreamOutcome? = nil) -> Action {
        let upstream =
            outcome
            ?? UpstreamOutcome(
                t: 0, received: 0,
                failure: ErrorEvent(
                    t: 0, exchange: exchange, connection: connection, kind: timedOut ? .upstreamTimeout : .upstream,
                    message: message))
        switch state {
        case .awaitingHead:
            settleFailure(upstream)
            let status =
                upstream.failure?.status.map { HTTPResponseStatus(statusCode: $0) }
                ?? (timedOut ? .gatewayTimeout : .badGateway)
            return .respondWithError(status, message: message)
        case .streaming, .bodyEnded:
            settleFailure(upstream)
            return .closeConnection
        case .clientGone(let client):
            settle(upstream: upstream, completed: false, client: client)
            return .none
        case .settled:
            return .none
        case .responseEnded:
            invalid("an upstream failure after its end")
        }
    }

    /// The client closed its connection (or reset its stream). `outcome` says how many body
    /// bytes reached it (by default: the writes the socket accepted). Mid-response, the upstream
    /// transfer is aborted; the exchange settles when upstream has stopped.
    mutating func clientClosed(_ outcome: ClientOutcome? = nil) -> Action {
        let client = outcome ?? ClientOutcome(t: 0, delivered: bytesDelivered, measure: .writes, gone: true)
        switch state {
        case .awaitingHead, .streaming, .bodyEnded:
            state = .clientGone(client: client)
            return .cancelUpstream(delivered: client.delivered)
        case .responseEnded(let upstream):
            settle(upstream: upstream, completed: true, client: client)
            return .none
        case .clientGone, .settled:
            invalid("a second client close")
        }
    }

    /// Every body byte of a finished response was seen to reach the client (or rangetap closed
    /// the connection after the last byte, leaving the rest to the kernel).
    mutating func clientReceivedAll(_ outcome: ClientOutcome) -> Action {
        guard case .responseEnded(let upstream) = state else { invalid("the client's receipt of the whole response") }
        settle(upstream: upstream, completed: true, client: outcome)
        return .none
    }

    /// The event to record now, if an input just produced one (an `end`, `cancel` or `error`).
    mutating func takeRecord() -> CaptureEvent? {
        defer { outbox = nil }
        return outbox
    }

    /// Both halves are done: `end` when the client got every byte upstream delivered (or did
    /// not close), `cancel` when it left short of that or the transfer stopped short after it left.
    private mutating func settle(upstream u: UpstreamOutcome, completed: Bool, client c: ClientOutcome) {
        if !completed || (c.gone && c.delivered < u.received) {
            settle(
                with: .cancel(
                    CancelEvent(
                        t: c.t, exchange: exchange, delivered: c.delivered, received: u.received,
                        sendBuffer: c.sendBuffer, sha256: "", deliveredBy: c.measure, consumed: c.consumed)))
        } else {
            settle(
                with: .end(
                    EndEvent(
                        t: u.t, exchange: exchange, bytes: u.received, sha256: "", trailers: u.trailers,
                        delivered: min(c.delivered, u.received), deliveredBy: c.measure, consumed: c.consumed)))
        }
    }

    /// The transfer failed with the client there: its `error` (every failure the upstream half
    /// reports while the client is there carries one).
    private mutating func settleFailure(_ upstream: UpstreamOutcome) {
        guard let failure = upstream.failure else { invalid("a failure without its error event") }
        settle(with: .error(failure))
    }

    private mutating func settle(with event: CaptureEvent) {
        state = .settled
        outbox = event
    }

    /// A body write finished. `written` tells whether the socket took it; `windowDrained` is
    /// ``FlowControl/complete(_:)``'s answer.
    mutating func writeCompleted(_ bytes: Int, written: Bool, windowDrained: Bool) -> Action {
        if written { bytesDelivered += Int64(bytes) }
        switch state {
        case .streaming, .bodyEnded: return windowDrained ? .resumeUpstream : .none
        default: return .none
        }
    }
}
