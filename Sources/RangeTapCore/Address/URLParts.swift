/// A URL or request target split into its parts as RFC 3986 §3 writes them, without decoding
/// or normalising anything: `scheme://authority/path?query#fragment`, or an origin-form target
/// (`/path?query`, RFC 9112 §3.2.1) with no scheme and no authority.
///
/// The scheme is the text before the first `://` when it is one (a letter, then letters, digits,
/// `+`, `-` or `.`), so `/go?to=http://a/b` is an origin-form target, not a URL of host `a`.
/// The authority ends at the first `/`, `?` or `#`. Delimiters are found in the UTF-8 bytes, with
/// no grapheme breaking.
public struct URLParts: Sendable, Hashable {
    /// The scheme as written (`http`, `HTTPS`); nil for a target without one.
    public var scheme: Substring?
    /// The authority as written, userinfo included; nil without a scheme.
    public var authorityText: Substring?
    /// Everything after the authority (the whole target when there is no scheme): path, query
    /// and fragment as written.
    public var rest: Substring

    /// Splits `url`.
    public init(_ url: some StringProtocol) {
        let text = Substring(url)
        if let sep = Self.schemeSeparator(in: text), Self.isScheme(text[..<sep]) {
            scheme = text[..<sep]
            let after = text[text.utf8.index(sep, offsetBy: 3)...]
            let end =
                after.utf8.firstIndex(where: { $0 == Self.slash || $0 == Self.question || $0 == Self.hash })
                ?? after.endIndex
            authorityText = after[..<end]
            rest = after[end...]
        } else {
            scheme = nil
            authorityText = nil
            rest = text
        }
    }

    /// Whether the text had a scheme and an authority (absolute form).
    public var isAbsolute: Bool { scheme != nil }

    /// The authority split into userinfo, host and port; nil without a scheme.
    public var authority: URLAuthority? { authorityText.map(URLAuthority.init) }

    /// The path as written, up to the query or fragment; empty when the URL has none.
    public var path: Substring {
        rest[..<(rest.utf8.firstIndex { $0 == Self.question || $0 == Self.hash } ?? rest.endIndex)]
    }

    /// The query after `?`, without it, up to the fragment; nil when there is no `?`.
    public var query: Substring? {
        let beforeFragment = rest[..<(rest.utf8.firstIndex(of: Self.hash) ?? rest.endIndex)]
        guard let q = beforeFragment.utf8.firstIndex(of: Self.question) else { return nil }
        return beforeFragment[beforeFragment.utf8.index(after: q)...]
    }

    /// The fragment after `#`, without it; nil when there is no `#`.
    public var fragment: Substring? {
        rest.utf8.firstIndex(of: Self.hash).map { rest[rest.utf8.index(after: $0)...] }
    }

    /// The target in origin form: path and query, the fragment left out; the path `/` when
    /// none was written (`http://h?x=1` → `/?x=1`).
    public var originForm: String {
        let p = path.isEmpty ? "/" : String(path)
        return query.map { p + "?" + $0 } ?? p
    }

    /// The scheme of an http(s) URL (see ``HTTPScheme``).
    public var httpScheme: HTTPScheme? { scheme.flatMap { HTTPScheme(rawValue: $0.lowercased()) } }

    /// Where the first `://` starts.
    static func schemeSeparator(in text: Substring) -> Substring.Index? {
        let u = text.utf8
        var i = u.startIndex
        while let colon = u[i...].firstIndex(of: UInt8(ascii: ":")) {
            if u[colon...].starts(with: "://".utf8) { return colon }
            i = u.index(after: colon)
        }
        return nil
    }

    /// `ALPHA *( ALPHA / DIGIT / "+" / "-" / "." )` (RFC 3986 §3.1).
    static func isScheme(_ s: Substring) -> Bool {
        func isLetter(_ b: UInt8) -> Bool { (b | 0x20) &- UInt8(ascii: "a") < 26 }
        guard let first = s.utf8.first, isLetter(first) else { return false }
        return s.utf8.allSatisfy { b in
            isLetter(b) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(b) || b == UInt8(ascii: "+")
                || b == UInt8(ascii: "-") || b == UInt8(ascii: ".")
        }
    }

    /// The ASCII delimiters, looked for in the UTF-8 bytes as a client or server reads them.
    static let slash = UInt8(ascii: "/")
    static let question = UInt8(ascii: "?")
    static let hash = UInt8(ascii: "#")
}
