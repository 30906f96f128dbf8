import Foundation
import NIOCore
import RangeTapSystem

/// The proxy could not start or could not be configured as asked.
public struct ProxyError: Error, Sendable, Hashable, CustomStringConvertible {
    private enum Code: Sendable, Hashable {
        case remoteListenNotAllowed(String)
        case openProxy(String)
        case badUpstream(String)
        case upstreamIsProxy(String, String)
        case bindFailed(String, String)
        case addressInUse(String)
        case setup(String)
        case certificateAuthority(String)
        case upstreamCACertificates(String, String)
    }
    private let code: Code
    private init(_ code: Code) { self.code = code }

    /// A non-loopback listen address without `--allow-remote`.
    public static func remoteListenNotAllowed(_ host: String) -> Self { .init(.remoteListenNotAllowed(host)) }
    /// A non-loopback listen address with neither credentials nor client networks.
    public static func openProxy(_ host: String) -> Self { .init(.openProxy(host)) }
    /// `--upstream` is not an absolute http(s) URL.
    public static func badUpstream(_ url: String) -> Self { .init(.badUpstream(url)) }
    /// `--upstream` is the proxy's own listen address: every request would come back to it.
    public static func upstreamIsProxy(_ url: String, listen: String) -> Self { .init(.upstreamIsProxy(url, listen)) }
    /// The listen address could not be bound.
    public static func bindFailed(_ address: String, _ reason: String) -> Self { .init(.bindFailed(address, reason)) }
    /// Binding `address` (`HOST:PORT`) failed with `error`: a port in use says so, and any
    /// other socket error in the system's words (`Permission denied`), not NIO's.
    public static func cannotListen(_ address: String, _ error: any Error) -> Self {
        guard let io = error as? IOError else { return .init(.bindFailed(address, "\(error)")) }
        if io.errnoCode == EADDRINUSE { return .init(.addressInUse(address)) }
        return .init(.bindFailed(address, System.errorText(io.errnoCode)))
    }
    /// libcurl or the capture could not be set up.
    public static func setup(_ reason: String) -> Self { .init(.setup(reason)) }
    /// The local CA for interception could not be loaded or created.
    public static func certificateAuthority(_ reason: String) -> Self { .init(.certificateAuthority(reason)) }
    /// `--upstream-cacert` names a file that is not readable PEM.
    public static func upstreamCACertificates(_ path: String, _ reason: String) -> Self {
        .init(.upstreamCACertificates(path, reason))
    }

    public var description: String {
        switch code {
        case .remoteListenNotAllowed(let host):
            "refusing to listen on \(host): a proxy reachable from other machines must not be an open proxy. Listen on 127.0.0.1, or pass --proxy-auth USER:PASS, --allow-client CIDR, or --allow-remote (credentials made for the run)."
        case .openProxy(let host):
            "refusing to listen on \(host) without --proxy-auth USER:PASS or --allow-client CIDR: anyone who reaches it could use it as an open proxy"
        case .badUpstream(let url):
            "--upstream \(url) is not an absolute http:// or https:// URL (example: --upstream https://cdn.example.com)"
        case .upstreamIsProxy(let url, let listen):
            "--upstream \(url) is rangetap's own listen address (\(listen)): every request would be forwarded back to rangetap without end. Point --upstream at the origin server (another port or host), or --listen on another port."
        case .addressInUse(let address):
            "\(address) is already in use (another rangetap or server?): choose another port with --listen 127.0.0.1:PORT or -p PORT (0 picks a free one)"
        case .bindFailed(let address, let reason):
            "cannot listen on \(address): \(reason). Choose another port with --listen 127.0.0.1:PORT."
        case .setup(let reason):
            reason
        case .certificateAuthority(let reason):
            "cannot intercept HTTPS: \(reason). Pass --ca-dir DIR to use another directory, or --no-intercept '*' to relay tunnels without decrypting them."
        case .upstreamCACertificates(let path, let reason):
            "--upstream-cacert \(path): \(reason); it must be a PEM file of CA certificates (-----BEGIN CERTIFICATE-----)"
        }
    }
}
