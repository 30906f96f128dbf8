import RangeTapCore

/// Reading MP4 (ISO BMFF) box headers: the size and four-character type every box starts
/// with, and the walk over the boxes at the top of a resource.
///
/// Only headers are read here; ``MP4Index`` reads the payloads of the boxes it needs.
public enum MP4Box {
    /// The header of one box: its type and the bytes it occupies.
    public struct Header: Sendable, Equatable {
        /// The four-character type, e.g. `moov`; bytes outside printable ASCII are shown as `?`.
        public var type: String
        /// The bytes of the resource the box occupies, header included. A box whose size field
        /// is 0 (runs to the end) ends at the resource's length, or at `Int64.max` when the
        /// length is unknown.
        public var range: Range<Int64>
        /// Bytes of the header: 8, or 16 with a 64-bit `largesize`.
        public var headerSize: Int

        /// Creates a header.
        public init(type: String, range: Range<Int64>, headerSize: Int) {
            self.type = type
            self.range = range
            self.headerSize = headerSize
        }

        /// The bytes after the header.
        public var payload: Range<Int64> {
            min(range.lowerBound + Int64(headerSize), range.upperBound)..<range.upperBound
        }
    }

    /// Most top-level boxes ``topLevel(of:)`` lists before it gives up (a fragmented MP4 of ten
    /// hours in one-second fragments has 72,000).
    public static let maximumTopLevelCount = 1_000_000

    /// The text of a four-character code.
    static func typeName(_ code: UInt32) -> String {
        var s = ""
        for shift in stride(from: 24, through: 0, by: -8) {
            let b = UInt8(truncatingIfNeeded: code >> UInt32(shift))
            s.unicodeScalars.append(b >= 0x20 && b < 0x7F ? Unicode.Scalar(b) : "?")
        }
        return s
    }

    /// Reads the header of the box starting at `bytes[index]`, which is resource offset
    /// `position`; `limit` is the end of what holds the box (its parent or the resource), nil
    /// when unknown.
    ///
    /// Returns nil when `bytes` ends before the header does (fewer than 8 bytes, or fewer than
    /// 16 for a 64-bit size). Throws when the size is smaller than the header or the box ends
    /// past `limit`.
    public static func header(
        in bytes: [UInt8], at index: Int, position: Int64, limit: Int64?
    ) throws(MP4Error) -> Header? {
        guard index >= 0, bytes.count - index >= 8 else { return nil }
        var r = MP4ByteReader(bytes, from: index, to: bytes.count, box: "", boxOffset: position)
        let size32 = try r.u32()
        let type = try r.fourcc()
        var size = UInt64(size32)
        var headerSize = 8
        switch size32 {
        case 0:
            return Header(type: type, range: position..<max(position.addingSaturating(8), limit ?? .max), headerSize: 8)
        case 1:
            guard r.remaining >= 8 else { return nil }
            size = try r.u64()
            headerSize = 16
            guard size >= 16 else { throw .largeSizeTooSmall(box: type, offset: position, size: size) }
        default:
            guard size >= 8 else { throw .boxTooSmall(box: type, offset: position, size: size) }
        }
        let limitOrMax = limit ?? .max
        guard let size64 = Int64(exactly: size), let end = position.addingChecked(size64), end <= limitOrMax else {
            let end = Int64(exactly: size).flatMap { position.addingChecked($0) } ?? .max
            throw .pastEnd(box: type, offset: position, end: end, limit: limitOrMax)
        }
        return Header(type: type, range: position..<end, headerSize: headerSize)
    }

    /// The version and flags a full box starts its payload with, read from `bytes[index...]`;
    /// nil when fewer than 4 bytes are there.
    public static func versionAndFlags(in bytes: [UInt8], at index: Int) -> (version: UInt8, flags: UInt32)? {
        guard index >= 0, bytes.count - index >= 4 else { return nil }
        return (bytes[index], UInt32(bytes[index + 1]) << 16 | UInt32(bytes[index + 2]) << 8 | UInt32(bytes[index + 3]))
    }

    /// The boxes at the top level of `source`, reading only their headers (16 bytes at each
    /// box start, fewer at the end of the resource).
    ///
    /// The walk stops cleanly where the capture lacks the bytes of a header or where the
    /// resource's length is reached; it throws for a malformed header (see
    /// ``header(in:at:position:limit:)``) and when more than ``maximumTopLevelCount`` boxes
    /// are found.
    public static func topLevel(of source: some ResourceBytes) throws(MP4Error) -> [Header] {
        let length = source.length
        var headers: [Header] = []
        var position: Int64 = 0
        while length.map({ position < $0 }) ?? true {
            let want = length.map { min(16, $0 - position) } ?? 16
            guard let end = position.addingChecked(want),
                let bytes = source.bytes(position..<end) ?? (want > 8 ? source.bytes(position..<(position + 8)) : nil)
            else { break }
            guard let h = try header(in: bytes, at: 0, position: position, limit: length) else { break }
            guard headers.count < maximumTopLevelCount else {
                throw .countTooLarge(
                    box: h.type, offset: position, count: UInt64(headers.count) + 1, fits: maximumTopLevelCount)
            }
            headers.append(h)
            // A box of size 0 runs to the end, wherever that is.
            guard h.range.upperBound < .max else { break }
            position = h.range.upperBound
        }
        return headers
    }

    /// The boxes inside `parent`, whose bytes lie in `bytes` with byte 0 at resource offset
    /// `base`. Throws when a child runs past the parent's end; a tail too short for a header
    /// (under 8 bytes) is ignored.
    static func children(of parent: Header, in bytes: [UInt8], base: Int64) throws(MP4Error) -> [Header] {
        var result: [Header] = []
        var position = parent.payload.lowerBound
        let end = parent.range.upperBound
        while position < end {
            let index = Int(clamping: position - base)
            let available = Int(clamping: end - position)
            guard available >= 8, index + 8 <= bytes.count else { break }
            let window = Array(bytes[index..<min(bytes.count, index + min(16, available))])
            guard let h = try header(in: window, at: 0, position: position, limit: end) else { break }
            result.append(h)
            position = h.range.upperBound
        }
        return result
    }
}
