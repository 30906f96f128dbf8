#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import RangeTapCore

/// Whether a URL's host and port reach this proxy, so forwarding to it would loop.
///
/// Compared by address, not by spelling: `0.0.0.0`, `[::ffff:127.0.0.1]`, `2130706433`,
/// `0x7f000001` and a name resolving to loopback all reach a proxy listening on loopback.
/// Nothing is looked up unless the port is the proxy's own, so ordinary requests cost no DNS.
enum ProxyAddress {
    /// True when `host:port` is the proxy listening on `ownPort` (0: not bound yet, never true):
    /// any loopback or unspecified address on that port; when `listenHost` is given, also the
    /// listen address itself, and with an unspecified listen host any address of this machine.
    static func reachesProxy(host: String, port: Int, ownPort: Int, listenHost: String? = nil) -> Bool {
        guard ownPort > 0, port == ownPort else { return false }
        if IPAddressLiteral.isLoopbackHost(host) { return true }
        let targets = addresses(of: host)
        guard !targets.isEmpty else { return false }
        if targets.contains(where: { $0.isLoopback || $0.isUnspecified }) { return true }
        guard let listenHost else { return false }
        let listen = addresses(of: listenHost)
        if listen.contains(where: \.isUnspecified) {
            let own = Set(localInterfaceAddresses().map(normalized))
            return targets.contains { own.contains(normalized($0)) }
        }
        let own = Set(listen.map(normalized))
        return targets.contains { own.contains(normalized($0)) }
    }

    /// The addresses `host` stands for: itself when numeric (as `inet_aton` and `inet_pton`
    /// read it), else what `getaddrinfo` answers (empty when the name does not resolve).
    static func addresses(of host: String) -> [IPAddressLiteral] {
        if let literal = IPAddressLiteral(host) { return [literal] }
        var name = host
        if name.hasPrefix("["), name.hasSuffix("]") { name = String(name.dropFirst().dropLast()) }
        guard !name.isEmpty, !name.contains(where: { $0.isWhitespace || $0 == "%" }) else { return [] }
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(name, nil, &hints, &list) == 0, let first = list else { return [] }
        defer { freeaddrinfo(first) }
        var out: [IPAddressLiteral] = []
        var node: UnsafeMutablePointer<addrinfo>? = first
        while let n = node {
            if let a = n.pointee.ai_addr, let literal = literal(of: a) { out.append(literal) }
            node = n.pointee.ai_next
        }
        return out
    }

    /// The addresses of this machine's interfaces.
    static func localInterfaceAddresses() -> [IPAddressLiteral] {
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0, let first = list else { return [] }
        defer { freeifaddrs(first) }
        var out: [IPAddressLiteral] = []
        var node: UnsafeMutablePointer<ifaddrs>? = first
        while let n = node {
            if let a = n.pointee.ifa_addr, let literal = literal(of: a) { out.append(literal) }
            node = n.pointee.ifa_next
        }
        return out
    }

    private static func literal(of address: UnsafeMutablePointer<sockaddr>) -> IPAddressLiteral? {
        switch Int32(address.pointee.sa_family) {
        case AF_INET:
            return address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { p in
                withUnsafeBytes(of: p.pointee.sin_addr) { IPAddressLiteral(bytes: Array($0)) }
            }
        case AF_INET6:
            return address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { p in
                withUnsafeBytes(of: p.pointee.sin6_addr) { IPAddressLiteral(bytes: Array($0)) }
            }
        default:
            return nil
        }
    }

    /// IPv4-mapped IPv6 addresses compared as the IPv4 address they carry.
    private static func normalized(_ a: IPAddressLiteral) -> [UInt8] { a.ipv4 ?? a.bytes }
}
