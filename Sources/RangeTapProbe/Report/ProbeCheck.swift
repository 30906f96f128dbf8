/// One conformance check: what it found, why it matters, and the exchanges it rests on.
public struct ProbeCheck: Sendable, Codable, Equatable {
    /// Stable identifier, such as `range-probe` (the list is in `docs/probe-json.md`).
    public var id: ID
    /// The area it belongs to.
    public var area: ProbeArea
    /// What is checked, in a few words.
    public var title: String
    /// The outcome.
    public var result: CheckResult
    /// One line for a person: what the server did and what that means for a client.
    public var message: String
    /// The section of RFC 9110 (or RFC 9112) the check follows.
    public var rfc: String
    /// The requests sent and the responses received.
    public var evidence: [ProbeEvidence]

    /// A check result for `id` with its area, title and RFC section.
    public init(_ id: ProbeCheckID, _ result: CheckResult, _ message: String, evidence: [ProbeEvidence]) {
        self.id = .check(id)
        area = id.area
        title = id.title
        self.result = result
        self.message = message
        rfc = id.rfc
        self.evidence = evidence
    }
}
