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
    public var content: Substring {
        let scalars = raw.unicodeScalars
        var end = scalars.endIndex
        if end > scalars.startIndex, scalars[scalars.index(before: end)] == "\n" {
            end = scalars.index(before: end)
            if end > scalars.startIndex, scalars[scalars.index(before: end)] == "\r" {
                end = scalars.index(before: end)
            }
        }
        return Substring(scalars[..<end])
    }

    /// The terminator as sent: `"\r\n"`, `"\n"`, or `""` when the line was cut off.
    public var terminator: String {
        let c = content.unicodeScalars.count
        return String(String.UnicodeScalarView(raw.unicodeScalars.dropFirst(c)))
    }

    /// The field name exactly as spelled, or nil for the status line, a blank line or garbage.
    ///
    /// Read code point by code point, as ``syntax`` reads it: a colon followed by a combining mark
    /// (possible in a capture's JSON, never in Latin-1) still ends the name.
    public var name: Substring? {
        let c = content.unicodeScalars
        guard let colon = c.firstIndex(of: ":") else { return nil }
        let n = c[..<colon]
        guard !n.isEmpty, n.allSatisfy(Self.isTokenScalar) else { return nil }
        return Substring(n)
    }

    /// The field value with surrounding whitespace removed, or nil when this is no field line.
    public var value: Substring? {
        let c = content.unicodeScalars
        guard name != nil, let colon = c.firstIndex(of: ":") else { return nil }
        return Substring(c[c.index(after: colon)...]).trimmingHTTPWhitespace()
    }

    /// Whether this line ends a head.
    public var isBlank: Bool { content.isEmpty }

    /// The same line with its value replaced by `<redacted>`, name case and terminator kept.
    public func redacted() -> HeaderLine {
        guard let name else { return self }
        return HeaderLine(raw: "\(name): <redacted>\(terminator)")
    }

    /// Header names whose values are secrets, lowercased.
    public static let secretNames: Set<String> = ["authorization", "cookie", "set-cookie", "proxy-authorization"]

    /// Whether the value is a secret that captures redact by default.
    public var isSecret: Bool {
        guard let name else { return false }
        return Self.secretNames.contains(name.lowercased())
    }

    public var description: String { raw }
}

extension Array where Element == HeaderLine {
    /// Values of every field named `name`, compared case-insensitively, in order.
    public func values(named name: String) -> [Substring] {
        let lower = name.lowercased()
        return compactMap { line in
            guard let n = line.name, n.lowercased() == lower else { return nil }
            return line.value
        }
    }

    /// The first value of the field named `name` (case-insensitive).
    public func first(named name: String) -> String? {
        values(named: name).first.map(String.init)
    }

    /// The lines with secret values redacted (see ``HeaderLine/isSecret``).
    public func redactingSecrets() -> [HeaderLine] {
        map { $0.isSecret ? $0.redacted() : $0 }
    }
}
