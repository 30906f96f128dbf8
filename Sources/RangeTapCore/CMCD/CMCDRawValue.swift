/// A CMCD payload as the request carried it: the query parameter's value (percent-decoded) or
/// a header's value, before parsing.
public struct CMCDRawValue: Sendable, Hashable, Encodable {
    /// Where it was.
    public var source: CMCDSource
    /// The payload (`bl=21300,mtp=48100`).
    public var value: String

    /// Creates a raw payload.
    public init(source: CMCDSource, value: String) {
        self.source = source
        self.value = value
    }

    /// The evidence line: `CMCD-Request: bl=21300` or `?CMCD=bl=21300` (decoded).
    public var line: String { source == .query ? "?CMCD=\(value)" : "\(source.rawValue): \(value)" }
}
