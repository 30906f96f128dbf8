/// What ``RangeAnswerPlanner`` needs to know of a representation: its length, which of its
/// bytes the source holds (all of a file; what a capture recorded), and its validators.
public struct RangeRepresentation: Sendable {
    /// How messages name it (its path, a file).
    public var name: String
    /// Complete length, when known.
    public var length: Int64?
    /// The offsets the source can send.
    public var covered: ByteRangeSet
    /// Content-Type; `application/octet-stream` when nil.
    public var contentType: String?
    /// ETag, as sent (`"…"` or `W/"…"`).
    public var etag: String?
    /// Last-Modified, as sent (an HTTP-date).
    public var lastModified: String?

    /// A representation.
    public init(
        name: String, length: Int64?, covered: ByteRangeSet, contentType: String? = nil, etag: String? = nil,
        lastModified: String? = nil
    ) {
        self.name = name
        self.length = length
        self.covered = covered
        self.contentType = contentType
        self.etag = etag
        self.lastModified = lastModified
    }

    /// Whether every byte is there.
    public var isComplete: Bool {
        guard let length else { return false }
        return covered.contains(0..<length)
    }
}
