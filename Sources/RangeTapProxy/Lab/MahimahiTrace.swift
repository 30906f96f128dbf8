import RangeTapCore

/// A Mahimahi packet-delivery trace: the times at which the link can deliver one 1500-byte
/// packet.
///
/// The format is Mahimahi's (`mm-link`): one line per delivery opportunity, an integer number of
/// milliseconds since the start, never decreasing; several equal lines are several packets in
/// that millisecond. The trace repeats after its last timestamp, as Mahimahi's does, so
/// opportunity `i` of repetition `k` is at `k * periodMs + opportunitiesMs[i]`. As our
/// extension, blank lines and lines starting with `#` are ignored (for a comment saying how the
/// trace was made).
public struct MahimahiTrace: Sendable, Equatable {
    /// Bytes delivered by one opportunity.
    public static let packetBytes: Int64 = 1500

    /// Each a delivery opportunity of one 1500-byte packet, in ms from the start.
    public let opportunitiesMs: [Int64]

    /// Parses the text of a trace; `name` (its path) is used in messages.
    public init(parsing text: String, name: String) throws(LabSpecError) {
        var times: [Int64] = []
        for (number, line) in LabTextFile.contentLines(text) {
            guard line.allSatisfy({ $0.isASCII && $0.isNumber }), let ms = Int64(line), ms <= Self.maximumMs else {
                throw .badTraceLine(
                    name: name, line: number, text: String(line),
                    reason: "is not a whole number of milliseconds (0 to \(Self.maximumMs))")
            }
            if let last = times.last, ms < last {
                throw .badTraceLine(
                    name: name, line: number, text: String(line),
                    reason: "goes back in time (the line before says \(last))")
            }
            times.append(ms)
        }
        guard let last = times.last else { throw .emptyTrace(name: name) }
        guard last > 0 else { throw .zeroTracePeriod(name: name) }
        opportunitiesMs = times
    }

    /// Reads and parses the trace at `path`.
    public static func load(path: String) throws(LabSpecError) -> MahimahiTrace {
        try MahimahiTrace(parsing: try LabTextFile.read(path), name: path)
    }

    /// The longest trace accepted, about 31 years: keeps every time computed from it far from
    /// overflowing nanoseconds.
    static let maximumMs: Int64 = 1_000_000_000_000

    /// The last timestamp: the trace repeats after it, as Mahimahi's does.
    public var periodMs: Int64 { opportunitiesMs[opportunitiesMs.count - 1] }

    /// The rate the trace carries on average over one period, in bits per second.
    public var averageBitsPerSecond: Double {
        Double(opportunitiesMs.count) * Double(Self.packetBytes * 8) * 1000 / Double(periodMs)
    }
}
