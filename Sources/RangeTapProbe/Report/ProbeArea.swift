/// What part of a server's behaviour a check looks at; the text report groups checks by area.
public enum ProbeArea: String, Sendable, Codable, CaseIterable {
    /// HEAD and plain GET: status, length, Accept-Ranges, Content-Type, validators.
    case resource
    /// One satisfiable range per request.
    case singleRange = "single-range"
    /// Ranges that select nothing: 416 and its `Content-Range: bytes */LEN`.
    case unsatisfiable
    /// Range headers that are invalid or unusual: ignored or refused.
    case invalidRange = "invalid-range"
    /// Several ranges in one request.
    case multiRange = "multi-range"
    /// `If-Range` with the server's validators and stale ones.
    case ifRange = "if-range"
    /// Range on HEAD and on HTTP/1.0 requests.
    case methodVersion = "method-version"
    /// Connection reuse, `Connection: close`, HTTP/1.0 keep-alive, hang-ups mid-body.
    case keepAlive = "keep-alive"
    /// With `--http2`: every response over HTTP/2, concurrent streams, a reset stream.
    case http2
    /// Header name case, duplicates, line endings, over every response of the probe.
    case headers
    /// Ranges combined with `Accept-Encoding: gzip`.
    case compression

    /// The heading of the area in the text report.
    public var title: String {
        switch self {
        case .resource: "resource (HEAD and GET)"
        case .singleRange: "single ranges"
        case .unsatisfiable: "unsatisfiable ranges"
        case .invalidRange: "invalid and unusual Range headers"
        case .multiRange: "multiple ranges"
        case .ifRange: "If-Range"
        case .methodVersion: "Range on HEAD and HTTP/1.0"
        case .keepAlive: "keep-alive"
        case .http2: "HTTP/2 connection (streams and resets)"
        case .headers: "header spelling"
        case .compression: "compression"
        }
    }
}
