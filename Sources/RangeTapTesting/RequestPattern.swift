import RangeTapReplay

/// Which logged requests to select, like WireMock's request patterns: every field left nil
/// matches anything.
///
/// ```swift
/// let ranged = await fixture.requests(matching: RequestPattern(method: "GET", path: "/a.mp4", range: "bytes=0-1"))
/// ```
public struct RequestPattern: Sendable, Hashable {
    /// The method (`GET`), compared exactly.
    public var method: String?
    /// The origin-form target (`/a.mp4`, query included when sent), compared exactly.
    public var path: String?
    /// The `Range` value as sent (`bytes=0-1`), compared exactly.
    public var range: String?
    /// The status sent.
    public var status: Int?

    /// A pattern; nil fields match anything.
    public init(method: String? = nil, path: String? = nil, range: String? = nil, status: Int? = nil) {
        self.method = method
        self.path = path
        self.range = range
        self.status = status
    }

    /// Whether `request` matches every field that is set.
    public func matches(_ request: ServedRequest) -> Bool {
        (method == nil || method == request.method)
            && (path == nil || path == request.path)
            && (range == nil || range == request.range)
            && (status == nil || status == request.status)
    }
}
