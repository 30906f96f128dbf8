/// Collects raw header lines, as libcurl's header callback delivers them (one line per call,
/// terminator included, for every head of the response), into response heads: informational
/// (1xx) heads, the final head, and the trailer lines after it. A value type with no I/O.
///
/// A head ends at a blank line. It is interim when its status is 1xx other than 101 (see
/// ``ResponseHead/isInterim``); any other head is the final one, also when its first line is no
/// status line (its ``ResponseHead/status`` is then 0). Lines are kept exactly as received:
/// name case, value whitespace, reason phrase, folded and malformed lines.
public struct ResponseHeadAssembler: Sendable {
    /// What a line completed.
    public enum Output: Sendable, Hashable {
        /// Nothing yet.
        case none
        /// An interim (1xx) head ended.
        case interim(ResponseHead)
        /// The final head ended.
        case final(ResponseHead)
    }

    /// The lines of the head in progress.
    public private(set) var pending: [HeaderLine] = []
    /// Whether the final head ended.
    public private(set) var finalReceived = false
    /// Non-blank lines after the final head (chunked trailers).
    public private(set) var trailers: [HeaderLine] = []

    /// An assembler that has seen no line.
    public init() {}

    /// Takes the next line and says which head, if any, it ended.
    public mutating func add(_ line: HeaderLine) -> Output {
        if finalReceived {
            if !line.isBlank { trailers.append(line) }
            return .none
        }
        pending.append(line)
        guard line.isBlank else { return .none }
        let head = ResponseHead(lines: pending)
        pending = []
        if head.isInterim { return .interim(head) }
        finalReceived = true
        return .final(head)
    }
}
