import RangeTapCore

/// Reads the tracks of a `moov` box: `mvhd`, and per `trak` its `tkhd`, `edts/elst`,
/// `mdia/mdhd`, `mdia/hdlr` and `mdia/minf/stbl`; and `mvex/trex` defaults for fragments.
enum MP4MovieReader {
    /// The tracks of the `moov` whose bytes (header included) are `bytes`, taking their sample
    /// counts out of `budget`.
    static func tracks(moov: MP4Box.Header, bytes: [UInt8], budget: inout Int) throws(MP4Error) -> [MP4TrackBuilder] {
        let base = moov.range.lowerBound
        let boxes = try MP4Box.children(of: moov, in: bytes, base: base)
        var movieTimescale: UInt32 = 0
        if let mvhd = boxes.first(where: { $0.type == "mvhd" }) {
            var r = MP4ByteReader(bytes, base: base, header: mvhd)
            let (version, _) = try r.versionAndFlags()
            try r.discard(version == 1 ? 16 : 8)
            movieTimescale = try r.u32()
        }
        var tracks: [MP4TrackBuilder] = []
        for trak in boxes where trak.type == "trak" {
            if let track = try self.track(
                trak, bytes: bytes, base: base, movieTimescale: movieTimescale, budget: &budget)
            {
                tracks.append(track)
            }
        }
        if let mvex = boxes.first(where: { $0.type == "mvex" }) {
            for trex in try MP4Box.children(of: mvex, in: bytes, base: base) where trex.type == "trex" {
                var r = MP4ByteReader(bytes, base: base, header: trex)
                _ = try r.versionAndFlags()
                let id = try r.u32()
                try r.discard(4)
                let duration = try r.u32()
                let size = try r.u32()
                for i in tracks.indices where tracks[i].id == id {
                    tracks[i].defaultDuration = duration
                    tracks[i].defaultSize = size
                }
            }
        }
        return tracks
    }

    /// One `trak`; nil when it has no `mdia` (nothing to time samples with).
    private static func track(
        _ trak: MP4Box.Header, bytes: [UInt8], base: Int64, movieTimescale: UInt32, budget: inout Int
    ) throws(MP4Error) -> MP4TrackBuilder? {
        let boxes = try MP4Box.children(of: trak, in: bytes, base: base)
        guard let mdia = boxes.first(where: { $0.type == "mdia" }) else { return nil }
        var track = MP4TrackBuilder()
        if let tkhd = boxes.first(where: { $0.type == "tkhd" }) {
            var r = MP4ByteReader(bytes, base: base, header: tkhd)
            let (version, _) = try r.versionAndFlags()
            try r.discard(version == 1 ? 16 : 8)
            track.id = try r.u32()
        }
        let media = try MP4Box.children(of: mdia, in: bytes, base: base)
        if let mdhd = media.first(where: { $0.type == "mdhd" }) {
            var r = MP4ByteReader(bytes, base: base, header: mdhd)
            let (version, _) = try r.versionAndFlags()
            try r.discard(version == 1 ? 16 : 8)
            track.timescale = try r.u32()
        }
        guard track.timescale > 0 else {
            throw .inconsistent(
                box: "mdhd", offset: mdia.range.lowerBound,
                reason: "track \(track.id) has no media timescale (missing 'mdhd' or timescale 0)")
        }
        if let hdlr = media.first(where: { $0.type == "hdlr" }) {
            var r = MP4ByteReader(bytes, base: base, header: hdlr)
            _ = try r.versionAndFlags()
            try r.discard(4)
            track.handler = try r.fourcc()
        }
        if let edts = boxes.first(where: { $0.type == "edts" }),
            let elst = try MP4Box.children(of: edts, in: bytes, base: base).first(where: { $0.type == "elst" })
        {
            try applyEditList(elst, bytes: bytes, base: base, movieTimescale: movieTimescale, to: &track)
        }
        if let minf = media.first(where: { $0.type == "minf" }),
            let stbl = try MP4Box.children(of: minf, in: bytes, base: base).first(where: { $0.type == "stbl" })
        {
            try MP4SampleTable.read(stbl: stbl, bytes: bytes, base: base, into: &track, budget: &budget)
        }
        return track
    }

    /// `elst`: only the start is applied. A leading empty edit (`media_time` -1) delays the
    /// track by its duration; the first media edit's `media_time` is subtracted from every
    /// presentation time, so presentation starts at 0 where that edit starts, as players and
    /// ffprobe show it. Later edits (cuts, repeats, rate changes) are not applied.
    private static func applyEditList(
        _ elst: MP4Box.Header, bytes: [UInt8], base: Int64, movieTimescale: UInt32, to track: inout MP4TrackBuilder
    ) throws(MP4Error) {
        var r = MP4ByteReader(bytes, base: base, header: elst)
        let (version, _) = try r.versionAndFlags()
        let count = try r.u32()
        try r.checkCount(UInt64(count), entrySize: version == 1 ? 20 : 12)
        var empty: UInt64 = 0
        for _ in 0..<min(count, 2) {
            let duration: UInt64
            let mediaTime: Int64
            if version == 1 {
                duration = try r.u64()
                mediaTime = Int64(bitPattern: try r.u64())
            } else {
                duration = UInt64(try r.u32())
                mediaTime = Int64(Int32(bitPattern: try r.u32()))
            }
            try r.discard(4)
            if mediaTime == -1 {
                empty = duration
                continue
            }
            track.applyEdit(emptyDuration: empty, mediaTime: max(0, mediaTime), movieTimescale: movieTimescale)
            return
        }
        track.applyEdit(emptyDuration: empty, mediaTime: 0, movieTimescale: movieTimescale)
    }
}
