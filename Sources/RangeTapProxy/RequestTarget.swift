import NIOHTTP1
import RangeTapCore

/// Where a request goes: the absolute URL to fetch, or why the proxy refuses it.
enum RequestTarget {
    struct Refusal: Error, Equatable {
        var status: HTTPResponseStatus
        var message: String
    }

    /// Absolute-form targets are fetched as they are; origin-form targets go to `upstream`.
    /// A target that reaches the proxy itself — by address, see ``ProxyAddress`` — is refused
    /// (it would loop). `listenHost`, when given, also counts the listen address as the proxy's.
    /// `confinedTo`, a reverse proxy's upstream without `--forward`: absolute-form targets for
    /// any other origin are refused (403). `upstreamName` says in a refusal what `upstream` is
    /// (`--upstream`, or an intercepted tunnel's origin).
    static func resolve(
        _ target: String, upstream: String?, ownPort: Int, listenHost: String? = nil, confinedTo: String? = nil,
        upstreamName: String = "--upstream"
    ) -> Result<String, Refusal> {
        if let scheme = HTTPScheme(url: target) {
            if let authority = authority(of: target),
                pointsAtSelf(authority, ownPort: ownPort, https: scheme == .https, listenHost: listenHost)
            {
                return .failure(
                    Refusal(
                        status: .loopDetected,
                        message:
                            "request for \(URLRedaction.redactingUserinfo(target)) points back at rangetap itself; that would loop"
                    ))
            }
            if let only = confinedTo, !sameOrigin(target, only) {
                return .failure(
                    Refusal(status: .forbidden, message: Self.confinedMessage(target: target, upstream: only)))
            }
            return .success(target)
        }
        if target.hasPrefix("/") {
            guard var base = upstream else {
                return .failure(
                    Refusal(
                        status: .badRequest,
                        message:
                            "\(target) is not a proxy request. Point the client at rangetap as a proxy (curl -x, http_proxy=) or start rangetap with --upstream URL"
                    ))
            }
            while base.hasSuffix("/") { base.removeLast() }
            let url = base + target
            if let authority = authority(of: url),
                pointsAtSelf(
                    authority, ownPort: ownPort, https: HTTPScheme(url: base) == .https, listenHost: listenHost)
            {
                return .failure(
                    Refusal(
                        status: .loopDetected,
                        message:
                            "\(upstreamName) \(URLRedaction.redactingUserinfo(base)) is rangetap itself; that would loop"
                    ))
            }
            return .success(url)
        }
        return .failure(
            Refusal(
                status: .badRequest,
                message:
                    "cannot forward request target \"\(TerminalText.escapingControls(String(target.prefix(200))))\": expected http://host/path or /path"
            ))
    }

    /// Why a reverse proxy refuses a request for another origin.
    static func confinedMessage(target: String, upstream: String) -> String {
        "rangetap serves only its --upstream \(URLRedaction.redactingUserinfo(upstream)) here; \(URLRedaction.redactingUserinfo(String(target.prefix(200)))) is another origin (start it with --forward to proxy other origins too)"
    }

    /// Whether two absolute URLs have the same origin (RFC 6454: scheme, host, port), the
    /// scheme's default port standing in for none, host names without regard to case.
    static func sameOrigin(_ a: String, _ b: String) -> Bool {
        guard let sa = HTTPScheme(url: a), let sb = HTTPScheme(url: b), sa == sb,
            let aa = authority(of: a), let ab = authority(of: b)
        else { return false }
        let x = hostAndPort(aa, https: sa == .https), y = hostAndPort(ab, https: sb == .https)
        return x.port == y.port && x.host.lowercased() == y.host.lowercased()
    }

    /// `host:port` of an absolute URL, userinfo left out (see ``URLAuthority``).
    static func authority(of url: String) -> String? {
        URLParts(url).authority.map { String($0.hostAndPort) }
    }

    /// Host (brackets removed from an IPv6 literal) and port of an authority; the scheme's port
    /// when none is written (`host` or `host:`), -1 when the port is not a number.
    static func hostAndPort(_ authority: String, https: Bool) -> (host: String, port: Int) {
        let a = URLAuthority(authority)
        return (String(a.host), a.port(default: https ? 443 : 80) ?? -1)
    }

    /// Whether an authority reaches the proxy on `ownPort`.
    static func pointsAtSelf(_ authority: String, ownPort: Int, https: Bool, listenHost: String? = nil) -> Bool {
        let (host, port) = hostAndPort(authority, https: https)
        return ProxyAddress.reachesProxy(host: host, port: port, ownPort: ownPort, listenHost: listenHost)
    }
}
