import RangeTapSystem

/// A numeric IP address as a URL or a command line writes it, with no name lookup.
///
/// IPv4 is read as `inet_aton` reads it, which is what `getaddrinfo` and libcurl accept:
/// `127.0.0.1`, `127.1`, `2130706433`, `0x7f000001`, `0177.0.0.1`. IPv6 is read with or without
/// brackets (`::1`, `[::ffff:127.0.0.1]`). A name such as `127.example.com` is not a literal.
public struct IPAddressLiteral: Sendable, Hashable, CustomStringConvertible {
    /// The address in network order: 4 bytes for IPv4, 16 for IPv6.
    public let bytes: [UInt8]

    /// Reads `text` as a numeric address; `nil` for names and anything else.
    public init?(_ text: String) {
        var host = Substring(text)
        if host.hasPrefix("["), host.hasSuffix("]") { host = host.dropFirst().dropLast() }
        // inet_aton stops at whitespace and accepts what follows: "127.0.0.1 evil" is not a literal.
        guard !host.isEmpty, host.utf8.count < 64,
            !host.unicodeScalars.contains(where: { $0.value <= 0x20 || $0.value >= 0x7F })
        else { return nil }
        let s = String(host)
        guard let bytes = s.contains(":") ? System.ipv6Bytes(s) : System.ipv4Bytes(lenient: s) else { return nil }
        self.bytes = bytes
    }

    /// An address from its network-order bytes (4 or 16).
    public init?(bytes: [UInt8]) {
        guard bytes.count == 4 || bytes.count == 16 else { return nil }
        self.bytes = bytes
    }

    /// The IPv4 address itself, or the one an IPv4-mapped IPv6 address (`::ffff:a.b.c.d`) carries.
    public var ipv4: [UInt8]? {
        if bytes.count == 4 { return bytes }
        if bytes[0..<10].allSatisfy({ $0 == 0 }), bytes[10] == 0xFF, bytes[11] == 0xFF { return Array(bytes[12...]) }
        return nil
    }

    /// `127.0.0.0/8`, `::1` or `::ffff:127.x.x.x`: this machine, never another one.
    public var isLoopback: Bool {
        if let v4 = ipv4 { return v4[0] == 127 }
        return bytes[0..<15].allSatisfy { $0 == 0 } && bytes[15] == 1
    }

    /// `0.0.0.0`, `::` or `::ffff:0.0.0.0`: "any address", which a connect(2) reaches as this machine.
    public var isUnspecified: Bool {
        if let v4 = ipv4 { return v4.allSatisfy { $0 == 0 } }
        return bytes.allSatisfy { $0 == 0 }
    }

    /// Dotted quad or RFC 5952 text.
    public var description: String {
        if bytes.count == 4 { return bytes.map(String.init).joined(separator: ".") }
        return System.ipv6Text(bytes) ?? "?"
    }
}

extension IPAddressLiteral {
    /// Whether `host` (a listen address or URL host) names this machine's loopback interface:
    /// `localhost` or a loopback literal. Names are not looked up, so `127.example.com` is not.
    public static func isLoopbackHost(_ host: String) -> Bool {
        var h = host.lowercased()
        if h.hasSuffix(".") { h.removeLast() }
        // Only `localhost` itself: `*.localhost` is loopback by RFC 6761 but not by every resolver.
        if h == "localhost" { return true }
        return IPAddressLiteral(host)?.isLoopback ?? false
    }
}
