import RangeTapCore

/// The rules of one recording, with each rule's count of matching requests (thread-safe).
public final class FaultRuleSet: Sendable {
    /// The rules, in the order given.
    public let rules: [FaultRule]
    private let counter: RuleMatchCounter

    /// A set of `rules`, none matched yet.
    public init(_ rules: [FaultRule]) {
        self.rules = rules
        counter = RuleMatchCounter(rules.map(\.match))
    }

    /// True when there is no rule.
    public var isEmpty: Bool { rules.isEmpty }

    /// The rules that fire for this request, in order: every rule whose keys match, counted; one
    /// with `nth` fires only on its nth match. Concurrent callers are counted one at a time, so
    /// exactly one request is the nth.
    public func firing(host: String, path: String, method: String, hasRange: Bool) -> [FaultRule] {
        counter.firing(host: host, path: path, method: method, hasRange: hasRange).map { rules[$0] }
    }

    /// How many requests each rule's keys have matched so far, in rule order.
    public var matchCounts: [Int] { counter.matchCounts }
}
