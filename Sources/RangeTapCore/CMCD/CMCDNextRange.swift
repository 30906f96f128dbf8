/// The next range a player announced (`nrr`, CTA-5004: `"first-last"`, inclusive; either end
/// may be missing, not both).
public struct CMCDNextRange: Sendable, Hashable {
    /// The first byte, when given.
    public var first: Int64?
    /// The last byte, when given.
    public var last: Int64?

    /// Reads `12323-48763`, `12323-` or `-500`; nil for anything else.
    public init?(_ text: String) {
        let parts = text.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2, !(parts[0].isEmpty && parts[1].isEmpty),
            parts.allSatisfy({ $0.allSatisfy(\.isASCIIDigitCharacter) })
        else { return nil }
        first = parts[0].isEmpty ? nil : Int64(parts[0])
        last = parts[1].isEmpty ? nil : Int64(parts[1])
        if !parts[0].isEmpty, first == nil { return nil }
        if !parts[1].isEmpty, last == nil { return nil }
        if let first, let last, first > last { return nil }
    }
}
