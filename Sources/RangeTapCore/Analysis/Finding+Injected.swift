extension [Finding] {
    /// Marks every finding as injected by `rules` (the `--fault` rules of the exchange they are
    /// about); leaves them alone when `rules` is nil.
    mutating func markInjected(by rules: [String]?) {
        guard let rules else { return }
        for i in indices { self[i].rules = rules }
    }

    /// Marks each finding about an exchange in `rulesByExchange` as injected by its rules.
    mutating func markInjected(in rulesByExchange: [Int: [String]]) {
        for i in indices {
            guard let ex = self[i].exchange, let rules = rulesByExchange[ex] else { continue }
            self[i].rules = rules
        }
    }
}
