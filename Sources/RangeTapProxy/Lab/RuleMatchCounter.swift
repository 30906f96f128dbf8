import Synchronization

/// Which of a list of rules' matches fire for a request, each counted so that `nth=` picks one
/// request (thread-safe): shared by `--fault` and `--map` rules.
final class RuleMatchCounter: Sendable {
    private let matches: [FaultMatch]
    /// How many requests each match's keys have matched so far.
    private let counts: Mutex<[Int]>

    /// A counter over `matches`, none matched yet.
    init(_ matches: [FaultMatch]) {
        self.matches = matches
        counts = Mutex(Array(repeating: 0, count: matches.count))
    }

    /// The indices of the matches that fire for this request, in order: every match whose keys
    /// hold, counted; one with `nth` fires only on its nth match. Concurrent callers are counted
    /// one at a time, so exactly one request is the nth.
    func firing(host: String, path: String, method: String, hasRange: Bool) -> [Int] {
        let matching = matches.indices.filter {
            matches[$0].matches(host: host, path: path, method: method, hasRange: hasRange)
        }
        guard !matching.isEmpty else { return [] }
        return counts.withLock { counts in
            matching.filter { i in
                counts[i] += 1
                return matches[i].nth.map { $0 == counts[i] } ?? true
            }
        }
    }

    /// How many requests each match's keys have matched so far, in order.
    var matchCounts: [Int] { counts.withLock { $0 } }
}
