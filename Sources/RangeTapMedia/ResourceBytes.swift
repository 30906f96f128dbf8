import RangeTapCore

/// The bytes of one resource as far as a capture holds them: chunks of its responses placed at
/// their offset in the resource. Reads answer nil where any byte was not captured.
public protocol ResourceBytes {
    /// Complete length of the resource, when a response said it.
    var length: Int64? { get }
    /// The bytes of `range`, or nil when the capture lacks any of them.
    func bytes(_ range: Range<Int64>) -> [UInt8]?
}

/// Resource bytes held in memory, for tests and for small resources.
public struct InMemoryResourceBytes: ResourceBytes, Sendable {
    /// The whole resource.
    public var data: [UInt8]
    /// Creates it from the whole resource.
    public init(_ data: [UInt8]) { self.data = data }
    /// Length of `data`.
    public var length: Int64? { Int64(data.count) }
    /// The bytes of `range`, nil when it runs past the end.
    public func bytes(_ range: Range<Int64>) -> [UInt8]? {
        guard range.lowerBound >= 0, range.upperBound <= Int64(data.count) else { return nil }
        return Array(data[Int(range.lowerBound)..<Int(range.upperBound)])
    }
}
