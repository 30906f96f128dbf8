import NIOHTTP1
import RangeTapCore

/// Which headers cross the proxy, per RFC 9110 §7.6.1: hop-by-hop fields and those named in
/// `Connection` stop here; everything else passes in order, name case kept.
enum HeaderForwarding {
    /// Fields that are always hop-by-hop, lowercased.
    static let hopByHop: Set<String> = [
        "connection", "keep-alive", "proxy-connection", "te", "trailer", "transfer-encoding", "upgrade",
    ]

    /// Lowercased names the `Connection` fields list.
    static func connectionTokens(_ values: [Substring]) -> Set<String> {
        var set = Set<String>()
        for v in values {
            for token in HeaderByte.commaSeparated(v) {
                set.insert(token.trimmingHTTPWhitespace().lowercased())
            }
        }
        return set
    }

    /// Header lines `Name: value` for libcurl, from a client request. Host is left to libcurl
    /// (it derives it from the URL), Content-Length from the body, and `Accept:`, `Expect:` and
    /// `Content-Type:` are blanked when the client sent none so libcurl adds nothing of its own.
    static func upstreamRequestLines(_ headers: HTTPHeaders) -> [String] {
        let listed = connectionTokens(headers[canonicalForm: "connection"])
        var out: [String] = []
        var sawAccept = false
        var sawExpect = false
        var sawContentType = false
        for (name, value) in headers {
            let lower = name.lowercased()
            if hopByHop.contains(lower) || listed.contains(lower) { continue }
            if lower == "host" || lower == "content-length" || lower == "proxy-authorization" { continue }
            if lower == "accept" { sawAccept = true }
            if lower == "expect" { sawExpect = true }
            if lower == "content-type" { sawContentType = true }
            // libcurl treats "Name:" as removal and "Name;" as an empty value.
            out.append(value.isEmpty ? "\(name);" : "\(name): \(value)")
        }
        if !sawAccept { out.append("Accept:") }
        if !sawExpect { out.append("Expect:") }
        if !sawContentType { out.append("Content-Type:") }
        return out
    }

    /// A raw head's lines (request or status line first), terminators kept, blank line dropped.
    static func rawLines(_ bytes: [UInt8]) -> [HeaderLine] {
        var lines: [HeaderLine] = []
        var start = 0
        for i in bytes.indices where bytes[i] == 10 {
            lines.append(HeaderLine(raw: Latin1.string(bytes[start...i])))
            start = i + 1
        }
        if start < bytes.count { lines.append(HeaderLine(raw: Latin1.string(bytes[start...]))) }
        if lines.last?.isBlank == true { lines.removeLast() }
        return lines
    }

    /// Header lines for libcurl from the client's raw field lines, each sent as the client wrote
    /// it (name case, whitespace, order), except: hop-by-hop fields and those `Connection` lists
    /// are dropped, and `Proxy-Authorization` (meant for this proxy); `Host` takes the target's
    /// authority in its place (RFC 9112 §3.2.2); an obs-fold is joined with one SP (RFC 9112
    /// §5.2); an empty value is sent as `Name:` (libcurl's `Name;`). `Accept:`, `Expect:` and
    /// `Content-Type:` are blanked when the client sent none, so libcurl adds nothing of its own.
    static func upstreamRequestLines(raw fields: [HeaderLine], authority: String?) -> [String] {
        let parsed = logicalFields(fields).compactMap { text -> (name: Substring, text: String, value: Substring)? in
            guard let name = HeaderLine(raw: text).name else { return nil }
            // The name ends at the first colon byte. That colon is a character of its own unless
            // a mark follows it (never in a real request): only then is it looked up by
            // characters, as it always was.
            let u = text.utf8
            let afterColon = u.index(after: name.endIndex)
            let colon: String.Index
            if afterColon == u.endIndex || u[afterColon] < 0x80 {
                colon = name.endIndex
            } else {
                guard let c = text.firstIndex(of: ":") else { return nil }
                colon = c
            }
            return (name, text, text[text.index(after: colon)...])
        }
        // Names are tokens (ASCII), so comparing them ignoring ASCII case is comparing their
        // lowercased forms, without a lowercased copy and a hash for every field.
        func isNamed(_ name: Substring, _ lower: String) -> Bool {
            HeaderByte.equalsIgnoringASCIICase(name.utf8, lower.utf8)
        }
        let connection = parsed.filter { isNamed($0.name, "connection") }
        let listed = connection.isEmpty ? [] : connectionTokens(connection.map { $0.value })
        var out: [String] = []
        var sawAccept = false
        var sawExpect = false
        var sawContentType = false
        for field in parsed {
            if HeaderByte.contains(hopByHop, field.name) || HeaderByte.contains(listed, field.name)
                || isNamed(field.name, "proxy-authorization")
            {
                continue
            }
            if isNamed(field.name, "accept") { sawAccept = true }
            if isNamed(field.name, "expect") { sawExpect = true }
            if isNamed(field.name, "content-type") { sawContentType = true }
            if isNamed(field.name, "host") {
                if let authority { out.append("\(field.name): \(authority)") }
                continue
            }
            out.append(field.value.trimmingHTTPWhitespace().isEmpty ? "\(field.name);" : field.text)
        }
        if !sawAccept { out.append("Accept:") }
        if !sawExpect { out.append("Expect:") }
        if !sawContentType { out.append("Content-Type:") }
        return out
    }

    /// The request's logical fields, without terminators: a continuation line joins the field
    /// before it with one SP.
    static func logicalFields(_ fields: [HeaderLine]) -> [String] {
        var joined: [String] = []
        for line in fields {
            let content = String(line.content)
            if let first = content.unicodeScalars.first, first == " " || first == "\t", !joined.isEmpty {
                joined[joined.count - 1] += " " + content.trimmingHTTPWhitespace()
            } else {
                joined.append(content)
            }
        }
        return joined
    }

    /// The client-facing headers of an upstream response: field lines in order and case,
    /// hop-by-hop fields removed.
    static func clientResponseHeaders(_ lines: [HeaderLine]) -> HTTPHeaders {
        let fields = lines.compactMap { line -> (String, String)? in
            guard let n = line.name, let v = line.value else { return nil }
            return (String(n), String(v))
        }
        let listed = connectionTokens(fields.filter { $0.0.lowercased() == "connection" }.map { Substring($0.1) })
        var headers = HTTPHeaders()
        for (name, value) in fields {
            let lower = name.lowercased()
            if hopByHop.contains(lower) || listed.contains(lower) { continue }
            headers.add(name: name, value: value)
        }
        return headers
    }

    /// The raw head to send the client for one upstream response head (`lines` as libcurl
    /// delivers them), changed only where RFC 9112 requires it of a proxy: whitespace before a
    /// colon removed, obs-folds joined with SP, the ``hopByHop`` fields and those `Connection`
    /// lists dropped, fields holding a bare CR refused, CRLF line endings. The result lists each
    /// change with its reason for the capture. Throws when the first line is no status line.
    static func clientResponseHead(_ lines: [HeaderLine]) throws(ForwardedHeadError) -> ForwardedResponseHead {
        try ForwardedResponseHead(upstream: lines, hopByHop: hopByHop)
    }

    /// The request's header lines as the capture stores them.
    static func captureLines(_ headers: HTTPHeaders, keepSecrets: Bool) -> [HeaderLine] {
        let lines = headers.map { HeaderLine(raw: "\($0.name): \($0.value)\r\n") }
        return keepSecrets ? lines : lines.redactingSecrets()
    }
}
