import RangeTapCore
import RangeTapSystem

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
        return System.resolve(name).compactMap { IPAddressLiteral(bytes: $0) }
    }

    /// The addresses of this machine's interfaces.
    static func localInterfaceAddresses() -> [IPAddressLiteral] {
        System.interfaceAddresses().compactMap { IPAddressLiteral(bytes: $0) }
    }

    /// IPv4-mapped IPv6 addresses compared as the IPv4 address they carry.
    private static func normalized(_ a: IPAddressLiteral) -> [UInt8] { a.ipv4 ?? a.bytes }
}
