import Foundation

extension CaptureDiff {
    /// The JSON form (docs/diff.md): pretty-printed, keys sorted, unknown figures as `null`.
    public func encoded() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(self)
    }
}
