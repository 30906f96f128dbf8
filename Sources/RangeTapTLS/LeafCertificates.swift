import Foundation
import Synchronization

/// Leaf certificates for intercepted hosts, signed by a ``CertificateAuthority`` and kept in
/// memory: minted on a host's first connection, reused after, re-minted when half their
/// validity is gone. One P-256 key, made when this object is, serves every leaf; it is never
/// written anywhere.
public final class LeafCertificates: Sendable {
    /// How long a minted leaf is valid (from an hour before it was made, for skewed clocks).
    public static let validity: TimeInterval = 48 * 3600
    /// Hosts remembered at most; the cache starts over past this.
    static let cacheLimit = 10_000

    private struct Leaf {
        var certificate: [UInt8]
        var minted: Date
    }

    /// The CA that signs the leaves.
    public let authority: CertificateAuthority
    private let leafKey: LibcryptoKey
    /// The leaf key, as PEM text for libssl.
    let privateKeyPEM: String
    /// The CA certificate's DER bytes, sent after the leaf.
    let caCertificate: [UInt8]
    private let leaves = Mutex<[String: Leaf]>([:])
    private let mintCount = Atomic<Int>(0)

    /// Prepares minting with `authority`.
    public init(authority: CertificateAuthority) throws(TLSError) {
        self.authority = authority
        do {
            leafKey = try LibcryptoKey.generateP256()
        } catch {
            throw .minting(host: "*", "\(error)")
        }
        do {
            privateKeyPEM = try leafKey.pem()
            caCertificate = try authority.certificate.der()
        } catch {
            throw .minting(host: "*", "cannot encode the leaf key or CA certificate: \(error)")
        }
    }

    /// Leaves minted so far (the cache's misses).
    public var minted: Int { mintCount.load(ordering: .relaxed) }

    /// The DER bytes of the leaf for `host` (a name or an IP literal, IPv6 with or without
    /// brackets), from the cache when one younger than half its validity is there.
    public func certificate(for host: String, now: Date = Date()) throws(TLSError) -> [UInt8] {
        let key = Self.normalize(host)
        if let leaf = leaves.withLock({ $0[key] }), now.timeIntervalSince(leaf.minted) < Self.validity / 2 {
            return leaf.certificate
        }
        let certificate = try mint(key, now: now)
        mintCount.add(1, ordering: .relaxed)
        leaves.withLock { cache in
            if cache.count >= Self.cacheLimit { cache.removeAll(keepingCapacity: true) }
            cache[key] = Leaf(certificate: certificate, minted: now)
        }
        return certificate
    }

    /// Lower-case, without IPv6 brackets or a trailing dot.
    static func normalize(_ host: String) -> String {
        var h = host.lowercased()
        if h.hasPrefix("[") && h.hasSuffix("]") { h = String(h.dropFirst().dropLast()) }
        if h.hasSuffix(".") && h.count > 1 { h.removeLast() }
        return h
    }

    /// `host` cut to the 64 characters (Unicode scalars) X.509 allows in a common name; the
    /// alternative name carries it whole.
    static func commonName(_ host: String) -> String {
        var scalars = String.UnicodeScalarView()
        scalars.append(contentsOf: host.unicodeScalars.prefix(64))
        return String(scalars)
    }

    /// The DER bytes of a new leaf for `host`: subject CN and one subject alternative name (a DNS
    /// name, or an IP address for a literal), serverAuth, signed by the CA.
    func mint(_ host: String, now: Date) throws(TLSError) -> [UInt8] {
        do {
            let certificate = try LibcryptoCertificate.leaf(
                authority: authority.certificate, authorityKey: authority.key, key: leafKey,
                organization: "rangetap interception", commonName: Self.commonName(host), dnsName: host,
                ip: IPLiteral.bytes(host), notBefore: now.addingTimeInterval(-3600),
                notAfter: now.addingTimeInterval(Self.validity))
            return try certificate.der()
        } catch {
            throw .minting(host: host, "\(error)")
        }
    }
}
