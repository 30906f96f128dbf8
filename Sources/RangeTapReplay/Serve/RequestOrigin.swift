import Foundation
import RangeTapCore

/// The origin a request was meant for: a host (lower-case, an IPv6 literal without brackets) and
/// the port, if one was written. `serve --faithful` matches requests on it, so a capture of two
/// origins answers each with its own bytes.
struct RequestOrigin: Hashable, Sendable, CustomStringConvertible {
    /// The host name or address literal, lower-case.
    var host: String
    /// The port as written; nil when the authority had none (the scheme's default).
    var port: Int?

    /// An origin from parts (tests).
    init(host: String, port: Int?) {
        self.host = host.lowercased()
        self.port = port
    }

    /// The origin of an absolute URL (`http://Example.com:8080/a` → `example.com:8080`; the
    /// scheme's default port when none is written); nil for an origin-form target.
    init?(url: String) {
        let parts = URLParts(url)
        guard let authority = parts.authority else { return nil }
        self.init(authority, defaultPort: parts.httpScheme == .https ? 443 : 80)
    }

    /// The origin a `Host` header value names; `defaultPort` when it names none.
    init?(hostHeader: String, defaultPort: Int?) {
        self.init(URLAuthority(hostHeader.trimmingCharacters(in: .whitespaces)), defaultPort: defaultPort)
    }

    /// `host[:port]`, `[v6][:port]`, any `user@` in front dropped (see ``URLAuthority``).
    private init?(_ authority: URLAuthority, defaultPort: Int?) {
        var host = authority.host
        if host.hasSuffix("."), host.count > 1 { host = host.dropLast() }  // `example.com.` is `example.com`
        guard !host.isEmpty, !authority.hasBadPort else { return nil }
        self.init(host: String(host), port: authority.port ?? defaultPort)
    }

    /// `host:port` as a URL writes it (`[::1]:8080`).
    var description: String {
        let h = URLAuthority.hostForURL(host)
        return port.map { "\(h):\($0)" } ?? h
    }
}
