import NIOHTTP1

/// Where a request goes: the absolute URL to fetch, or why the proxy refuses it.
enum RequestTarget {
    struct Refusal: Error, Equatable {
        var status: HTTPResponseStatus
        var message: String
    }

    /// Absolute-form targets are fetched as they are; origin-form targets go to `upstream`.
    /// A target pointing back at the proxy itself is refused (it would loop).
    static func resolve(_ target: String, upstream: String?, ownPort: Int) -> Result<String, Refusal> {
        let lower = target.lowercased()
        if lower.hasPrefix("http://") || lower.hasPrefix("https://") {
            if let authority = authority(of: target), pointsAtSelf(authority, ownPort: ownPort, https: lower.hasPrefix("https://")) {
                return .failure(Refusal(status: .loopDetected, message: "request for \(target) points back at rangetap itself; that would loop"))
            }
            return .success(target)
        }
        if target.hasPrefix("/") {
            guard var base = upstream else {
                return .failure(Refusal(status: .badRequest, message: "\(target) is not a proxy request. Point the client at rangetap as a proxy (curl -x, http_proxy=) or start rangetap with --upstream URL"))
            }
            while base.hasSuffix("/") { base.removeLast() }
            let url = base + target
            if let authority = authority(of: url), pointsAtSelf(authority, ownPort: ownPort, https: base.lowercased().hasPrefix("https://")) {
                return .failure(Refusal(status: .loopDetected, message: "--upstream \(base) is rangetap itself; that would loop"))
            }
            return .success(url)
        }
        return .failure(Refusal(status: .badRequest, message: "cannot forward request target \"\(target.prefix(200))\": expected http://host/path or /path"))
    }

    /// `host:port` of an absolute URL.
    static func authority(of url: String) -> String? {
        guard let r = url.range(of: "://") else { return nil }
        let rest = url[r.upperBound...]
        let end = rest.firstIndex(where: { $0 == "/" || $0 == "?" || $0 == "#" }) ?? rest.endIndex
        let auth = rest[..<end]
        return String(auth.split(separator: "@").last ?? auth)
    }

    private static func pointsAtSelf(_ authority: String, ownPort: Int, https: Bool) -> Bool {
        guard ownPort > 0 else { return false }
        let host: Substring
        let port: Int
        if let colon = authority.lastIndex(of: ":"), !authority.hasSuffix("]") {
            host = authority[..<colon]
            port = Int(authority[authority.index(after: colon)...]) ?? -1
        } else {
            host = Substring(authority)
            port = https ? 443 : 80
        }
        let h = host.lowercased()
        return port == ownPort && (h == "127.0.0.1" || h == "localhost" || h == "[::1]" || h.hasPrefix("127."))
    }
}
