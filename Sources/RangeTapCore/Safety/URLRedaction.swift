/// Passwords in URLs (`http://user:secret@host/`), which a capture marked `redacted` must not hold.
public enum URLRedaction {
    /// What stands in for a removed password.
    public static let placeholder = "<redacted>"

    /// `url` with the password of its userinfo replaced: `http://user:pw@host/a` becomes
    /// `http://user:<redacted>@host/a`. URLs without a password (no userinfo, or a user name
    /// alone) and text that is not an absolute URL come back unchanged.
    public static func redactingUserinfo(_ url: String) -> String {
        // Without an `@` there is no userinfo: the common case costs one byte scan.
        guard url.utf8.contains(UInt8(ascii: "@")),
            let sep = schemeSeparator(in: Substring(url)),
            url[..<sep.lowerBound].allSatisfy(isSchemeCharacter),
            !url[..<sep.lowerBound].isEmpty
        else { return url }
        let rest = url[sep.upperBound...]
        let authorityEnd = rest.firstIndex(where: { $0 == "/" || $0 == "?" || $0 == "#" }) ?? rest.endIndex
        let authority = rest[..<authorityEnd]
        guard let at = authority.lastIndex(of: "@"),
            let colon = authority[..<at].firstIndex(of: ":")
        else { return url }
        let password = authority[authority.index(after: colon)..<at]
        guard password != Substring(placeholder) else { return url }
        return String(url[..<authority.index(after: colon)]) + placeholder + String(url[at...])
    }

    /// ``redactingUserinfo(_:)`` when `redact`, else `url` as it is (`--keep-secrets`).
    public static func redactingUserinfo(_ url: String, if redact: Bool) -> String {
        redact ? redactingUserinfo(url) : url
    }

    /// `text` (an error message, a log line) with the password of every absolute URL in it
    /// replaced, as ``redactingUserinfo(_:)`` does for one URL. A URL ends at whitespace or a quote.
    public static func redactingURLPasswords(inText text: String) -> String {
        guard text.contains("://"), text.contains("@") else { return text }
        var out = ""
        var rest = Substring(text)
        while let sep = schemeSeparator(in: rest) {
            var start = sep.lowerBound
            while start > rest.startIndex, isSchemeCharacter(rest[rest.index(before: start)]) {
                start = rest.index(before: start)
            }
            let end =
                rest[sep.upperBound...].firstIndex(where: {
                    $0.isWhitespace || $0 == "\"" || $0 == "'" || $0 == "<" || $0 == ">"
                }) ?? rest.endIndex
            out += rest[..<start]
            out += start < sep.lowerBound ? redactingUserinfo(String(rest[start..<end])) : String(rest[start..<end])
            rest = rest[end...]
        }
        return out + rest
    }

    /// ``redactingURLPasswords(inText:)`` when `redact`, else `text` as it is.
    public static func redactingUserinfo(inText text: String, if redact: Bool) -> String {
        redact ? redactingURLPasswords(inText: text) : text
    }

    /// The first `://` in `text`, found byte by byte (ASCII, so the bounds are code point
    /// boundaries); Foundation's `range(of:)` cost more than the rest of a request's redaction.
    static func schemeSeparator(in text: Substring) -> Range<String.Index>? {
        let u = text.utf8
        var from = u.startIndex
        while let colon = u[from...].firstIndex(of: UInt8(ascii: ":")) {
            let end = u.index(colon, offsetBy: 3, limitedBy: u.endIndex) ?? u.endIndex
            if u[colon..<end].elementsEqual("://".utf8) { return colon..<end }
            from = u.index(after: colon)
        }
        return nil
    }

    private static func isSchemeCharacter(_ c: Character) -> Bool {
        c.isASCII && (c.isLetter || c.isNumber || c == "+" || c == "-" || c == ".")
    }
}
