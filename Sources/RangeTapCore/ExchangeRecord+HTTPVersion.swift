extension ExchangeRecord {
    /// The client side's HTTP version, from the request: `"1.0"`, `"1.1"` or `"2"` (an HTTP/2
    /// stream); another version is given as the request said it, without `HTTP/`.
    public var clientHTTPVersion: String {
        Self.versionNumber(requestVersion) ?? requestVersion
    }

    /// The upstream side's HTTP version, from the status line libcurl received
    /// (`HTTP/1.1 206 Partial Content`, `HTTP/2 206`): `"1.0"`, `"1.1"` or `"2"`; nil when no
    /// response head came (a refused request, an upstream failure, a CONNECT tunnel) or its
    /// first line is not a status line.
    public var upstreamHTTPVersion: String? {
        guard let first = responseLines.first else { return nil }
        let content = first.content
        let token = content.prefix(while: { $0 != " " && $0 != "\t" })
        return Self.versionNumber(token)
    }

    /// Whether the request came as an HTTP/2 stream (it then has a ``stream`` id).
    public var isHTTP2Client: Bool { stream != nil || clientHTTPVersion == "2" }

    /// Whether the response came from upstream over HTTP/2: its field names are lower-case
    /// by definition (RFC 9113 §8.2.1), so their case says nothing about the origin's spelling.
    public var isHTTP2Upstream: Bool { upstreamHTTPVersion == "2" }

    /// `"1.1"` for `HTTP/1.1`, `"2"` for `HTTP/2` or `HTTP/2.0`; nil when `token` is not `HTTP/…`.
    static func versionNumber(_ token: some StringProtocol) -> String? {
        guard token.count > 5, token.prefix(5).uppercased() == "HTTP/" else { return nil }
        let number = String(token.dropFirst(5))
        return number == "2.0" ? "2" : number
    }
}
