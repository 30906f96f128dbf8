import RangeTapCore

/// Reads the samples of one `moof` (movie fragment): per `traf` its `tfhd` defaults and base
/// data offset, `tfdt` decode time and `trun` sample runs.
enum MP4FragmentReader {
    /// Appends the samples of the `moof` whose bytes (header included) are `bytes` to the
    /// tracks they belong to; fragments of tracks the `moov` does not list are passed over.
    static func read(
        moof: MP4Box.Header, bytes: [UInt8], tracks: inout [MP4TrackBuilder], budget: inout Int
    ) throws(MP4Error) {
        let base = moof.range.lowerBound
        var previousDataEnd: Int64?
        for traf in try MP4Box.children(of: moof, in: bytes, base: base) where traf.type == "traf" {
            let boxes = try MP4Box.children(of: traf, in: bytes, base: base)
            guard let tfhd = boxes.first(where: { $0.type == "tfhd" }) else {
                throw .inconsistent(
                    box: traf.type, offset: traf.range.lowerBound, reason: "a track fragment has no 'tfhd' header")
            }
            var r = MP4ByteReader(bytes, base: base, header: tfhd)
            let (_, flags) = try r.versionAndFlags()
            let id = try r.u32()
            guard let t = tracks.firstIndex(where: { $0.id == id }) else { continue }
            var dataBase: Int64
            if flags & 0x01 != 0 {
                dataBase = try r.u64AsInt64("base_data_offset")
            } else if flags & 0x02_0000 != 0 {
                dataBase = moof.range.lowerBound
            } else {
                dataBase = previousDataEnd ?? moof.range.lowerBound
            }
            if flags & 0x02 != 0 { try r.discard(4) }
            let defaultDuration = flags & 0x08 != 0 ? try r.u32() : tracks[t].defaultDuration
            let defaultSize = flags & 0x10 != 0 ? try r.u32() : tracks[t].defaultSize
            if let tfdt = boxes.first(where: { $0.type == "tfdt" }) {
                var d = MP4ByteReader(bytes, base: base, header: tfdt)
                let (version, _) = try d.versionAndFlags()
                tracks[t].nextDecodeTime = version == 1 ? try d.u64AsInt64("baseMediaDecodeTime") : Int64(try d.u32())
            }
            for trun in boxes where trun.type == "trun" {
                dataBase = try readRun(
                    trun, bytes: bytes, base: base, dataStart: dataBase, defaultDuration: defaultDuration,
                    defaultSize: defaultSize, track: &tracks[t], budget: &budget)
                previousDataEnd = dataBase
            }
        }
    }

    /// One `trun`; returns where its data ends (the next run's data starts there when it gives
    /// no `data_offset`).
    private static func readRun(
        _ trun: MP4Box.Header, bytes: [UInt8], base: Int64, dataStart: Int64, defaultDuration: UInt32,
        defaultSize: UInt32, track: inout MP4TrackBuilder, budget: inout Int
    ) throws(MP4Error) -> Int64 {
        var r = MP4ByteReader(bytes, base: base, header: trun)
        let (_, flags) = try r.versionAndFlags()
        let count = try r.u32()
        var offset = dataStart
        if flags & 0x01 != 0 {
            let dataOffset = Int64(Int32(bitPattern: try r.u32()))
            guard let o = dataStart.addingChecked(dataOffset), o >= 0 else {
                throw r.inconsistent("data_offset \(dataOffset) from base \(dataStart) points outside the file")
            }
            offset = o
        }
        if flags & 0x04 != 0 { try r.discard(4) }
        let hasDuration = flags & 0x100 != 0, hasSize = flags & 0x200 != 0
        let hasFlags = flags & 0x400 != 0, hasComposition = flags & 0x800 != 0
        let perSample = 4 * [hasDuration, hasSize, hasFlags, hasComposition].filter { $0 }.count
        guard UInt64(count) <= UInt64(budget) else {
            throw .countTooLarge(box: trun.type, offset: trun.range.lowerBound, count: UInt64(count), fits: budget)
        }
        try r.checkCount(UInt64(count), entrySize: perSample)
        track.reserve(Int(count))
        var decode = track.nextDecodeTime
        for _ in 0..<count {
            let duration = hasDuration ? try r.u32() : defaultDuration
            let size = hasSize ? try r.u32() : defaultSize
            if hasFlags { try r.discard(4) }
            let composition = hasComposition ? Int32(bitPattern: try r.u32()) : 0
            track.append(
                offset: offset, size: size, decodeTime: decode, compositionOffset: composition, duration: duration)
            guard let next = offset.addingChecked(Int64(size)) else {
                throw r.inconsistent("a sample runs past the largest file offset")
            }
            offset = next
            decode = decode.addingSaturating(Int64(duration))
        }
        track.nextDecodeTime = decode
        budget -= Int(count)
        return offset
    }
}
