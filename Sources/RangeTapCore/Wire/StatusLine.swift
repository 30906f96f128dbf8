/// A response status line as libcurl's header callback delivers it, read leniently:
/// `HTTP/1.1 206 Partial Content`, `HTTP/1.0 200`, or `HTTP/2 200` (how libcurl writes the head
/// of a response that came over HTTP/2 or 3).
///
/// Only the version and the status are interpreted; the line itself stays in the head as sent
/// (see ``HeaderLine``), so a proxy forwards the reason phrase byte for byte.
public struct StatusLine: Sendable, Hashable {
    /// The protocol version as written, `HTTP/1.1`.
    public var version: Substring
    /// The status code.
    public var status: Int
    /// The reason phrase as sent after the status and one space, inner spaces kept; empty
    /// when none was sent.
    public var reason: Substring

    /// Reads `line` (terminator ignored): a first word starting with `HTTP/`, then a number;
    /// nil for anything else.
    public init?(_ line: HeaderLine) {
        let content = line.content
        let parts: [Substring]
        let code: Int?
        if let ascii = Self.asciiWords(content) {
            // The same checks on bytes (`hasPrefix` and `Int(_:)` of a substring compare and
            // parse characters).
            parts = ascii
            guard parts.count >= 2, parts[0].utf8.starts(with: "HTTP/".utf8) else { return nil }
            code = Self.decimal(parts[1].utf8)
        } else {
            parts = Self.characterWords(content)
            guard parts.count >= 2, parts[0].hasPrefix("HTTP/") else { return nil }
            code = Int(parts[1])
        }
        guard let code else { return nil }
        version = parts[0]
        self.status = code
        reason = parts.count > 2 ? parts[2] : ""
    }

    /// `Int(_:)` of ASCII text: an optional `+` or `-`, then one or more decimal digits; nil
    /// for anything else and for a number `Int` cannot hold.
    static func decimal(_ u: Substring.UTF8View) -> Int? {
        var i = u.startIndex
        var negative = false
        if i < u.endIndex, u[i] == UInt8(ascii: "+") || u[i] == UInt8(ascii: "-") {
            negative = u[i] == UInt8(ascii: "-")
            u.formIndex(after: &i)
        }
        guard i < u.endIndex else { return nil }
        var n = 0
        while i < u.endIndex {
            let digit = u[i] &- UInt8(ascii: "0")
            guard digit < 10 else { return nil }
            let (times10, o1) = n.multipliedReportingOverflow(by: 10)
            let (next, o2) =
                negative
                ? times10.subtractingReportingOverflow(Int(digit)) : times10.addingReportingOverflow(Int(digit))
            if o1 || o2 { return nil }
            n = next
            u.formIndex(after: &i)
        }
        return n
    }

    /// Up to three words: what `split(separator: " ", maxSplits: 2)` gives.
    static func characterWords(_ content: Substring) -> [Substring] {
        content.split(separator: " ", maxSplits: 2)
    }

    /// ``characterWords(_:)`` for an all-ASCII line, read byte by byte (in ASCII every character
    /// but CR LF is one byte, and a space never joins another character), or nil for any other
    /// line. The character split broke every status line into grapheme clusters, several times
    /// per response on the upstream thread (measured in the history of docs/performance.md).
    static func asciiWords(_ content: Substring) -> [Substring]? {
        let u = content.utf8
        guard u.allSatisfy({ $0 < 0x80 }) else { return nil }
        let space = UInt8(ascii: " ")
        var i = u.startIndex
        func skipSpaces() { while i < u.endIndex, u[i] == space { u.formIndex(after: &i) } }
        func word() -> Substring {
            let start = i
            while i < u.endIndex, u[i] != space { u.formIndex(after: &i) }
            return content[start..<i]
        }
        var words: [Substring] = []
        skipSpaces()
        guard i < u.endIndex else { return words }
        words.append(word())
        skipSpaces()
        guard i < u.endIndex else { return words }
        words.append(word())
        guard i < u.endIndex else { return words }
        u.formIndex(after: &i)
        if i < u.endIndex { words.append(content[i...]) }
        return words
    }

    /// The status code of `line`, or 0 when it is missing or no status line.
    public static func status(of line: HeaderLine?) -> Int {
        line.flatMap(StatusLine.init)?.status ?? 0
    }
}
