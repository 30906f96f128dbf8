import Foundation
import Synchronization
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Loopback checks and a URLSession client for the RangeTapTesting suites.
enum Loopback {
    /// Whether something accepts a TCP connection on 127.0.0.1:`port` now.
    static func accepts(port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = in_port_t(UInt16(port).bigEndian)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        let rc = withUnsafePointer(to: &addr) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        return rc == 0
    }

    /// A URLSession with no proxy, or with `proxy` in its `connectionProxyDictionary` (which
    /// FoundationNetworking ignores on Linux).
    static func session(proxy: URL? = nil) -> URLSession {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = nil
        if let proxy, let host = proxy.host, let port = proxy.port {
            configuration.connectionProxyDictionary = [
                "HTTPEnable": 1,
                "HTTPProxy": host,
                "HTTPPort": port,
            ]
        } else {
            configuration.connectionProxyDictionary = [:]
        }
        return URLSession(configuration: configuration)
    }

    /// GETs `url` with an optional `Range`; the status and body.
    static func get(
        _ url: URL, range: String? = nil, session: URLSession = session()
    ) async throws -> (status: Int, body: Data) {
        var request = URLRequest(url: url)
        if let range { request.setValue(range, forHTTPHeaderField: "Range") }
        let (data, response) = try await session.data(for: request)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, data)
    }
}

/// An error a test body throws on purpose.
struct DeliberateFailure: Error, Equatable {}

/// The port a test body saw, read after the body has returned or thrown.
final class SeenPort: Sendable {
    private let stored = Atomic<Int>(0)
    /// The port set last (0 before).
    var value: Int { stored.load(ordering: .relaxed) }
    /// Keeps `port`.
    func set(_ port: Int) { stored.store(port, ordering: .relaxed) }
}
