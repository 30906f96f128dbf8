/// One response head as it crossed the wire: the status line, the field lines and the blank
/// line that ended it, each as sent (see ``HeaderLine``).
public struct ResponseHead: Sendable, Hashable {
    /// The lines in arrival order, the status line first and the blank line last.
    public let lines: [HeaderLine]

    /// The status code, or 0 when the first line is no status line. Read once, when the head
    /// is made: the upstream thread asks for it several times per response.
    public let status: Int

    /// Wraps the lines of one head.
    public init(lines: [HeaderLine]) {
        self.lines = lines
        status = StatusLine.status(of: lines.first)
    }

    /// The first line read as a status line; nil when it is none.
    public var statusLine: StatusLine? { lines.first.flatMap(StatusLine.init) }

    /// Whether this head is an informational one that another head follows: a 1xx status other
    /// than 101 (Switching Protocols ends the HTTP exchange, so its head is the final one).
    public var isInterim: Bool { (100..<200).contains(status) && status != 101 }
}
