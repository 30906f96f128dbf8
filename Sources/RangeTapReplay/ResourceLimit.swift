/// How large a resource replay and serve handle. A capture faithfully records whatever an
/// origin claims (`Content-Range: bytes 0-1/9223372036854775807`), but bytes at such offsets
/// cannot go into a cache file or be counted without overflow: those resources are refused
/// with a message, never trapped on.
enum ResourceLimit {
    /// 2⁵³ bytes (8 PiB): beyond the largest file a cache can hold, and the largest integer a
    /// `Double` holds exactly.
    static let largestLength: Int64 = 1 << 53

    /// Why a resource whose complete length is `length` cannot be handled, or nil when it can.
    static func problem(length: Int64) -> String? {
        guard length > largestLength else { return nil }
        return "its length is \(length) bytes, more than the \(largestLength) rangetap handles"
    }

    /// Why `size` bytes at resource offset `offset` cannot be handled, or nil when they can.
    static func problem(offset: Int64, size: Int64) -> String? {
        guard let end = offset.addingChecked(size) else {
            return "\(size) bytes at offset \(offset) end past \(Int64.max), the largest offset there is"
        }
        guard end > largestLength else { return nil }
        return "\(size) bytes at offset \(offset) end past \(largestLength), the largest offset rangetap handles"
    }
}
