import RangeTapCore

import Synchronization

/// The rules of one recording, with each rule's count of matching requests (thread-safe).
public final class FaultRuleSet: Sendable {
    /// The rules, in the order given.
    public let rules: [FaultRule]
    /// How many requests each rule's keys have matched so far.
    private let counts: Mutex<[Int]>

    /// A set of `rules`, none matched yet.
    public init(_ rules: [FaultRule]) {
        self.rules = rules
        counts = Mutex(Array(repeating: 0, count: rules.count))
    }

    /// True when there is no rule.
    public var isEmpty: Bool { rules.isEmpty }

    /// The rules that fire for this request, in order: every rule whose keys match, counted; one
    /// with `nth` fires only on its nth match. Concurrent callers are counted one at a time, so
    /// exactly one request is the nth.
    public func firing(host: String, path: String, method: String, hasRange: Bool) -> [FaultRule] {
        let matching = rules.indices.filter {
            rules[$0].match.matches(host: host, path: path, method: method, hasRange: hasRange)
        }
        guard !matching.isEmpty else { return [] }
        let fired = counts.withLock { counts in
            matching.filter { i in
                counts[i] += 1
                return rules[i].match.nth.map { $0 == counts[i] } ?? true
            }
        }
        return fired.map { rules[$0] }
    }

    /// How many requests each rule's keys have matched so far, in rule order.
    public var matchCounts: [Int] { counts.withLock { $0 } }
}
