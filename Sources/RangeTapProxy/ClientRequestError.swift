import NIOHTTP1

/// Why rangetap could not read what a client sent as an HTTP/1.1 request, in words the user
/// can act on: the body of the 400 the client gets and the message of the `bad-request` event.
public struct ClientRequestError: Error, Sendable, Hashable, CustomStringConvertible {
    private enum Code: Sendable, Hashable {
        case http2PriorKnowledge
        case notHTTP
        case badVersion
        case headTooLarge
        case malformed(String)
    }
    private let code: Code
    private init(_ code: Code) { self.code = code }

    /// The HTTP/2 connection preface (`PRI * HTTP/2.0`) on the HTTP/1.1 listener.
    public static let http2PriorKnowledge = Self(.http2PriorKnowledge)
    /// The first bytes are not an HTTP method (often TLS sent to an `http://` proxy).
    public static let notHTTP = Self(.notHTTP)
    /// An HTTP version other than 1.0 and 1.1.
    public static let badVersion = Self(.badVersion)
    /// A header line or the whole head over the decoder's limits.
    public static let headTooLarge = Self(.headTooLarge)
    /// Any other syntax error, named by the parser.
    public static func malformed(_ detail: String) -> Self { .init(.malformed(detail)) }

    /// What NIO's HTTP/1.1 decoder reporting `error` means for the user; `nil` for errors that
    /// are not about the bytes of the request (I/O errors and the like).
    public static func describing(_ error: any Error) -> ClientRequestError? {
        guard let parse = error as? HTTPParserError else { return nil }
        switch parse {
        // llhttp pauses on the HTTP/2 preface (HPE_PAUSED_H2_UPGRADE); a server decoder
        // reports nothing else as paused.
        case .paused: return .http2PriorKnowledge
        case .invalidMethod: return .notHTTP
        case .invalidVersion: return .badVersion
        case .headerOverflow: return .headTooLarge
        // The end of the stream inside a request is the client leaving, not a bad request:
        // ClientProtocolErrorHandler reports it as a `ClientLeftMidRequest`.
        case .invalidEOFState: return nil
        // llhttp's catch-all; in practice a framing it will not guess at.
        case .unknown:
            return .malformed(
                "refused by the HTTP/1.1 parser: often a framing no proxy should guess at, such as Content-Length together with Transfer-Encoding, or a Transfer-Encoding other than chunked"
            )
        default: return .malformed("\(parse)")
        }
    }

    /// The status the client is answered with: 431 for a head too large, else 400.
    public var status: HTTPResponseStatus {
        code == .headTooLarge ? .requestHeaderFieldsTooLarge : .badRequest
    }

    public var description: String {
        switch code {
        case .http2PriorKnowledge:
            "the client sent the HTTP/2 connection preface (HTTP/2 with prior knowledge), which rangetap takes only as the first bytes of a connection, and not when recording with --http1. Drop --http1 to record HTTP/2, or use HTTP/1.1 to the proxy (curl: --http1.1 instead of --http2-prior-knowledge)."
        case .notHTTP:
            "the request does not start with an HTTP method. If the client sent TLS, give it the proxy as http://HOST:PORT, not https:// (rangetap's listener speaks plain HTTP/1.1; https URLs go through it with CONNECT)."
        case .badVersion:
            "the request line names an HTTP version rangetap does not accept; send HTTP/1.1 (or HTTP/1.0)."
        case .headTooLarge:
            "the request head is too large (a header line over 80 KB, or too many header lines); send fewer or shorter headers."
        case .malformed(let detail):
            "malformed HTTP/1.1 request (\(detail)); check what the client sends with curl -v or a packet capture."
        }
    }
}
