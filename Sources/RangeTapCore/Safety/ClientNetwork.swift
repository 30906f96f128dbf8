import RangeTapSystem

/// A network of client addresses (`--allow-client CIDR`): `192.168.1.0/24`, `10.0.0.7` (one
/// address), `fd00::/8`. An IPv4-mapped IPv6 peer (`::ffff:192.168.1.9`, as a dual-stack
/// listener sees an IPv4 client) is matched as the IPv4 address it carries.
public struct ClientNetwork: Sendable, Hashable, CustomStringConvertible {
    /// The network's address, its host bits cleared: 4 bytes for IPv4, 16 for IPv6.
    public let address: [UInt8]
    /// The prefix length in bits.
    public let prefixLength: Int

    /// Why a network could not be read.
    public struct ParseError: Error, Sendable, CustomStringConvertible {
        public let description: String
    }

    /// Reads `ADDRESS/PREFIX` or a single `ADDRESS`.
    public init(parsing text: String) throws(ParseError) {
        let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        let host = String(parts[0])
        let bytes = host.contains(":") ? System.ipv6Bytes(host) : System.ipv4Bytes(host)
        guard let bytes else {
            throw ParseError(
                description: "\(text): expected a client network such as 192.168.1.0/24, 10.0.0.7 or fd00::/8")
        }
        let bits = bytes.count * 8
        var prefix = bits
        if parts.count == 2 {
            guard let n = Int(parts[1]), (0...bits).contains(n), parts[1].allSatisfy({ $0.isASCII && $0.isNumber })
            else {
                throw ParseError(description: "\(text): the prefix length after / is 0-\(bits) for this address")
            }
            prefix = n
        }
        address = Self.masked(bytes, prefix)
        prefixLength = prefix
    }

    /// Whether `peer` is in this network.
    public func contains(_ peer: IPAddressLiteral) -> Bool {
        let bytes = address.count == 4 ? peer.ipv4 : (peer.bytes.count == 16 ? peer.bytes : nil)
        guard let bytes, bytes.count == address.count else { return false }
        return Self.masked(bytes, prefixLength) == address
    }

    public var description: String {
        let host =
            address.count == 4
            ? address.map(String.init).joined(separator: ".") : (IPAddressLiteral(bytes: address)?.description ?? "?")
        return "\(host)/\(prefixLength)"
    }

    private static func masked(_ bytes: [UInt8], _ prefix: Int) -> [UInt8] {
        bytes.enumerated().map { i, b in
            let keep = max(0, min(8, prefix - i * 8))
            return keep == 8 ? b : b & UInt8(truncatingIfNeeded: 0xFF << (8 - keep))
        }
    }
}
