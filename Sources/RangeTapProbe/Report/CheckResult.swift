/// The outcome of one probe check.
public enum CheckResult: String, Sendable, Codable, CaseIterable, Comparable {
    /// The server does what RFC 9110 and media players need.
    case pass
    /// Worth knowing, neither right nor wrong (a permitted choice, or a check that could not run).
    case info
    /// An RFC 9110 deviation that clients mostly survive.
    case warn
    /// A player or cache breaks, or downloads far more than it asked.
    case fail

    private var rank: Int {
        switch self {
        case .pass: 0
        case .info: 1
        case .warn: 2
        case .fail: 3
        }
    }

    /// Orders by harm: `pass < info < warn < fail`.
    public static func < (a: Self, b: Self) -> Bool { a.rank < b.rank }

    /// The upper-case label of the text report.
    public var label: String { rawValue.uppercased() }
}
