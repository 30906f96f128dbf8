/// What happened to one request: the part of a response a player looks at.
///
/// The driver (``ScriptedPlayer``) fills it in from libcurl; tests build it by hand.
public struct FetchOutcome: Sendable, Hashable {
    /// How the transfer ended.
    public enum End: String, Sendable, Hashable, Codable {
        /// The body ended as the server framed it.
        case complete
        /// The player hung up (its read limit was reached).
        case cancelled
        /// libcurl failed mid-transfer (see ``FetchOutcome/failure``).
        case failed
    }

    /// Final status code, or `nil` when no response head arrived.
    public var status: Int?
    /// The `Content-Range` value as received, unparsed.
    public var contentRange: String?
    /// The `Content-Length` value, when present and a number.
    public var contentLength: Int64?
    /// Body bytes read.
    public var bytesRead: Int64
    /// How it ended.
    public var end: End
    /// libcurl's error text for a failed transfer.
    public var failure: String?
    /// libcurl's error code for a failed transfer.
    public var curlCode: Int?
    /// Time from sending the request to the end, cancel or failure, in nanoseconds.
    public var durationNs: Int64
    /// Whether libcurl reused an open connection for it, when known.
    public var connectionReused: Bool?

    /// Creates an outcome.
    public init(
        status: Int?, contentRange: String? = nil, contentLength: Int64? = nil, bytesRead: Int64, end: End,
        failure: String? = nil, curlCode: Int? = nil, durationNs: Int64 = 0, connectionReused: Bool? = nil
    ) {
        self.status = status
        self.contentRange = contentRange
        self.contentLength = contentLength
        self.bytesRead = bytesRead
        self.end = end
        self.failure = failure
        self.curlCode = curlCode
        self.durationNs = durationNs
        self.connectionReused = connectionReused
    }
}
