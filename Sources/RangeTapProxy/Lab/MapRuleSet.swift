import RangeTapCore
import RangeTapReplay

/// The `--map` rules of one recording, with each rule's count of matching requests
/// (thread-safe, as ``FaultRuleSet``), and the captures `capture=` rules answer from, indexed once.
public final class MapRuleSet: Sendable {
    /// The rules, in the order given.
    public let rules: [MapRule]
    private let counter: RuleMatchCounter
    /// The indexed captures of `capture=` rules, by path.
    let captures: [String: CapturedResources]

    /// A set of `rules`, none matched yet; the captures they answer from are indexed now, and
    /// one that cannot be read is an error naming it.
    public init(_ rules: [MapRule]) throws(ProxyError) {
        self.rules = rules
        counter = RuleMatchCounter(rules.map(\.match))
        var captures: [String: CapturedResources] = [:]
        for rule in rules {
            guard case .capture(let path) = rule.source, captures[path] == nil else { continue }
            do {
                captures[path] = try CapturedResources(capture: path)
            } catch {
                throw .setup("--map '\(rule.text)': \(error)")
            }
        }
        self.captures = captures
    }

    /// The rule that answers this request: the first that fires (every rule whose keys match is
    /// counted, for `nth=`); nil when none does, and the request goes to its origin.
    public func firing(host: String, path: String, method: String, hasRange: Bool) -> MapRule? {
        counter.firing(host: host, path: path, method: method, hasRange: hasRange).first.map { rules[$0] }
    }
}
