import Foundation

/// IP literals as certificate subject alternative names take them.
enum IPLiteral {
    /// The 4 or 16 address bytes of an IPv4 or IPv6 literal (dotted quad only); nil for a name.
    static func bytes(_ host: String) -> [UInt8]? {
        var v4 = in_addr()
        if inet_pton(AF_INET, host, &v4) == 1 {
            return withUnsafeBytes(of: &v4) { Array($0) }
        }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, host, &v6) == 1 {
            return withUnsafeBytes(of: &v6) { Array($0) }
        }
        return nil
    }
}
