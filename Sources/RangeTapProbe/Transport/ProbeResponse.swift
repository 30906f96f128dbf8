import RangeTapCore

/// What came back for one ``ProbeRequest``: every head raw, the body's size and SHA-256, and
/// how the connection was used.
struct ProbeResponse: Sendable {
    /// What was asked.
    var request: ProbeRequest
    /// The request head as sent (secrets redacted), one line per element.
    var requestLines: [String]
    /// Every response head in arrival order (1xx first, the final head last), raw lines.
    var heads: [[HeaderLine]] = []
    /// Final status, `nil` when no final head arrived.
    var status: Int?
    /// The HTTP version of the final status line (`HTTP/1.1`; libcurl writes `HTTP/2` for HTTP/2).
    var version: String?
    /// The HTTP version the final response came over, as libcurl negotiated it: `1.0`, `1.1`, `2`.
    var httpVersion: String?
    /// Body bytes read.
    var bodyBytes: Int64 = 0
    /// Whether the probe hung up before the response ended.
    var stoppedEarly = false
    /// SHA-256 (hex) of the body bytes read.
    var sha256: String?
    /// SHA-256 (hex) of each requested slice the body covered completely.
    var sliceHashes: [ByteRange: String] = [:]
    /// The leading body bytes kept (see ``ProbeRequest/keepBytes``).
    var kept: [UInt8] = []
    /// Whether libcurl reused a connection for it.
    var reused: Bool?
    /// Local port of the connection.
    var localPort: Int?
    /// The transfer's failure, unless the probe stopped it on purpose.
    var error: String?
    /// libcurl's result code for ``error`` (`-1` when rangetap could not start the transfer).
    var errorCode: Int?
    /// Duration in milliseconds.
    var durationMs: Double = 0

    /// The final head (empty when none came), lines with whitespace before the colon read as
    /// the field a conforming proxy forwards (RFC 9112 §5.1; `header-syntax` reports them).
    var head: [HeaderLine] {
        guard status != nil, let last = heads.last else { return [] }
        return last.map { $0.removingSpaceBeforeColon() }
    }

    /// The first value of a field in the final head (case-insensitive name).
    func header(_ name: String) -> String? { head.first(named: name) }

    /// Every value of a field in the final head.
    func values(_ name: String) -> [String] { head.values(named: name).map(String.init) }

    /// `Content-Length` as a number.
    var contentLength: Int64? { header("Content-Length").flatMap { Int64($0) } }

    /// The raw Content-Range value.
    var contentRangeValue: String? { header("Content-Range") }

    /// Content-Range parsed by RangeTapCore, or the parse error.
    var contentRange: Result<ContentRange, RangeParseError>? {
        guard let v = contentRangeValue else { return nil }
        do { return .success(try ContentRange.parse(v)) } catch { return .failure(error) }
    }

    /// The media type without parameters, lower-cased.
    var mediaType: String? {
        header("Content-Type").map {
            $0.split(separator: ";", maxSplits: 1).first.map { $0.trimmingHTTPWhitespace().lowercased() } ?? ""
        }
    }

    /// Lower-cased tokens of every Connection field.
    var connectionTokens: Set<String> {
        Set(values("Connection").flatMap { $0.split(separator: ",") }.map { $0.trimmingHTTPWhitespace().lowercased() })
    }

    /// Whether the server said it closes the connection after this response: `Connection: close`,
    /// or an HTTP/1.0 response without `Connection: keep-alive`.
    var announcedClose: Bool {
        if connectionTokens.contains("close") { return true }
        if version == "HTTP/1.0" { return !connectionTokens.contains("keep-alive") }
        return false
    }

    /// Whether the whole response was read.
    var complete: Bool { status != nil && error == nil && !stoppedEarly }

    /// "206 bytes 0-1/100" style summary of the answer.
    var summary: String {
        guard let status else { return "no response (\(error ?? "unknown error"))" }
        var s = "\(status)"
        if let cr = contentRangeValue { s += " Content-Range: \(cr)" }
        return s
    }

    /// The evidence record for reports.
    var evidence: ProbeEvidence {
        ProbeEvidence(
            label: request.label, request: requestLines, response: heads.flatMap { $0.map(\.raw) },
            status: status, bodyBytes: bodyBytes, stoppedEarly: stoppedEarly, sha256: sha256,
            reusedConnection: reused, localPort: localPort, error: error, durationMs: durationMs,
            httpVersion: httpVersion)
    }
}
