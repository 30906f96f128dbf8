/// One change ``ForwardedResponseHead`` made to an upstream head, for the caller to record.
public struct HeadChange: Sendable, Hashable, CustomStringConvertible {
    /// Why the head was changed; the raw value is a stable code.
    public enum Reason: String, Sendable, Hashable, CaseIterable {
        /// Whitespace between a field name and its colon removed (RFC 9112 §5.1).
        case spaceBeforeColon = "space-before-colon"
        /// A folded value joined onto one line, each obs-fold replaced by one SP (RFC 9112 §5.2).
        case obsFold = "obs-fold"
        /// A whitespace-preceded line right after the status line, dropped (RFC 9112 §2.2).
        case whitespaceAfterStatusLine = "whitespace-after-status-line"
        /// A hop-by-hop field dropped (RFC 9110 §7.6.1).
        case hopByHop = "hop-by-hop"
        /// A field named in `Connection`, dropped (RFC 9110 §7.6.1).
        case connectionListed = "connection-listed"
        /// A field whose value holds a bare CR, refused: forwarding it would let the client see a
        /// field the server did not send (response splitting, RFC 9112 §2.2, §11.1).
        case bareCR = "bare-cr"
        /// A line that is no field line (no colon, or no token before it), dropped (RFC 9112 §5).
        case malformedLine = "malformed-line"
        /// Bare-LF line endings sent as CRLF (RFC 9112 §2.2).
        case bareLF = "bare-lf"
        /// The status line's HTTP-version replaced by rangetap's own, HTTP/1.1 (RFC 9110 §6.2).
        case version = "version"
        /// A `Connection` field added: `close` when rangetap will close after this response,
        /// `keep-alive` for an HTTP/1.0 client that asked to keep the connection (RFC 9112 §9.3).
        case connectionAdded = "connection-added"
        /// Content-Length removed because Transfer-Encoding is also present (RFC 9112 §6.3).
        case contentLengthWithTransferEncoding = "content-length-with-transfer-encoding"
        /// Transfer-Encoding not sent to an HTTP/1.0 client; the body ends with the close
        /// instead (RFC 9112 §6.1).
        case transferEncodingToHTTP10 = "transfer-encoding-http10"
        /// Trailer fields not sent: the client did not send `TE: trailers` (RFC 9110 §6.5.1).
        case trailersDropped = "trailers-dropped"
        /// The head sent as an HTTP/2 HEADERS frame (RFC 9113 §8.3): no reason phrase, field
        /// names lower-case, connection-specific fields (`Connection`, `Keep-Alive`,
        /// `Proxy-Connection`, `Transfer-Encoding`, `Upgrade`) left out.
        case http2 = "http2"
    }

    /// Why.
    public var reason: Reason
    /// The upstream lines concerned, raw, terminators included.
    public var original: [String]
    /// The line sent instead (CRLF included), or `nil` when the lines were dropped.
    public var replacement: String?

    /// Creates a change.
    public init(_ reason: Reason, original: [String], replacement: String? = nil) {
        self.reason = reason
        self.original = original
        self.replacement = replacement
    }

    public var description: String {
        let from = original.map { $0.debugDescription }.joined(separator: " + ")
        return "\(reason.rawValue): \(from) → \(replacement?.debugDescription ?? "dropped")"
    }
}
