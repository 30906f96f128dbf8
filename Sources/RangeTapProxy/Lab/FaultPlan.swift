import RangeTapCore

/// What the `--fault` rules that fire for one request do to it: the first action of each kind
/// wins (a second `status=` or `reset-after=` from a later rule is ignored).
struct FaultPlan: Sendable {
    /// An action and the rule it came from.
    struct Applied: Sendable, Equatable {
        var rule: String
        var action: FaultAction
    }

    /// `status=N`: rangetap answers, the origin is not asked.
    private(set) var status: (code: Int, rule: String)?
    /// `ignore-range`: the Range (and If-Range) is removed before asking the origin.
    private(set) var ignoreRange: String?
    /// `delay-head=D`: the response head (and everything after it) is held for D.
    private(set) var delayHead: (ns: Int64, rule: String)?
    /// `header-case`, `drop-header`, `off-by-one`, in rule order.
    private(set) var headRewrites: [Applied] = []
    /// `reset-after=N` or `truncate-after=N`: the connection (an HTTP/2 stream) ends after N body bytes.
    private(set) var cut: (after: Int64, reset: Bool, rule: String)?
    /// `stall-after=N,for=D`: nothing more is sent for D after N body bytes.
    private(set) var stall: (after: Int64, ns: Int64, rule: String)?

    /// The plan of `rules`, nil when none fired.
    init?(rules: [FaultRule]) {
        guard !rules.isEmpty else { return nil }
        for rule in rules {
            for action in rule.actions {
                switch action {
                case .status(let code): if status == nil { status = (code, rule.text) }
                case .ignoreRange: if ignoreRange == nil { ignoreRange = rule.text }
                case .delayHead(let ns): if delayHead == nil { delayHead = (ns, rule.text) }
                case .headerCase, .dropHeader, .offByOne: headRewrites.append(Applied(rule: rule.text, action: action))
                case .resetAfter(let n): if cut == nil { cut = (n, true, rule.text) }
                case .truncateAfter(let n): if cut == nil { cut = (n, false, rule.text) }
                case .stallAfter(let n, let ns): if stall == nil { stall = (n, ns, rule.text) }
                }
            }
        }
    }

    /// The host (lower case, with its port) and the path (no query) of an upstream URL, as rules match them.
    static func hostAndPath(url: String) -> (host: String, path: String) {
        let parts = URLParts(url)
        // With the port (the scheme's when none is written), so `host=cdn.example.com:8443`
        // can match; a rule without a port matches any.
        let host =
            parts.authority.map { a in
                let name = URLAuthority.hostForURL(a.host).lowercased()
                return a.port(default: parts.httpScheme?.defaultPort ?? 80).map { "\(name):\($0)" } ?? name
            } ?? ""
        return (host, parts.path.isEmpty ? "/" : String(parts.path))
    }
}
