/// One request a check sent and what came back, byte for byte as far as the head goes.
public struct ProbeEvidence: Sendable, Codable, Equatable {
    /// Short name of the request within its check, such as `bytes=0-1` or `If-Range: wrong ETag`.
    public var label: String
    /// The request head as sent, one line per element, `\r\n` included (secrets redacted).
    public var request: [String]
    /// Every response head in arrival order (1xx heads first), raw lines with their terminators,
    /// the blank line included; empty when no response came.
    public var response: [String]
    /// Final status code, or `nil` when no response head arrived.
    public var status: Int?
    /// Body bytes rangetap read.
    public var bodyBytes: Int64
    /// Whether rangetap stopped reading before the response ended (it had what it needed, or
    /// the server sent a whole body where a range was asked).
    public var stoppedEarly: Bool
    /// SHA-256 (hex) of the body bytes read, or `nil` when there were none.
    public var sha256: String?
    /// Whether libcurl sent this request on a connection it had already used (`nil`: unknown).
    public var reusedConnection: Bool?
    /// The local port of the connection, to tell connections apart.
    public var localPort: Int?
    /// The transfer error, such as a timeout or a reset; `nil` when the response ended cleanly
    /// or rangetap stopped it on purpose.
    public var error: String?
    /// Time from sending to the end of the transfer, in milliseconds.
    public var durationMs: Double
    /// The HTTP version the response came over, as libcurl negotiated it (`"1.0"`, `"1.1"`,
    /// `"2"`); `nil` when no response head came.
    public var httpVersion: String?

    /// Creates evidence from parts.
    public init(
        label: String, request: [String], response: [String], status: Int?, bodyBytes: Int64, stoppedEarly: Bool,
        sha256: String?, reusedConnection: Bool?, localPort: Int?, error: String?, durationMs: Double,
        httpVersion: String? = nil
    ) {
        self.label = label
        self.request = request
        self.response = response
        self.status = status
        self.bodyBytes = bodyBytes
        self.stoppedEarly = stoppedEarly
        self.sha256 = sha256
        self.reusedConnection = reusedConnection
        self.localPort = localPort
        self.error = error
        self.durationMs = durationMs
        self.httpVersion = httpVersion
    }
}
