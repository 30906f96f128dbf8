import RangeTapCore

/// A big-endian cursor over the payload of one box, for the box parsers. Every read checks
/// the bytes left and throws ``MP4Error/truncated(box:offset:needed:available:)`` naming the
/// box, so no field read can trap.
struct MP4ByteReader {
    /// The bytes holding the box.
    let bytes: [UInt8]
    /// Index of the next byte to read.
    private(set) var index: Int
    /// Index just past the last byte of the box's payload.
    let end: Int
    /// Index of the first byte of the payload, for the sizes errors report.
    private let start: Int
    /// The box, for errors.
    let box: String
    /// Where the box starts in the resource, for errors.
    let boxOffset: Int64

    /// A reader over `bytes[from..<to]` (clamped to the array), for box `box` at `boxOffset`.
    init(_ bytes: [UInt8], from: Int, to: Int, box: String, boxOffset: Int64) {
        self.bytes = bytes
        self.end = max(0, min(to, bytes.count))
        self.index = max(0, min(from, self.end))
        self.start = self.index
        self.box = box
        self.boxOffset = boxOffset
    }

    /// A reader over the payload of `header`, whose bytes lie in `bytes` with byte 0 at
    /// resource offset `base`.
    init(_ bytes: [UInt8], base: Int64, header: MP4Box.Header) {
        let from = header.range.lowerBound - base + Int64(header.headerSize)
        let to = header.range.upperBound - base
        self.init(
            bytes, from: Int(clamping: from), to: Int(clamping: to), box: header.type,
            boxOffset: header.range.lowerBound)
    }

    /// Bytes left to read.
    var remaining: Int { end - index }

    private mutating func take(_ n: Int) throws(MP4Error) -> Int {
        guard n <= remaining else {
            throw .truncated(box: box, offset: boxOffset, needed: index - start + n, available: end - start)
        }
        let at = index
        index += n
        return at
    }

    /// Passes over `n` bytes.
    mutating func discard(_ n: Int) throws(MP4Error) { _ = try take(n) }

    /// One byte.
    mutating func u8() throws(MP4Error) -> UInt8 { bytes[try take(1)] }

    /// A 16-bit unsigned integer.
    mutating func u16() throws(MP4Error) -> UInt16 {
        let i = try take(2)
        return UInt16(bytes[i]) << 8 | UInt16(bytes[i + 1])
    }

    /// A 32-bit unsigned integer.
    mutating func u32() throws(MP4Error) -> UInt32 {
        let i = try take(4)
        return UInt32(bytes[i]) << 24 | UInt32(bytes[i + 1]) << 16 | UInt32(bytes[i + 2]) << 8 | UInt32(bytes[i + 3])
    }

    /// A 64-bit unsigned integer.
    mutating func u64() throws(MP4Error) -> UInt64 {
        let high = UInt64(try u32())
        return high << 32 | UInt64(try u32())
    }

    /// A four-character code as text.
    mutating func fourcc() throws(MP4Error) -> String {
        MP4Box.typeName(try u32())
    }

    /// The version and flags that start a full box.
    mutating func versionAndFlags() throws(MP4Error) -> (version: UInt8, flags: UInt32) {
        let word = try u32()
        return (UInt8(word >> 24), word & 0x00FF_FFFF)
    }

    /// A 64-bit value as Int64, or an error naming `field` when it does not fit.
    mutating func u64AsInt64(_ field: String) throws(MP4Error) -> Int64 {
        let value = try u64()
        guard let v = Int64(exactly: value) else {
            throw .inconsistent(box: box, offset: boxOffset, reason: "\(field) \(value) does not fit in 63 bits")
        }
        return v
    }

    /// Checks that `count` entries of `entrySize` bytes fit in the bytes left, before any table
    /// of that size is allocated.
    func checkCount(_ count: UInt64, entrySize: Int) throws(MP4Error) {
        let fits = entrySize > 0 ? remaining / entrySize : Int.max
        guard count <= UInt64(fits) else {
            throw .countTooLarge(box: box, offset: boxOffset, count: count, fits: fits)
        }
    }

    /// An error about this box.
    func inconsistent(_ reason: String) -> MP4Error {
        .inconsistent(box: box, offset: boxOffset, reason: reason)
    }
}
