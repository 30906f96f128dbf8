/// One key of a request's CMCD, with its value and where it came from.
public struct CMCDEntry: Sendable, Hashable, Encodable {
    /// The key (`bl`, `com.example-x`).
    public var key: String
    /// Its value.
    public var value: CMCDValue
    /// The query parameter or header it was in.
    public var source: CMCDSource

    /// Creates an entry.
    public init(key: String, value: CMCDValue, source: CMCDSource) {
        self.key = key
        self.value = value
        self.source = source
    }

    /// `key=value` as CMCD writes it; a true boolean as the key alone.
    public var text: String { value == .boolean(true) ? key : "\(key)=\(value)" }
}
