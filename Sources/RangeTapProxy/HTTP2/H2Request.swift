import NIOHPACK
import NIOHTTP1
import RangeTapCore

/// A request head received on an HTTP/2 stream (RFC 9113 §8.3.1): its pseudo-header fields and
/// its other fields, in order, as received.
struct H2Request {
    var method: String
    var scheme: String?
    var authority: String?
    var path: String?
    /// The fields other than pseudo-header fields, in order.
    var fields: [(name: String, value: String)]
    /// Every field line as received, pseudo-header fields first (for the capture).
    var lines: [HeaderLine]
    /// The name of the first field (pseudo-header fields included) whose name or value holds
    /// U+FFFD: where NIOHPACK, which decodes field values as UTF-8, put a replacement for bytes
    /// that are not UTF-8 (or the client sent that character itself). Forwarding it would send
    /// the origin `EF BF BD` for bytes the client never sent.
    var fieldNotAsSent: String?

    init(_ headers: HPACKHeaders) {
        method = ""
        fields = []
        lines = []
        for (name, value, _) in headers {
            lines.append(HeaderLine(raw: "\(name): \(value)\r\n"))
            if fieldNotAsSent == nil,
                name.unicodeScalars.contains("\u{FFFD}") || value.unicodeScalars.contains("\u{FFFD}")
            {
                fieldNotAsSent = TerminalText.escapingControls(String(name.prefix(100)))
            }
            switch name {
            case ":method": method = value
            case ":scheme": scheme = value
            case ":authority": authority = value
            case ":path": path = value
            default:
                if !name.hasPrefix(":") { fields.append((name, value)) }
            }
        }
    }

    /// The request target rangetap resolves: the path when the origin is known (inside a tunnel,
    /// or with `--upstream`), else the absolute URL the pseudo-header fields spell.
    func target(originKnown: Bool) -> String {
        let path = self.path ?? "/"
        if originKnown { return path }
        return "\(scheme ?? "http")://\(authority ?? "")\(path)"
    }

    /// The fields as NIO's HTTP/1 headers, for the upstream request: `Host` from `:authority`
    /// first, `Cookie` fields joined with "; " (RFC 9113 §8.2.3).
    var http1Headers: HTTPHeaders {
        var headers = HTTPHeaders()
        if let authority, !fields.contains(where: { $0.name == "host" }) { headers.add(name: "host", value: authority) }
        var cookies: [String] = []
        for (name, value) in fields {
            if name == "cookie" { cookies.append(value) } else { headers.add(name: name, value: value) }
        }
        if !cookies.isEmpty { headers.add(name: "cookie", value: cookies.joined(separator: "; ")) }
        return headers
    }

    /// Whether `text` can be an `:authority`: `[userinfo@]host[:port]`, with none of the bytes
    /// that would end it inside a URL (`/`, `?`, `#`, `\`), no whitespace and no controls.
    static func isAuthority(_ text: String) -> Bool {
        !text.isEmpty
            && text.utf8.allSatisfy { b in
                b > 0x20 && b != 0x7F && b != UInt8(ascii: "/") && b != UInt8(ascii: "?") && b != UInt8(ascii: "#")
                    && b != UInt8(ascii: "\\")
            }
    }

    /// The declared `content-length`, if any.
    var contentLength: Int? {
        fields.first { $0.name == "content-length" }.flatMap { Int($0.value.trimmingHTTPWhitespace()) }
    }

    /// Whether the client sent `te: trailers`.
    var acceptsTrailers: Bool {
        fields.contains { $0.name == "te" && $0.value.lowercased().contains("trailers") }
    }
}

extension ClientHead {
    /// The head as HTTP/2 header fields: `:status`, then each field line's name (lower-case)
    /// and value, in order.
    var hpack: HPACKHeaders {
        var headers = HPACKHeaders()
        headers.add(name: ":status", value: String(status))
        for line in text.split(separator: "\r\n", omittingEmptySubsequences: true).dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers.add(
                name: line[..<colon].lowercased(),
                value: String(line[line.index(after: colon)...].trimmingHTTPWhitespace()))
        }
        return headers
    }

    /// Trailer lines (`Name: value\r\n`) as HTTP/2 header fields.
    static func hpack(trailers: [String]) -> HPACKHeaders {
        var headers = HPACKHeaders()
        for raw in trailers {
            var line = Substring(raw)
            while let last = line.last, last == "\r\n" || last == "\n" || last == "\r" { line = line.dropLast() }
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers.add(
                name: line[..<colon].lowercased(),
                value: String(line[line.index(after: colon)...].trimmingHTTPWhitespace()))
        }
        return headers
    }
}
