/// The authority of a URL, or a `Host` field value, split as RFC 3986 §3.2 writes it:
/// `[userinfo@]host[:port]`, an IPv6 literal in brackets (`[::1]:8080`).
///
/// Nothing is decoded or looked up. The last `@` ends the userinfo. A host in brackets ends at
/// the first `]`; only a `:` directly after it starts a port (anything else there is ignored).
/// Without brackets a single `:` starts the port; a host with several colons (an IPv6 address
/// written without brackets, which URLs do not allow) is all host and has no port.
public struct URLAuthority: Sendable, Hashable {
    /// The text before the last `@`, without it; nil when there is none.
    public var userinfo: Substring?
    /// The authority without its userinfo: `host[:port]` as written (`[::1]:8080`).
    public var hostAndPort: Substring
    /// The host as written, without the brackets of an IPv6 literal; may be empty.
    public var host: Substring
    /// Whether the host was written in brackets.
    public var isBracketed: Bool
    /// The text after the port's colon; empty for `host:`, nil when no port was written.
    public var portText: Substring?

    /// Splits `authority`. The delimiters are ASCII and are looked for in the UTF-8 bytes, as a
    /// client or server reads them (a combining mark after `@` or `:` does not hide it).
    public init(_ authority: some StringProtocol) {
        var a = Substring(authority)
        if let at = a.utf8.lastIndex(of: UInt8(ascii: "@")) {
            userinfo = a[..<at]
            a = a[a.utf8.index(after: at)...]
        } else {
            userinfo = nil
        }
        hostAndPort = a
        let bytes = a.utf8
        if bytes.first == UInt8(ascii: "["), let close = bytes.firstIndex(of: UInt8(ascii: "]")) {
            host = a[bytes.index(after: bytes.startIndex)..<close]
            isBracketed = true
            let afterClose = bytes.index(after: close)
            portText = bytes[afterClose...].first == UInt8(ascii: ":") ? a[bytes.index(after: afterClose)...] : nil
        } else if let colon = bytes.firstIndex(of: UInt8(ascii: ":")), bytes.lastIndex(of: UInt8(ascii: ":")) == colon {
            host = a[..<colon]
            isBracketed = false
            portText = a[bytes.index(after: colon)...]
        } else {
            host = a
            isBracketed = false
            portText = nil
        }
    }

    /// The port written, when it is decimal digits naming 0–65535; nil when none or an empty
    /// one was written, or when it is no port number (see ``hasBadPort``).
    public var port: Int? {
        guard let portText, !portText.isEmpty, portText.utf8.count <= 5,
            portText.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
            let p = Int(portText), p <= 65535
        else { return nil }
        return p
    }

    /// Whether a port was written that is no number from 0 to 65535 (`host:http`, `host:99999`).
    public var hasBadPort: Bool {
        guard let portText, !portText.isEmpty else { return false }
        return port == nil
    }

    /// The port to connect to: the one written, else (none, or `host:`) `defaultPort`; nil when
    /// the written one is no port number.
    public func port(default defaultPort: Int) -> Int? {
        hasBadPort ? nil : port ?? defaultPort
    }

    /// `host` as a URL or `Host` field writes it: an IPv6 address (anything with a colon) in
    /// brackets, so `http://[::1]:8080` works where `http://::1:8080` does not.
    public static func hostForURL(_ host: some StringProtocol) -> String {
        host.contains(":") ? "[\(host)]" : String(host)
    }
}
