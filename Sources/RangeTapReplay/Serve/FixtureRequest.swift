import NIOCore
import NIOHTTP1
import RangeTapCore

/// A request head as the fixture server received it, with what matching needs.
struct FixtureRequest: Sendable {
    /// The method as sent.
    var method: String
    /// The request-target as sent.
    var target: String
    /// The target in origin form: path and query (`/a.mp4?x=1`).
    var path: String
    /// The origin asked for: the absolute-form target's, else the `Host` header's.
    var origin: RequestOrigin?
    /// The first `Range` value, if any.
    var range: String?
    /// The first `If-Range` value, if any.
    var ifRange: String?
    /// Whether the client keeps the connection open after this exchange.
    var keepAlive: Bool
    /// Whether the request came as HTTP/1.0 (keep-alive then has to be confirmed).
    var isHTTP10 = false
    /// When the head was decoded.
    var arrived: NIODeadline

    /// Takes what matters from a decoded head.
    init(head: HTTPRequestHead, arrived: NIODeadline) {
        method = head.method.rawValue
        target = head.uri
        path = RequestPath.originForm(head.uri)
        origin =
            RequestOrigin(url: head.uri)
            ?? head.headers.first(name: "Host").flatMap { RequestOrigin(hostHeader: $0, defaultPort: nil) }
        range = head.headers.first(name: "Range")
        ifRange = head.headers.first(name: "If-Range")
        keepAlive = head.isKeepAlive
        isHTTP10 = head.version.major == 1 && head.version.minor == 0
        self.arrived = arrived
    }

    /// A request built from parts (tests).
    init(
        method: String, target: String, host: String? = nil, range: String? = nil, ifRange: String? = nil,
        keepAlive: Bool = true, isHTTP10: Bool = false, arrived: NIODeadline = .now()
    ) {
        self.isHTTP10 = isHTTP10
        self.method = method
        self.target = target
        path = RequestPath.originForm(target)
        origin = RequestOrigin(url: target) ?? host.flatMap { RequestOrigin(hostHeader: $0, defaultPort: nil) }
        self.range = range
        self.ifRange = ifRange
        self.keepAlive = keepAlive
        self.arrived = arrived
    }

    /// `GET /a.mp4 range=bytes=0-1`, for logs and 404 bodies.
    var summary: String { "\(method) \(path)\(range.map { " range=\($0)" } ?? "")" }
}

/// Request-target forms (RFC 9112 §3.2).
enum RequestPath {
    /// The path and query of an absolute-form URL or an origin-form target; `/` when empty. The
    /// `CMCD` query parameter is left out: a player's report, different on every request, does
    /// not name the resource.
    static func originForm(_ target: String) -> String {
        URLParts(CMCDQuery.removed(from: target)).originForm
    }

    /// The `host:port` of an absolute URL as written (userinfo included), lower-case, if it is one.
    static func authority(_ url: String) -> String? {
        URLParts(url).authorityText.map { $0.lowercased() }
    }
}
