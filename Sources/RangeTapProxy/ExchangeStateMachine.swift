import NIOCore
import NIOHTTP1
import RangeTapCore

/// The client-facing life of one exchange, on the event loop: what to write or do for each
/// thing upstream or the client does. A value type; ``ProxyHandler`` carries out its actions.
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

    init(clientVersion: HTTPVersion, clientKeepAlive: Bool, method: String = "GET", clientAcceptsTrailers: Bool = false) {
        self.clientVersion = clientVersion
        self.clientKeepAlive = clientKeepAlive
        self.method = method
        self.clientAcceptsTrailers = clientAcceptsTrailers
    }

    /// An interim (1xx) head from upstream: relayed to an HTTP/1.1 client, up to a bound.
    mutating func upstreamInterim(lines: [HeaderLine]) -> Action {
        guard state == .awaitingHead else { return .none }
        guard clientVersion == .http1_1, interimRelayed < Self.maxInterimRelayed,
              let forwarded = try? HeaderForwarding.clientResponseHead(lines)
        else {
            interimHeld += 1
            return .none
        }
        interimRelayed += 1
        let (statusLine, versionChange) = Self.ownVersion(forwarded.statusLine)
        let text = statusLine + forwarded.fields.joined() + "\r\n"
        return .writeInterim(ClientHead(status: UpstreamHeadAssembler.status(of: lines.first), bytes: Latin1.bytes(text), framing: .noBody, changes: forwarded.changes + versionChange))
    }

    /// The final head from upstream, raw lines as libcurl delivered them.
    mutating func upstreamHead(lines: [HeaderLine]) -> Action {
        guard state == .awaitingHead else { return .none }
        let forwarded: ForwardedResponseHead
        do {
            forwarded = try HeaderForwarding.clientResponseHead(lines)
        } catch {
            state = .finished
            return .respondWithError(.badGateway, message: "the upstream response head is unusable: \(error)")
        }
        state = .streaming
        let status = UpstreamHeadAssembler.status(of: lines.first)
        var changes = forwarded.changes
        var fields = forwarded.fields
        let (statusLine, versionChange) = Self.ownVersion(forwarded.statusLine)
        changes += versionChange

        let fieldLines = lines.dropFirst().map { $0.removingSpaceBeforeColon() }.filter { $0.name != nil }
        let transferEncoding = fieldLines.filter { $0.name!.lowercased() == "transfer-encoding" }
        let hasLength = fieldLines.contains { $0.name!.lowercased() == "content-length" }
        let noBody = method == "HEAD" || status == 204 || status == 304 || (100..<200).contains(status)

        if !transferEncoding.isEmpty {
            if hasLength {
                let removed = fields.filter { HeaderLine(raw: $0).name?.lowercased() == "content-length" }
                fields.removeAll { HeaderLine(raw: $0).name?.lowercased() == "content-length" }
                changes.append(HeadChange(.contentLengthWithTransferEncoding, original: removed))
            }
            if clientVersion == .http1_1 {
                // The origin's own line(s), as spelled: rangetap frames the body in chunks again.
                fields += transferEncoding.map { String($0.content) + "\r\n" }
                changes.removeAll { $0.reason == .hopByHop && $0.original.allSatisfy { HeaderLine(raw: $0).name?.lowercased() == "transfer-encoding" } }
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

    /// Upstream ended the body; `trailers` are its trailer lines (chunked bodies).
    mutating func upstreamEnd(trailers: [HeaderLine] = []) -> Action {
        switch state {
        case .streaming:
            state = .finished
            var sent: [String] = []
            if framing == .chunked && clientAcceptsTrailers {
                sent = trailers.map { String($0.removingSpaceBeforeColon().content) + "\r\n" }.filter { !$0.contains("\r\n\r") }
            }
            return .writeEnd(close: closeAfterEnd || !clientKeepAlive, trailers: sent)
        case .awaitingHead:
            // libcurl ended without a head (cannot happen for HTTP, but never leave a client hanging).
            state = .finished
            return .respondWithError(.badGateway, message: "the upstream response ended before its head")
        case .finished, .clientGone:
            return .none
        }
    }

    mutating func upstreamFailed(message: String, timedOut: Bool = false) -> Action {
        switch state {
        case .awaitingHead:
            state = .finished
            return .respondWithError(timedOut ? .gatewayTimeout : .badGateway, message: message)
        case .streaming:
            state = .finished
            return .closeConnection
        case .finished, .clientGone:
            return .none
        }
    }

    mutating func clientClosed() -> Action {
        switch state {
        case .awaitingHead, .streaming:
            state = .clientGone
            return .cancelUpstream(delivered: bytesDelivered)
        case .finished, .clientGone:
            return .none
        }
    }

    /// A body write finished. `written` tells whether the socket took it; `windowDrained` is
    /// ``FlowControl/complete(_:)``'s answer.
    mutating func writeCompleted(_ bytes: Int, written: Bool, windowDrained: Bool) -> Action {
        if written { bytesDelivered += Int64(bytes) }
        return windowDrained && state == .streaming ? .resumeUpstream : .none
    }
}
