import Foundation
import NIOCore
import NIOSSL
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
    private let contexts = Mutex<[String: NIOSSLContext]>([:])

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

    /// The context for tunnels to `host`, offering `h2` by ALPN when `http2`.
    public func context(for host: String, http2: Bool = false) throws(TLSError) -> NIOSSLContext {
        let key = LeafCertificates.normalize(host)
        let cacheKey = http2 ? key + " h2" : key
        if let existing = contexts.withLock({ $0[cacheKey] }) { return existing }
        let leaf = try leaves.certificate(for: key)
        let leaves = self.leaves
        var configuration = TLSConfiguration.makeServerConfiguration(
            certificateChain: [.certificate(leaf), .certificate(leaves.caCertificate)],
            privateKey: .privateKey(leaves.privateKey))
        configuration.applicationProtocols = Self.applicationProtocols(http2: http2)
        // TLS 1.0 and 1.1 (RFC 8996 deprecates them) are refused even when the origin would take
        // them: a client that cannot do 1.2 fails its handshake with rangetap, where a capture of
        // it would show a session weaker than any origin worth debugging offers today.
        configuration.minimumTLSVersion = .tlsv12
        if let keyLog { configuration.keyLogCallback = { keyLog.append($0) } }
        configuration.sslContextCallback = { values, promise in
            guard let sni = values.serverHostname, LeafCertificates.normalize(sni) != key else {
                promise.succeed(.noChanges)
                return
            }
            do {
                var change = NIOSSLContextConfigurationOverride()
                change.certificateChain = [
                    .certificate(try leaves.certificate(for: sni)), .certificate(leaves.caCertificate),
                ]
                change.privateKey = .privateKey(leaves.privateKey)
                promise.succeed(change)
            } catch {
                promise.fail(error)
            }
        }
        let context: NIOSSLContext
        do {
            context = try NIOSSLContext(configuration: configuration)
        } catch {
            throw .minting(host: key, "cannot make a TLS context: \(error)")
        }
        return contexts.withLock { cache in
            if let raced = cache[cacheKey] { return raced }
            if cache.count >= LeafCertificates.cacheLimit { cache.removeAll(keepingCapacity: true) }
            cache[cacheKey] = context
            return context
        }
    }
}
