/// One response head as it crossed the wire: the status line, the field lines and the blank
/// line that ended it, each as sent (see ``HeaderLine``).
public struct ResponseHead: Sendable, Hashable {
    /// The lines in arrival order, the status line first and the blank line last.
    public var lines: [HeaderLine]

    /// Wraps the lines of one head.
    public init(lines: [HeaderLine]) { self.lines = lines }

    /// The first line read as a status line; nil when it is none.
    public var statusLine: StatusLine? { lines.first.flatMap(StatusLine.init) }

    /// The status code, or 0 when the first line is no status line.
    public var status: Int { StatusLine.status(of: lines.first) }

    /// Whether this head is an informational one that another head follows: a 1xx status other
    /// than 101 (Switching Protocols ends the HTTP exchange, so its head is the final one).
    public var isInterim: Bool { (100..<200).contains(status) && status != 101 }
}
