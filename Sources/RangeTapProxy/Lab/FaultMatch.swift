import RangeTapCore

/// Which requests a `--fault` rule applies to: every key given must match; a rule with none
/// matches every request.
public struct FaultMatch: Sendable, Equatable {
    /// `host=cdn.example.com`: the request's host, case-insensitive. A port in the rule
    /// (`host=cdn.example.com:8443`) must match the request's too; without one, any port matches.
    public var host: String?
    /// `path=`: an exact path, or a glob with `*` and `?` (`*.ts`, `/seg-*.m4s`). Without `/` it
    /// is matched against the last path segment, with `/` against the whole path; the query
    /// string is not part of the path.
    public var path: String?
    /// `method=GET`: the request method, case-insensitive.
    public var method: String?
    /// `range=yes|no`: whether the request has a `Range` header.
    public var range: Bool?
    /// `nth=2`: only the 2nd request matching the other keys (counted by ``FaultRuleSet``).
    public var nth: Int?

    /// A match on the keys given (none: every request).
    public init(host: String? = nil, path: String? = nil, method: String? = nil, range: Bool? = nil, nth: Int? = nil) {
        self.host = host
        self.path = path
        self.method = method
        self.range = range
        self.nth = nth
    }

    /// The match keys of the rule syntax, in the order messages list them.
    static let matchKeys = ["host", "path", "method", "range", "nth"]

    /// The match keys as messages show them: `host=`, `path=`, …
    static var keys: [String] { matchKeys.map { $0 + "=" } }

    /// Whether a request matches every key given, ignoring ``nth``.
    /// - Parameters:
    ///   - host: the request's host as in its authority, with the port when known
    ///     (`cdn.example.com:8443`, `[::1]:8080`); a rule with a port does not match a host given
    ///     without one.
    ///   - path: the request target's path (origin form); a query string is ignored.
    ///   - method: the request method.
    ///   - hasRange: whether the request has a `Range` header.
    public func matches(host: String, path: String, method: String, hasRange: Bool) -> Bool {
        if let range = self.range, range != hasRange { return false }
        if let wanted = self.method, wanted.uppercased() != method.uppercased() { return false }
        if let wanted = self.host {
            let rule = Self.splitAuthority(wanted)
            let request = Self.splitAuthority(host)
            if rule.name.lowercased() != request.name.lowercased() { return false }
            if let port = rule.port, port != request.port { return false }
        }
        if let pattern = self.path, !PathGlob.matches(pattern, path: path) { return false }
        return true
    }

    /// `host[:port]` or `[v6]:port` split into the host name (brackets removed) and the port
    /// (see ``URLAuthority``; a bare IPv6 address has several colons and no port).
    static func splitAuthority(_ authority: String) -> (name: Substring, port: Substring?) {
        let a = URLAuthority(authority)
        return (a.host, a.portText)
    }
}
