import Foundation
import Synchronization

/// The server-side TLS contexts that terminate intercepted CONNECT tunnels, one per host asked
/// for in a CONNECT (made on its first tunnel, then reused). A context presents that host's
/// leaf, so a client that sends no SNI (an IP literal) still gets a certificate for what it
/// asked; when the client's SNI names another host, the handshake switches to that host's leaf.
public final class InterceptContexts: Sendable {
    /// The minted certificates.
    public let leaves: LeafCertificates
    /// Where the secrets of the intercepted sessions are written (`record --keylog`), if anywhere.
    public let keyLog: KeyLogFile?
    private let contexts = Mutex<[String: TLSContext]>([:])

    /// Contexts signing with `leaves`, writing their sessions' secrets to `keyLog` when given.
    public init(leaves: LeafCertificates, keyLog: KeyLogFile? = nil) {
        self.leaves = leaves
        self.keyLog = keyLog
    }

    /// What a context offers by ALPN: `h2` first when HTTP/2 is offered, then `http/1.1`.
    public static func applicationProtocols(http2: Bool) -> [String] {
        http2 ? ["h2", "http/1.1"] : ["http/1.1"]
    }

    /// Contexts made so far.
    public var count: Int { contexts.withLock { $0.count } }

    /// The context for tunnels to `host`, offering `h2` by ALPN when `http2`. When the client's
    /// SNI names another host, the handshake takes that host's context (and its leaf) instead.
    public func context(for host: String, http2: Bool = false) throws(TLSError) -> TLSContext {
        let key = LeafCertificates.normalize(host)
        let cacheKey = http2 ? key + " h2" : key
        if let existing = contexts.withLock({ $0[cacheKey] }) { return existing }
        let context = try Self.make(key: key, http2: http2, leaves: leaves, keyLog: keyLog, owner: self)
        return contexts.withLock { cache in
            if let raced = cache[cacheKey] { return raced }
            if cache.count >= LeafCertificates.cacheLimit { cache.removeAll(keepingCapacity: true) }
            cache[cacheKey] = context
            return context
        }
    }

    /// A new context for `key`. Its SNI callback asks `owner` (and its cache) for the context of
    /// another host; once `owner` is gone (a caller that kept only the context), it makes one.
    private static func make(
        key: String, http2: Bool, leaves: LeafCertificates, keyLog: KeyLogFile?, owner: InterceptContexts?
    ) throws(TLSError) -> TLSContext {
        // TLS 1.0 and 1.1 (RFC 8996 deprecates them) are refused even when the origin would take
        // them (TLSContext.server asks for 1.2 or later): a client that cannot do 1.2 fails its
        // handshake with rangetap, where a capture of it would show a session weaker than any
        // origin worth debugging offers today.
        try TLSContext.server(
            leaf: try leaves.certificate(for: key), chain: leaves.caCertificate, keyPEM: leaves.privateKeyPEM,
            applicationProtocols: applicationProtocols(http2: http2), keyLog: keyLog,
            chooseByServerName: { [weak owner] sni in
                let other = LeafCertificates.normalize(sni)
                guard other != key else { return nil }
                if let owner { return try owner.context(for: other, http2: http2) }
                return try make(key: other, http2: http2, leaves: leaves, keyLog: keyLog, owner: nil)
            })
    }
}
