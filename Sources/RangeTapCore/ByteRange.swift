/// An inclusive, satisfiable span of bytes `first...last` within a resource, as HTTP writes it.
public struct ByteRange: Sendable, Hashable, Codable, CustomStringConvertible {
    /// Offset of the first byte.
    public var first: Int64
    /// Offset of the last byte (inclusive, as in `bytes=0-1`, which is two bytes).
    public var last: Int64

    /// A range from `first` to `last` inclusive; `last` must not be below `first`.
    public init(first: Int64, last: Int64) {
        precondition(first >= 0 && last >= first, "invalid byte range \(first)-\(last)")
        self.first = first
        self.last = last
    }

    /// Number of bytes in the range; `Int64.max` for `0-9223372036854775807`, whose true
    /// count (2⁶³) does not fit.
    public var count: Int64 { (last - first).addingSaturating(1) }

    /// The half-open end, `last + 1`; `Int64.max` when `last` is `Int64.max` (that last byte
    /// cannot be named by a half-open `Range<Int64>`, and no capture can hold it).
    public var upperBound: Int64 { last.addingSaturating(1) }

    /// `first-last`, the form used in Range and Content-Range headers.
    public var description: String { "\(first)-\(last)" }
}
