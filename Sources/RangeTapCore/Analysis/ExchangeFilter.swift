/// Which exchanges `inspect --host/--path/--status` keeps. Every list that is not empty must
/// match (a value of any one of its entries); empty lists match everything.
public struct ExchangeFilter: Sendable, Equatable {
    /// Hosts, as `cdn.example.com` (any port) or `cdn.example.com:8443` (that port only);
    /// compared case-insensitively with the host of the exchange's URL (or a CONNECT's target).
    public var hosts: [String]
    /// Path patterns: an exact path or a glob (`*.m4s`, `/video/*`), the syntax of fault rules.
    public var paths: [String]
    /// Status patterns: a code (`206`) or a class (`4xx`).
    public var statuses: [String]

    /// A filter; throws naming the first value that is not allowed and what is.
    public init(hosts: [String] = [], paths: [String] = [], statuses: [String] = []) throws(ExchangeFilterError) {
        for host in hosts
        where host.isEmpty || host.contains("/") || host.unicodeScalars.contains(where: { $0.value <= 0x20 }) {
            throw .badHost(host)
        }
        for path in paths {
            if let why = PathGlob.problem(path) { throw .badPath(path, why) }
        }
        for status in statuses where Self.statusMatcher(status) == nil {
            throw .badStatus(status)
        }
        self.hosts = hosts
        self.paths = paths
        self.statuses = statuses
    }

    /// Whether the filter keeps every exchange.
    public var isEmpty: Bool { hosts.isEmpty && paths.isEmpty && statuses.isEmpty }

    /// Whether `r` is kept.
    public func matches(_ r: ExchangeRecord) -> Bool {
        if !hosts.isEmpty {
            guard let authority = Self.authority(r) else { return false }
            guard hosts.contains(where: { Self.host($0, matches: authority) }) else { return false }
        }
        if !paths.isEmpty {
            guard r.method != "CONNECT", paths.contains(where: { PathGlob.matches($0, path: r.path) }) else {
                return false
            }
        }
        if !statuses.isEmpty {
            guard let status = r.clientStatus, statuses.contains(where: { Self.statusMatcher($0)?(status) == true })
            else { return false }
        }
        return true
    }

    /// `host[:port]` the exchange went to, lower-cased.
    static func authority(_ r: ExchangeRecord) -> String? {
        if r.method == "CONNECT" { return r.target.lowercased() }
        guard let origin = r.origin, let end = origin.range(of: "://") else { return nil }
        return origin[end.upperBound...].lowercased()
    }

    /// `cdn.example.com` matches `cdn.example.com` and `cdn.example.com:8443`; a value with a
    /// port matches only that authority. IPv6 literals are written in brackets, as in URLs.
    static func host(_ wanted: String, matches authority: String) -> Bool {
        let wanted = wanted.lowercased()
        if wanted == authority { return true }
        guard authority.hasPrefix(wanted), authority.count > wanted.count else { return false }
        let rest = authority.dropFirst(wanted.count)
        return rest.first == ":" && !wanted.hasSuffix(":") && rest.dropFirst().allSatisfy(\.isNumber)
    }

    /// `206` → that code; `2xx` → 200…299; nil for anything else.
    static func statusMatcher(_ pattern: String) -> ((Int) -> Bool)? {
        let p = pattern.lowercased()
        guard p.count == 3 else { return nil }
        if let code = Int(p), (100...599).contains(code) { return { $0 == code } }
        if p.hasSuffix("xx"), let digit = p.first?.wholeNumberValue, (1...5).contains(digit) {
            return { $0 / 100 == digit }
        }
        return nil
    }
}

/// A value of `--host`, `--path` or `--status` that is not allowed.
public enum ExchangeFilterError: Error, Equatable, CustomStringConvertible {
    /// An empty host, or one with `/` or spaces.
    case badHost(String)
    /// A path pattern ``PathGlob`` refuses, with why.
    case badPath(String, String)
    /// A status that is neither a code from 100 to 599 nor a class such as `4xx`.
    case badStatus(String)

    public var description: String {
        switch self {
        case .badHost(let h):
            "--host \"\(h)\" is not a host: write cdn.example.com, or cdn.example.com:8443 for one port"
        case .badPath(let p, let why): "--path \"\(p)\": \(why)"
        case .badStatus(let s): "--status \"\(s)\" is not a status: write a code such as 206 or a class such as 4xx"
        }
    }
}
