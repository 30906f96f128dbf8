import RangeTapCore
@testable import RangeTapMedia

/// Builds MP4 boxes byte by byte for the MP4 index tests: well-formed files too large to make
/// with ffmpeg quickly, and hostile ones.
enum MP4TestBoxes {
    /// `value` as 4 big-endian bytes.
    static func u32(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8(value >> 16 & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value & 0xFF)]
    }

    /// `value` as 8 big-endian bytes.
    static func u64(_ value: UInt64) -> [UInt8] {
        u32(UInt32(value >> 32)) + u32(UInt32(value & 0xFFFF_FFFF))
    }

    /// A box of `type` holding `payload`.
    static func box(_ type: String, _ payload: [UInt8]) -> [UInt8] {
        u32(UInt32(8 + payload.count)) + Array(type.utf8) + payload
    }

    /// A full box (version 0, flags 0) of `type` holding `payload`.
    static func fullBox(_ type: String, _ payload: [UInt8], version: UInt8 = 0, flags: UInt32 = 0) -> [UInt8] {
        box(type, [version] + u32(flags).dropFirst() + payload)
    }

    static let ftyp = box("ftyp", Array("isom".utf8) + u32(512) + Array("isomiso2".utf8))

    /// A `moov` with one video track (timescale `timescale`) whose `stbl` holds `tables`.
    static func moov(tables: [UInt8], timescale: UInt32 = 12800, extra: [UInt8] = []) -> [UInt8] {
        let mvhd = fullBox("mvhd", u32(0) + u32(0) + u32(1000) + u32(0) + [UInt8](repeating: 0, count: 80))
        let tkhd = fullBox("tkhd", u32(0) + u32(0) + u32(1) + [UInt8](repeating: 0, count: 68))
        let mdhd = fullBox("mdhd", u32(0) + u32(0) + u32(timescale) + u32(0) + u32(0))
        let hdlr = fullBox("hdlr", u32(0) + Array("vide".utf8) + [UInt8](repeating: 0, count: 13))
        let stbl = box("stbl", tables)
        let mdia = box("mdia", mdhd + hdlr + box("minf", stbl))
        return box("moov", mvhd + box("trak", tkhd + mdia) + extra)
    }

    /// `stts` with one run of `count` samples of `delta`.
    static func stts(count: UInt32, delta: UInt32) -> [UInt8] {
        fullBox("stts", u32(1) + u32(count) + u32(delta))
    }

    /// `stsz` listing `sizes`.
    static func stsz(_ sizes: [UInt32]) -> [UInt8] {
        var table: [UInt8] = []
        table.reserveCapacity(sizes.count * 4)
        for s in sizes { table += u32(s) }
        return fullBox("stsz", u32(0) + u32(UInt32(sizes.count)) + table)
    }

    /// `stsc` with one run of `perChunk` samples per chunk.
    static func stsc(perChunk: UInt32) -> [UInt8] {
        fullBox("stsc", u32(1) + u32(1) + u32(perChunk) + u32(1))
    }

    /// `co64` listing `offsets`.
    static func co64(_ offsets: [Int64]) -> [UInt8] {
        var table: [UInt8] = []
        table.reserveCapacity(offsets.count * 8)
        for o in offsets { table += u64(UInt64(o)) }
        return fullBox("co64", u32(UInt32(offsets.count)) + table)
    }
}

/// A resource of which only some pieces are captured: reads answer nil unless the whole range
/// lies in one piece.
struct SparseResourceBytes: ResourceBytes {
    /// The captured pieces: their offset and bytes.
    var pieces: [(offset: Int64, bytes: [UInt8])]
    /// The complete length, when known.
    var length: Int64?

    func bytes(_ range: Range<Int64>) -> [UInt8]? {
        for piece in pieces
        where range.lowerBound >= piece.offset && range.upperBound <= piece.offset + Int64(piece.bytes.count) {
            let from = Int(range.lowerBound - piece.offset)
            return Array(piece.bytes[from..<(from + range.count)])
        }
        return nil
    }

    /// `data` with the bytes of `hole` missing.
    init(_ data: [UInt8], hole: Range<Int64>, knownLength: Bool = true) {
        pieces = [(0, Array(data[0..<Int(hole.lowerBound)])), (hole.upperBound, Array(data[Int(hole.upperBound)...]))]
        length = knownLength ? Int64(data.count) : nil
    }

    /// The given pieces of a resource of `length` bytes.
    init(pieces: [(offset: Int64, bytes: [UInt8])], length: Int64?) {
        self.pieces = pieces
        self.length = length
    }
}
