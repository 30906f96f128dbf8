/// A response rangetap answers itself with RFC 9110 range semantics (``RangeAnswerPlanner``):
/// status, field lines and a body made of literal bytes and spans of a representation. Planned
/// without I/O, so the rules are testable alone; `serve --ideal` sends it from a capture,
/// `record --map` from a local file.
public struct RangeAnswer: Sendable, Equatable {
    /// A piece of the body.
    public enum Part: Sendable, Equatable {
        /// Bytes written as they are (text bodies, multipart boundaries and part heads).
        case literal([UInt8])
        /// Bytes of the resource, read from the capture.
        case resource(Range<Int64>)

        /// Its length in bytes.
        public var count: Int64 {
            switch self {
            case .literal(let b): Int64(b.count)
            case .resource(let r): r.upperBound - r.lowerBound
            }
        }
    }

    /// Status code.
    public var status: Int
    /// Field lines in order, without Content-Length (computed from the body).
    public var fields: [(name: String, value: String)]
    /// The body as it would be sent to a GET.
    public var body: [Part]
    /// Set when the answer refuses bytes the source never held (a capture's gaps): what was missing.
    public var uncaptured: String?

    /// An answer.
    public init(status: Int, fields: [(name: String, value: String)], body: [Part], uncaptured: String? = nil) {
        self.status = status
        self.fields = fields
        self.body = body
        self.uncaptured = uncaptured
    }

    /// Body length in bytes.
    public var contentLength: Int64 { body.map(\.count).saturatingSum() }

    /// The head, byte-exact (a HEAD gets the same head and no body). An HTTP/1.0 client that
    /// asked for keep-alive is told it holds.
    public func head(keepAlive: Bool, http10: Bool = false) -> [UInt8] {
        var s = "HTTP/1.1 \(status) \(Self.reason(status))\r\n"
        for f in fields { s += "\(f.name): \(f.value)\r\n" }
        s += "Content-Length: \(contentLength)\r\n"
        if !keepAlive { s += "Connection: close\r\n" } else if http10 { s += "Connection: keep-alive\r\n" }
        s += "\r\n"
        return Array(s.utf8)
    }

    public static func == (a: RangeAnswer, b: RangeAnswer) -> Bool {
        a.status == b.status && a.body == b.body
            && a.fields.map { "\($0.name): \($0.value)" } == b.fields.map { "\($0.name): \($0.value)" }
    }

    /// The field value named `name` (case-insensitive), if any.
    public func field(_ name: String) -> String? {
        fields.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    /// The reason phrase of the statuses these answers have.
    public static func reason(_ status: Int) -> String {
        switch status {
        case 200: "OK"
        case 206: "Partial Content"
        case 304: "Not Modified"
        case 400: "Bad Request"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 416: "Range Not Satisfiable"
        case 500: "Internal Server Error"
        case 503: "Service Unavailable"
        default: "Status"
        }
    }

    /// A `text/plain` response.
    public static func text(
        _ status: Int, _ text: String, extra: [(name: String, value: String)] = [], uncaptured: String? = nil
    ) -> RangeAnswer {
        RangeAnswer(
            status: status, fields: [("Content-Type", "text/plain; charset=utf-8")] + extra,
            body: [.literal(Array(text.utf8))], uncaptured: uncaptured)
    }
}
