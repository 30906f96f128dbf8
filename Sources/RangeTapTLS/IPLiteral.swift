import RangeTapSystem

/// IP literals as certificate subject alternative names take them.
enum IPLiteral {
    /// The 4 or 16 address bytes of an IPv4 or IPv6 literal (dotted quad only); nil for a name.
    static func bytes(_ host: String) -> [UInt8]? {
        System.ipv4Bytes(host) ?? System.ipv6Bytes(host)
    }
}
