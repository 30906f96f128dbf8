import Foundation

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
        guard let scheme = url.range(of: "://") else { return nil }
        let rest = url[scheme.upperBound...]
        let end = rest.firstIndex(where: { $0 == "/" || $0 == "?" || $0 == "#" }) ?? rest.endIndex
        let defaultPort = url[..<scheme.lowerBound].lowercased() == "https" ? 443 : 80
        self.init(authority: rest[..<end], defaultPort: defaultPort)
    }

    /// The origin a `Host` header value names; `defaultPort` when it names none.
    init?(hostHeader: String, defaultPort: Int?) {
        self.init(authority: Substring(hostHeader.trimmingCharacters(in: .whitespaces)), defaultPort: defaultPort)
    }

    /// `host[:port]`, `[v6][:port]`, any `user@` in front dropped.
    private init?(authority: Substring, defaultPort: Int?) {
        var a = authority
        if let at = a.lastIndex(of: "@") { a = a[a.index(after: at)...] }
        var host = a
        var portText: Substring?
        if a.hasPrefix("["), let close = a.firstIndex(of: "]") {
            host = a[a.index(after: a.startIndex)..<close]
            let after = a[a.index(after: close)...]
            if after.hasPrefix(":") { portText = after.dropFirst() }
        } else if let colon = a.lastIndex(of: ":"), a.firstIndex(of: ":") == colon {
            host = a[..<colon]
            portText = a[a.index(after: colon)...]
        }
        if host.hasSuffix("."), host.count > 1 { host = host.dropLast() }  // `example.com.` is `example.com`
        guard !host.isEmpty else { return nil }
        var port = defaultPort
        if let portText, !portText.isEmpty {
            guard let p = Int(portText), (0...65535).contains(p) else { return nil }
            port = p
        }
        self.init(host: String(host), port: port)
    }

    /// `host:port` as a URL writes it (`[::1]:8080`).
    var description: String {
        let h = host.contains(":") ? "[\(host)]" : host
        return port.map { "\(h):\($0)" } ?? h
    }
}
