/// One value of a CMCD key (CTA-5004 §3.2), typed as the player wrote it.
public enum CMCDValue: Sendable, Hashable, Encodable, CustomStringConvertible {
    /// An integer (`bl=21300`).
    case integer(Int64)
    /// A decimal (`pr=1.08`).
    case decimal(Double)
    /// A quoted string (`sid="6e2f…"`), without its quotes and escapes.
    case string(String)
    /// A token (`ot=v`).
    case token(String)
    /// A boolean: a key alone (`su`) is true.
    case boolean(Bool)

    /// The value as CMCD writes it: `21300`, `1.08`, `"…"`, `v`, `true`/`false`.
    public var description: String {
        switch self {
        case .integer(let v): String(v)
        case .decimal(let v): String(v)
        case .string(let v):
            "\"" + v.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
        case .token(let v): v
        case .boolean(let v): v ? "true" : "false"
        }
    }

    /// The integer, when it is one.
    public var integer: Int64? { if case .integer(let v) = self { v } else { nil } }
    /// The text of a string or a token.
    public var text: String? {
        switch self {
        case .string(let v), .token(let v): v
        default: nil
        }
    }
    /// The boolean, when it is one.
    public var boolean: Bool? { if case .boolean(let v) = self { v } else { nil } }

    /// Encodes as the JSON number, string or boolean it is.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        switch self {
        case .integer(let v): try c.encode(v)
        case .decimal(let v): try c.encode(v)
        case .string(let v), .token(let v): try c.encode(v)
        case .boolean(let v): try c.encode(v)
        }
    }
}
