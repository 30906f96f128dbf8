/// One request of a scripted play session and what came back: the line `rangetap play` prints.
public struct PlayStep: Sendable, Hashable, Codable {
    /// Position in the session, from 1.
    public var number: Int
    /// Why it was sent.
    public var purpose: PlannedRequest.Purpose
    /// The `Range` header sent.
    public var range: String
    /// Final status, or `nil` when no response head arrived.
    public var status: Int?
    /// `Content-Range` as received.
    public var contentRange: String?
    /// `Content-Length` as received.
    public var contentLength: Int64?
    /// Body bytes read.
    public var bytes: Int64
    /// Milliseconds from sending the request to its end or cancel.
    public var ms: Double
    /// Whether the player hung up before the body ended.
    public var cancelled: Bool
    /// How it ended.
    public var end: FetchOutcome.End
    /// Whether libcurl sent it on an already open connection, when known.
    public var reusedConnection: Bool?
    /// What was wrong with the answer, if anything.
    public var problem: String?

    /// Creates a step.
    public init(
        number: Int, purpose: PlannedRequest.Purpose, range: String, status: Int?, contentRange: String?,
        contentLength: Int64?, bytes: Int64, ms: Double, end: FetchOutcome.End, reusedConnection: Bool?,
        problem: String?
    ) {
        self.number = number
        self.purpose = purpose
        self.range = range
        self.status = status
        self.contentRange = contentRange
        self.contentLength = contentLength
        self.bytes = bytes
        self.ms = ms
        self.cancelled = end == .cancelled
        self.end = end
        self.reusedConnection = reusedConnection
        self.problem = problem
    }

    /// One aligned text line: step, Range sent, status, Content-Range, bytes, ms, how it ended.
    public var line: String {
        func pad(_ s: String, _ n: Int, right: Bool = false) -> String {
            s.count >= n
                ? s
                : (right
                    ? String(repeating: " ", count: n - s.count) + s : s + String(repeating: " ", count: n - s.count))
        }
        let msText = String(Int((ms * 10).rounded()) / 10) + "." + String(Int((ms * 10).rounded()) % 10)
        var text =
            pad(String(number), 2, right: true) + "  " + pad(purpose.rawValue, 7) + " "
            + pad(range, 20) + " " + pad(status.map(String.init) ?? "---", 3) + "  "
            + pad(contentRange ?? "-", 30) + " " + pad(String(bytes), 10, right: true) + " B "
            + pad(msText, 8, right: true) + " ms  " + end.rawValue
        if let problem { text += "  ! " + problem }
        return text
    }
}
