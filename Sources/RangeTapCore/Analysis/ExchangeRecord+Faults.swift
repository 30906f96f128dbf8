extension ExchangeRecord {
    /// The `--fault` rules injected into this exchange, as the user wrote them, each once in the
    /// order they first fired; nil when none was (findings about it are then the origin's or the
    /// client's as usual).
    public var faultRules: [String]? {
        guard !faults.isEmpty else { return nil }
        var rules: [String] = []
        for f in faults where !rules.contains(f.rule) { rules.append(f.rule) }
        return rules
    }

    /// The `--map` rule that answered this exchange instead of its origin (its `fault` event of
    /// action `map`); nil when the origin answered.
    public var mapRule: String? { faults.first { $0.action == "map" }?.rule }

    /// Whether a `--map` rule answered this exchange: its body bytes are served, not received.
    var isMapped: Bool { faults.contains { $0.action == "map" } }

    /// Whether a fault rewrote the response head on its way to the client
    /// (``clientResponseLines`` then differs from ``responseLines``).
    public var clientHeadRewritten: Bool { faults.contains { $0.lines != nil } }

    /// The status the client got: the code in the first line of ``clientResponseLines``, else
    /// the origin's ``status``.
    public var clientStatus: Int? {
        guard clientHeadRewritten, let first = clientResponseLines.first else { return status }
        let parts = first.content.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: true)
        guard parts.count >= 2, parts[0].uppercased().hasPrefix("HTTP/"), let code = Int(parts[1]),
            (0...999).contains(code)
        else { return status }
        return code
    }
}
