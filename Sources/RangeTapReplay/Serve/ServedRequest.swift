/// One request a ``FixtureServer`` answered, as its request log keeps it (see
/// ``FixtureServer/requestLog()``), for tests to check what a client asked and got.
public struct ServedRequest: Sendable, Equatable, CustomStringConvertible {
    /// The method as sent (`GET`, `HEAD`).
    public var method: String
    /// The target in origin form: path and query (`/a.mp4?x=1`), also for an absolute-form target.
    public var path: String
    /// The request's first `Range` value as sent (`bytes=0-1`), nil without one.
    public var range: String?
    /// The status sent; nil when the connection closed without a response head (as recorded).
    public var status: Int?
    /// Body bytes written to the client (heads and chunk framing not counted).
    public var bodyBytes: Int64
    /// Whether the whole answer was written. False while it is being written, and for good when
    /// the client left or the connection failed first. A faithful replay of a recorded cancel or
    /// drop ends short by design and is complete once that is written.
    public var isComplete: Bool

    /// A logged request from its parts.
    public init(
        method: String, path: String, range: String? = nil, status: Int?, bodyBytes: Int64, isComplete: Bool = true
    ) {
        self.method = method
        self.path = path
        self.range = range
        self.status = status
        self.bodyBytes = bodyBytes
        self.isComplete = isComplete
    }

    /// `GET /a.mp4 range=bytes=0-1 -> 206 2 B`, with `(incomplete)` when not whole.
    public var description: String {
        "\(method) \(path)\(range.map { " range=\($0)" } ?? "") -> \(status.map(String.init) ?? "no response") \(bodyBytes) B\(isComplete ? "" : " (incomplete)")"
    }
}
