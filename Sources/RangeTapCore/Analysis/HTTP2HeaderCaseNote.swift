/// The note that replaces header-case judgement for responses received over HTTP/2: their names
/// are lower-case by definition (RFC 9113 §8.2.1), so the capture cannot say how the origin
/// spells them to HTTP/1.1 clients. One `h2-header-case-unknown` finding per origin.
enum HTTP2HeaderCaseNote {
    /// One finding per origin (scheme and authority of the URL) whose responses came over
    /// HTTP/2, in the order of each origin's first such exchange, tied to that exchange.
    static func findings(_ records: [ExchangeRecord]) -> [Finding] {
        var seen: Set<String> = []
        var out: [Finding] = []
        for r in records where r.isHTTP2Upstream {
            let origin = r.origin ?? r.target
            guard seen.insert(origin.lowercased()).inserted else { continue }
            let statusLine = r.responseLines.first?.raw ?? ""
            out.append(
                Finding(
                    .http2HeaderCaseUnknown,
                    "responses from \(origin) came over HTTP/2, where header names are lower-case by definition (RFC 9113 §8.2.1), so their case is not judged: HTTP/1.1 clients of the same origin see the names it sends on HTTP/1.1, which this capture cannot show; rangetap probe URL (HTTP/1.1) checks them",
                    evidence: [statusLine], exchange: r.id))
        }
        return out
    }
}
