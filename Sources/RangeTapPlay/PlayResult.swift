/// Everything a scripted play session saw.
public struct PlayResult: Sendable, Hashable {
    /// The pattern played.
    public var pattern: PlayPattern
    /// One entry per request sent, in order.
    public var steps: [PlayStep]
    /// What the server did wrong (empty when every answer was what a player needs).
    public var problems: [PlayProblem]
    /// The resource's total length, when learnt.
    public var contentLength: Int64?

    /// Creates a result.
    public init(pattern: PlayPattern, steps: [PlayStep], problems: [PlayProblem], contentLength: Int64?) {
        self.pattern = pattern
        self.steps = steps
        self.problems = problems
        self.contentLength = contentLength
    }

    /// The final state of a script.
    public init(_ script: PlayerScript) {
        self.init(
            pattern: script.pattern, steps: script.steps, problems: script.problems, contentLength: script.contentLength
        )
    }

    /// Whether every request got what a player needs (`206`, or `200` for `linear`).
    public var conforms: Bool { problems.isEmpty }

    /// Whether some Range request was answered `200` with the whole file.
    public var serverIgnoredRange: Bool { problems.contains { $0.kind == .ignoredRange } }

    /// Body bytes read over all steps.
    public var totalBytes: Int64 { steps.reduce(0) { $0 + $1.bytes } }

    /// A one-line verdict for people.
    public var verdict: String {
        if serverIgnoredRange {
            return "the server ignored Range; a player would download the whole file"
        }
        if let first = problems.first {
            return "the server misbehaved: \(first)"
        }
        let statuses = Set(steps.compactMap(\.status)).sorted().map(String.init).joined(separator: "/")
        let cancels = steps.filter(\.cancelled).count
        let requests = steps.count == 1 ? "1 request" : "\(steps.count) requests"
        return "\(requests), all answered \(statuses), \(cancels) cancelled, \(totalBytes) body bytes read"
    }
}
