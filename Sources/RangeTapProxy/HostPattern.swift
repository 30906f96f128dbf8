/// A host named on the command line by `--no-intercept`: an exact host (`cdn.example.com`,
/// `192.0.2.7`, `[::1]`), `*.example.com` for any subdomain of `example.com` (not the name
/// itself), or `*` for every host. Compared without case, brackets or a trailing dot.
public struct HostPattern: Sendable, Equatable, CustomStringConvertible {
    private let suffix: String?
    private let exact: String?

    /// Reads a pattern; nil when it is empty or has a `*` other than a leading `*.` or a lone `*`.
    public init?(_ text: String) {
        let t = Self.normalize(text)
        if text == "*" {
            suffix = ""
            exact = nil
        } else if t.hasPrefix("*.") {
            let rest = String(t.dropFirst(1))  // ".example.com"
            guard rest.count > 1, !rest.dropFirst().contains("*") else { return nil }
            suffix = rest
            exact = nil
        } else {
            guard !t.isEmpty, !t.contains("*"), !t.contains("/"), !t.contains(" ") else { return nil }
            suffix = nil
            exact = t
        }
        description = text
    }

    /// The pattern as written.
    public let description: String

    /// Whether the pattern is `*`, which names every host.
    public var isEveryHost: Bool { suffix == "" }

    /// Whether `host` is one the pattern names.
    public func matches(_ host: String) -> Bool {
        let h = Self.normalize(host)
        if let exact { return h == exact }
        guard let suffix else { return false }
        return suffix.isEmpty || (h.hasSuffix(suffix) && h.count > suffix.count)
    }

    private static func normalize(_ s: String) -> String {
        var h = s.lowercased()
        if h.hasPrefix("[") && h.hasSuffix("]") { h = String(h.dropFirst().dropLast()) }
        if h.hasSuffix(".") && h.count > 1 { h.removeLast() }
        return h
    }
}
