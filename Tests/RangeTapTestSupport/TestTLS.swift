import Foundation
import RangeTapProxy

/// A test origin's TLS material made with openssl: its own CA, and a server certificate for
/// `localhost` and `127.0.0.1` signed by it (so a client that trusts `caFile` verifies it), plus
/// a self-signed one that nothing trusts.
public struct TestTLS: Sendable {
    /// The origin CA's certificate (PEM): what an upstream verifier must be given.
    public let caFile: String
    /// Server certificate signed by the CA.
    public let certificate: String
    /// Its key.
    public let key: String

    /// A proxy that intercepts with a new CA in a temporary directory and trusts this CA upstream.
    public func interceptingProxy(
        _ configure: (inout ProxyConfiguration) -> Void = { _ in }
    ) async throws -> ProxyHarness {
        let caDir = Paths.temporaryDirectory("rangetap-ca")
        let caFile = self.caFile
        return try await ProxyHarness { config in
            config.caDirectory = caDir
            config.upstreamCACertificates = caFile
            configure(&config)
        }
    }

    /// The set this test process shares: made once, on first use. Each set costs three openssl
    /// runs (about 0.3 s of CPU), and no test changes its files, so tests that need an origin
    /// certificate and nothing else take this one. A test that needs a CA of its own (one a client
    /// must not trust) makes one with ``init()``.
    public static func shared() throws -> TestTLS { try sharedSet.get() }

    private static let sharedSet = Result { try TestTLS() }

    /// Makes the files in a new temporary directory.
    public init() throws {
        let dir = Paths.temporaryDirectory("origin-tls")
        let openssl = try Paths.tool("openssl")
        func run(_ args: [String]) throws {
            let r = try runCommand(openssl, args)
            guard r.status == 0 else { throw TestFailure("openssl \(args.first ?? ""): \(r.stderr)") }
        }
        caFile = dir + "/origin-ca.pem"
        certificate = dir + "/cert.pem"
        key = dir + "/key.pem"
        try run([
            "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout",
            dir + "/origin-ca.key", "-out", caFile, "-days", "2", "-subj", "/CN=rangetap test origin CA",
        ])
        try run([
            "req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", key, "-out",
            dir + "/req.csr", "-subj", "/CN=localhost",
        ])
        try "subjectAltName=DNS:localhost,IP:127.0.0.1\n".write(
            toFile: dir + "/ext.cnf", atomically: true, encoding: .utf8)
        try run([
            "x509", "-req", "-in", dir + "/req.csr", "-CA", caFile, "-CAkey", dir + "/origin-ca.key", "-CAcreateserial",
            "-out", certificate, "-days", "2", "-extfile", dir + "/ext.cnf",
        ])
    }

    /// A self-signed certificate and key for `127.0.0.1` (no CA vouches for it).
    public static func selfSigned() throws -> (certificate: String, key: String) {
        let dir = Paths.temporaryDirectory("self-signed")
        let r = try runCommand(
            try Paths.tool("openssl"),
            [
                "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout",
                dir + "/key.pem", "-out", dir + "/cert.pem", "-days", "1", "-subj", "/CN=127.0.0.1", "-addext",
                "subjectAltName=IP:127.0.0.1",
            ])
        guard r.status == 0 else { throw TestFailure("openssl: \(r.stderr)") }
        return (dir + "/cert.pem", dir + "/key.pem")
    }
}

/// The two ways a client reaches an origin through rangetap: plain HTTP through the forward
/// proxy, or HTTPS through an intercepted CONNECT tunnel.
public enum Scheme: String, CaseIterable, Sendable, CustomStringConvertible {
    case http
    case https

    public var description: String { rawValue }
}

/// nginx serving one directory over both schemes, and a proxy set up to intercept HTTPS with a
/// fresh CA and to trust the origin's test CA upstream.
public final class SchemeOrigins: @unchecked Sendable {
    /// Plain nginx.
    public let plain: NginxServer
    /// nginx over TLS with ``tls``'s certificate.
    public let secure: NginxServer
    /// The origin's TLS material.
    public let tls: TestTLS

    /// Starts both servers on `root`.
    public init(root: String) throws {
        plain = try NginxServer(root: root)
        tls = try TestTLS.shared()
        secure = try NginxServer(root: root, tls: (certificate: tls.certificate, key: tls.key))
    }

    /// The server for `scheme`.
    public func server(_ scheme: Scheme) -> NginxServer { scheme == .http ? plain : secure }

    /// `http://127.0.0.1:PORT/path` or `https://HOST:PORT/path` (HOST `127.0.0.1` unless given:
    /// an IP literal sends no SNI).
    public func url(_ scheme: Scheme, _ path: String, host: String = "127.0.0.1") -> String {
        "\(scheme.rawValue)://\(host):\(server(scheme).port)/\(path)"
    }

    /// A proxy that intercepts with a new CA in a temporary directory and trusts the origin CA.
    public func proxy(_ configure: (inout ProxyConfiguration) -> Void = { _ in }) async throws -> ProxyHarness {
        try await tls.interceptingProxy(configure)
    }
}
