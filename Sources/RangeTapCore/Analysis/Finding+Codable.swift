/// The JSON form of a finding (`docs/inspect-json.md`): `injected` and `rules` are present only
/// for a finding about an exchange a `--fault` rule was injected into, so captures without
/// faults encode exactly as before.
extension Finding: Codable {
    private enum CodingKeys: String, CodingKey {
        case code, severity, message, evidence, exchange, injected, rules
    }

    /// Decodes a finding; `injected` is implied by `rules`.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        code = try c.decode(String.self, forKey: .code)
        severity = try c.decode(Severity.self, forKey: .severity)
        message = try c.decode(String.self, forKey: .message)
        evidence = try c.decode([String].self, forKey: .evidence)
        exchange = try c.decodeIfPresent(Int.self, forKey: .exchange)
        rules = try c.decodeIfPresent([String].self, forKey: .rules)
    }

    /// Encodes the finding; `injected` and `rules` only when a fault was injected.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(code, forKey: .code)
        try c.encode(severity, forKey: .severity)
        try c.encode(message, forKey: .message)
        try c.encode(evidence, forKey: .evidence)
        try c.encodeIfPresent(exchange, forKey: .exchange)
        if let rules {
            try c.encode(true, forKey: .injected)
            try c.encode(rules, forKey: .rules)
        }
    }
}
