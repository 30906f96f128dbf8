import Foundation
import RangeTapCore

/// Which HTTP proxy a client command (`play`, `probe`) goes through for a URL, as curl decides:
/// `-x/--proxy` first, else the environment — `http_proxy` for http URLs (lower case only:
/// curl ignores `HTTP_PROXY`, which a CGI request can set), `https_proxy` or `HTTPS_PROXY` for
/// https, then `all_proxy` or `ALL_PROXY`. `--noproxy LIST`, else `no_proxy`/`NO_PROXY`, names
/// hosts reached directly; `*` means every host.
///
/// One difference from curl: a proxy given with `-x` is not bypassed by `no_proxy` from the
/// environment (only by `--noproxy`), so `play -x http://127.0.0.1:8080` records through
/// rangetap even in a shell with the usual `no_proxy=localhost,127.0.0.1`.
struct ProxySelection: Sendable, Equatable {
    /// The proxy URL to use, or nil to connect directly.
    var proxy: String?
    /// Where the choice came from, for `--verbose` logs: `-x/--proxy`, `http_proxy`, `--noproxy`, `no_proxy`, or
    /// `none`.
    var source: String

    /// The choice for `url`, given the flags and the environment.
    /// - Parameters:
    ///   - flag: `-x/--proxy`; an empty string connects directly, as with curl.
    ///   - noProxyFlag: `--noproxy`, a comma-separated list of hosts (`*` for all).
    init(url: String, flag: String?, noProxyFlag: String?, environment: [String: String]) {
        let host = Self.host(of: url)
        func bypassed(by list: String?) -> Bool {
            guard let list, let host else { return false }
            return Self.matches(host: host, noProxy: list)
        }
        if let flag {
            if flag.isEmpty {
                (proxy, source) = (nil, "-x/--proxy \"\"")
            } else if bypassed(by: noProxyFlag) {
                (proxy, source) = (nil, "--noproxy")
            } else {
                (proxy, source) = (flag, "-x/--proxy")
            }
            return
        }
        let https = HTTPScheme(url: url) == .https
        let names = (https ? ["https_proxy", "HTTPS_PROXY"] : ["http_proxy"]) + ["all_proxy", "ALL_PROXY"]
        guard let name = names.first(where: { !(environment[$0] ?? "").isEmpty }) else {
            (proxy, source) = (nil, "none")
            return
        }
        if bypassed(by: noProxyFlag) {
            (proxy, source) = (nil, "--noproxy")
            return
        }
        if noProxyFlag == nil, let envName = ["no_proxy", "NO_PROXY"].first(where: { environment[$0] != nil }),
            bypassed(by: environment[envName])
        {
            (proxy, source) = (nil, envName)
            return
        }
        (proxy, source) = (environment[name], name)
    }

    /// Whether `host` is named by a `no_proxy` list: `*`, the host itself, or a domain it is
    /// under (`example.com` and `.example.com` both cover `cdn.example.com`). Case-insensitive;
    /// a port in an entry is ignored.
    static func matches(host: String, noProxy list: String) -> Bool {
        let host = host.lowercased()
        for raw in list.split(separator: ",") {
            var entry = raw.trimmingCharacters(in: .whitespaces).lowercased()
            if entry == "*" { return true }
            if entry.hasPrefix("["), let close = entry.firstIndex(of: "]") {
                entry = String(entry[entry.index(after: entry.startIndex)..<close])
            } else if let colon = entry.lastIndex(of: ":"), entry.firstIndex(of: ":") == colon {
                entry = String(entry[..<colon])
            }
            while entry.hasPrefix(".") { entry.removeFirst() }
            guard !entry.isEmpty else { continue }
            if host == entry || host.hasSuffix("." + entry) { return true }
        }
        return false
    }

    /// The host of an absolute URL, lower-case, an IPv6 literal without brackets.
    static func host(of url: String) -> String? {
        guard let host = URLParts(url).authority?.host, !host.isEmpty else { return nil }
        return host.lowercased()
    }
}
