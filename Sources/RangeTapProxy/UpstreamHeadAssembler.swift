import RangeTapCore

/// Collects libcurl's raw header lines into response heads: informational (1xx) heads, the
/// final head, and trailer lines after it. A value type with no I/O.
struct UpstreamHeadAssembler {
    /// What a line completed.
    enum Output: Equatable {
        /// Nothing yet.
        case none
        /// A 1xx head ended.
        case interim(status: Int, lines: [HeaderLine])
        /// The final head ended.
        case final(status: Int, lines: [HeaderLine])
    }

    private var lines: [HeaderLine] = []
    private(set) var finalReceived = false
    /// Trailer lines after the final head (chunked trailers).
    private(set) var trailers: [HeaderLine] = []

    mutating func add(_ raw: String) -> Output {
        let line = HeaderLine(raw: raw)
        if finalReceived {
            if !line.isBlank { trailers.append(line) }
            return .none
        }
        lines.append(line)
        guard line.isBlank else { return .none }
        let head = lines
        lines = []
        let status = Self.status(of: head.first)
        if (100..<200).contains(status) && status != 101 {
            return .interim(status: status, lines: head)
        }
        finalReceived = true
        return .final(status: status, lines: head)
    }

    /// The status code from a status line such as `HTTP/1.1 206 Partial Content`; 0 if unreadable.
    static func status(of line: HeaderLine?) -> Int {
        guard let line else { return 0 }
        let parts = line.content.split(separator: " ", maxSplits: 2)
        guard parts.count >= 2, parts[0].hasPrefix("HTTP/"), let s = Int(parts[1]) else { return 0 }
        return s
    }
}
