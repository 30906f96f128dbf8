/// One header line exactly as it crossed the wire: the status line, a `Name: value` field line
/// or the blank line that ends a head, terminator (`\r\n` or a bare `\n`) included.
///
/// The text is Latin-1 mapped (see ``Latin1``), so every byte is kept.
public struct HeaderLine: Sendable, Hashable, CustomStringConvertible {
    /// The line as received, terminator included.
    public var raw: String

    /// Wraps a raw line.
    public init(raw: String) { self.raw = raw }

    /// The line without its terminator.
    ///
    /// This and the other accessors read the line's UTF-8 bytes: every byte they look for (CR, LF,
    /// colon, space, tab, token characters) is ASCII, so a byte match is a code point match and
    /// the indices found are code point boundaries. They run for every header line of every
    /// exchange, several times; walking Unicode scalars made them the largest cost of a small
    /// request after SHA-256 (docs/performance.md, "Per request").
    public var content: Substring {
        let u = raw.utf8
        var end = u.endIndex
        if end > u.startIndex, u[u.index(before: end)] == HeaderByte.lf {
            end = u.index(before: end)
            if end > u.startIndex, u[u.index(before: end)] == HeaderByte.cr {
                end = u.index(before: end)
            }
        }
        return Substring(raw.unicodeScalars[..<end])
    }

    /// The terminator as sent: `"\r\n"`, `"\n"`, or `""` when the line was cut off.
    public var terminator: String {
        String(Substring(raw.unicodeScalars[content.endIndex...]))
    }

    /// The field name exactly as spelled, or nil for the status line, a blank line or garbage.
    ///
    /// Read code point by code point, as ``syntax`` reads it: a colon followed by a combining mark
    /// (possible in a capture's JSON, never in Latin-1) still ends the name.
    public var name: Substring? {
        Self.name(in: content)
    }

    /// The field value with surrounding whitespace removed, or nil when this is no field line.
    public var value: Substring? {
        let c = content
        guard let n = Self.name(in: c) else { return nil }
        return Substring(c.unicodeScalars[c.utf8.index(after: n.endIndex)...]).trimmingHTTPWhitespace()
    }

    /// The name of field line content `c` (up to its first colon, all token characters).
    static func name(in c: Substring) -> Substring? {
        let u = c.utf8
        guard let colon = u.firstIndex(of: HeaderByte.colon), colon > u.startIndex,
            u[..<colon].allSatisfy(HeaderByte.isToken)
        else { return nil }
        return Substring(c.unicodeScalars[..<colon])
    }

    /// The value (as ``value`` reads it) when this is a field line named `fieldName`, ignoring
    /// ASCII case; nil otherwise, and always nil when `fieldName` is no token.
    ///
    /// What `name` and `value` give, without finding the line's own name first: a line named
    /// `fieldName` is `fieldName`'s bytes (ignoring case) then a colon, and no other line is
    /// (a token holds no colon). Lookups by name run for every line of every head the capture's
    /// readers and the live log see.
    public func value(ifNamed fieldName: String) -> Substring? {
        guard let colon = colon(ifNamed: fieldName) else { return nil }
        let c = content
        return Substring(c.unicodeScalars[c.utf8.index(after: colon)...]).trimmingHTTPWhitespace()
    }

    /// Whether this is a field line named `other`, ignoring ASCII case (field names are tokens).
    public func isNamed(_ other: String) -> Bool {
        colon(ifNamed: other) != nil
    }

    /// The index of the colon after the name when this line is named `fieldName` (a token),
    /// ignoring ASCII case: the line starts with the name's bytes and a colon.
    private func colon(ifNamed fieldName: String) -> String.Index? {
        let u = raw.utf8
        let n = fieldName.utf8
        guard !n.isEmpty, u.count > n.count else { return nil }
        let colon = u.index(u.startIndex, offsetBy: n.count)
        guard u[colon] == HeaderByte.colon, HeaderByte.equalsIgnoringASCIICase(u[..<colon], n),
            n.allSatisfy(HeaderByte.isToken)
        else { return nil }
        return colon
    }

    /// Whether this line ends a head: nothing but its terminator (`\r\n`, `\n`) or nothing at all.
    public var isBlank: Bool {
        let u = raw.utf8
        switch u.count {
        case 0: return true
        case 1: return u.first == HeaderByte.lf
        case 2: return u.first == HeaderByte.cr && u.last == HeaderByte.lf
        default: return false
        }
    }

    /// The same line with its value replaced by `<redacted>`, name case and terminator kept.
    public func redacted() -> HeaderLine {
        guard let name else { return self }
        return HeaderLine(raw: "\(name): <redacted>\(terminator)")
    }

    /// Header names whose values are secrets, lowercased.
    public static let secretNames: Set<String> = ["authorization", "cookie", "set-cookie", "proxy-authorization"]

    /// Whether the value is a secret that captures redact by default.
    public var isSecret: Bool {
        Self.secretNames.contains { isNamed($0) }
    }

    public var description: String { raw }
}

extension Array where Element == HeaderLine {
    /// Values of every field named `name`, compared ignoring ASCII case (field names are tokens,
    /// RFC 9110 §5.1), in order.
    public func values(named name: String) -> [Substring] {
        compactMap { $0.value(ifNamed: name) }
    }

    /// The first value of the field named `name` (case-insensitive).
    public func first(named name: String) -> String? {
        // As `values(named:).first`, without reading every line and building the array.
        for line in self {
            if let value = line.value(ifNamed: name) { return String(value) }
        }
        return nil
    }

    /// The lines with secret values redacted (see ``HeaderLine/isSecret``), and the password of
    /// an HTTP/2 `:authority` that carries userinfo (`user:pw@host`), as URLs have theirs.
    public func redactingSecrets() -> [HeaderLine] {
        map { line in
            if line.isSecret { return line.redacted() }
            if let pseudo = line.pseudoHeader, pseudo.name == ":authority", pseudo.value.contains("@") {
                let authority = pseudo.value
                let redacted = URLRedaction.redactingUserinfo("http://" + authority).dropFirst("http://".count)
                if redacted != authority { return HeaderLine(raw: ":authority: \(redacted)\(line.terminator)") }
            }
            return line
        }
    }
}
