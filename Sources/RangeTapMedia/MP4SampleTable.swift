import RangeTapCore

/// Expands the sample tables of one `stbl` (`stsz`/`stz2`, `stsc`, `stco`/`co64`, `stts`,
/// `ctts`) into samples with file offsets and times.
///
/// Every table's entry count is checked against the bytes of its box before anything is
/// allocated; a constant sample size (`stsz` with `sample_size` > 0, no table) is checked
/// against the reader's sample budget instead.
enum MP4SampleTable {
    /// Appends the samples of `stbl` (whose bytes lie in `bytes`, byte 0 at resource offset
    /// `base`) to `track`, taking their count out of `budget`.
    static func read(
        stbl: MP4Box.Header, bytes: [UInt8], base: Int64, into track: inout MP4TrackBuilder, budget: inout Int
    ) throws(MP4Error) {
        let boxes = try MP4Box.children(of: stbl, in: bytes, base: base)
        func find(_ type: String) -> MP4Box.Header? { boxes.first { $0.type == type } }
        let sizes: [UInt32]
        if let stsz = find("stsz") {
            sizes = try sampleSizes(stsz, bytes: bytes, base: base, budget: budget)
        } else if let stz2 = find("stz2") {
            sizes = try compactSampleSizes(stz2, bytes: bytes, base: base, budget: budget)
        } else {
            return
        }
        guard !sizes.isEmpty else { return }
        guard let stsc = find("stsc") else {
            throw .inconsistent(
                box: stbl.type, offset: stbl.range.lowerBound,
                reason: "it lists \(sizes.count) samples but has no 'stsc' box placing them in chunks")
        }
        guard let chunkBox = find("stco") ?? find("co64") else {
            throw .inconsistent(
                box: stbl.type, offset: stbl.range.lowerBound,
                reason: "it lists \(sizes.count) samples but has no 'stco' or 'co64' box of chunk offsets")
        }
        let chunks = try chunkOffsets(chunkBox, bytes: bytes, base: base)
        let offsets = try place(sizes: sizes, chunks: chunks, stsc: stsc, bytes: bytes, base: base)
        var durations = Array(repeating: UInt32(0), count: sizes.count)
        if let stts = find("stts") { durations = try timeToSample(stts, bytes: bytes, base: base, count: sizes.count) }
        var compositionOffsets: [Int32]?
        if let ctts = find("ctts") {
            compositionOffsets = try self.compositionOffsets(ctts, bytes: bytes, base: base, count: sizes.count)
        }

        track.reserve(sizes.count)
        var decode = track.nextDecodeTime
        for i in sizes.indices {
            track.append(
                offset: offsets[i], size: sizes[i], decodeTime: decode, compositionOffset: compositionOffsets?[i] ?? 0,
                duration: durations[i])
            decode = decode.addingSaturating(Int64(durations[i]))
        }
        track.nextDecodeTime = decode
        budget -= sizes.count
    }

    /// `stsz`: one size per sample, or one size for all.
    private static func sampleSizes(
        _ h: MP4Box.Header, bytes: [UInt8], base: Int64, budget: Int
    ) throws(MP4Error) -> [UInt32] {
        var r = MP4ByteReader(bytes, base: base, header: h)
        _ = try r.versionAndFlags()
        let constant = try r.u32()
        let count = try r.u32()
        guard UInt64(count) <= UInt64(budget) else {
            throw .countTooLarge(box: h.type, offset: h.range.lowerBound, count: UInt64(count), fits: budget)
        }
        if constant != 0 { return Array(repeating: constant, count: Int(count)) }
        try r.checkCount(UInt64(count), entrySize: 4)
        var sizes: [UInt32] = []
        sizes.reserveCapacity(Int(count))
        for _ in 0..<count { sizes.append(try r.u32()) }
        return sizes
    }

    /// `stz2`: sizes packed in 4, 8 or 16 bits.
    private static func compactSampleSizes(
        _ h: MP4Box.Header, bytes: [UInt8], base: Int64, budget: Int
    ) throws(MP4Error) -> [UInt32] {
        var r = MP4ByteReader(bytes, base: base, header: h)
        _ = try r.versionAndFlags()
        try r.discard(3)
        let field = Int(try r.u8())
        let count = try r.u32()
        guard field == 4 || field == 8 || field == 16 else {
            throw r.inconsistent("field_size is \(field); only 4, 8 and 16 are defined")
        }
        let neededBytes = (UInt64(count) * UInt64(field) + 7) / 8
        guard neededBytes <= UInt64(r.remaining), UInt64(count) <= UInt64(budget) else {
            throw .countTooLarge(
                box: h.type, offset: h.range.lowerBound, count: UInt64(count),
                fits: min(budget, r.remaining * 8 / field))
        }
        var sizes: [UInt32] = []
        sizes.reserveCapacity(Int(count))
        var i: UInt32 = 0
        while i < count {
            switch field {
            case 4:
                let b = try r.u8()
                sizes.append(UInt32(b >> 4))
                if i + 1 < count { sizes.append(UInt32(b & 0x0F)) }
                i += 2
            case 8:
                sizes.append(UInt32(try r.u8()))
                i += 1
            default:
                sizes.append(UInt32(try r.u16()))
                i += 1
            }
        }
        return sizes
    }

    /// `stco` or `co64`: the offset of each chunk.
    private static func chunkOffsets(_ h: MP4Box.Header, bytes: [UInt8], base: Int64) throws(MP4Error) -> [Int64] {
        var r = MP4ByteReader(bytes, base: base, header: h)
        _ = try r.versionAndFlags()
        let count = try r.u32()
        let wide = h.type == "co64"
        try r.checkCount(UInt64(count), entrySize: wide ? 8 : 4)
        var offsets: [Int64] = []
        offsets.reserveCapacity(Int(count))
        for _ in 0..<count {
            offsets.append(wide ? try r.u64AsInt64("a chunk offset") : Int64(try r.u32()))
        }
        return offsets
    }

    /// `stsc`: gives each sample the offset of its chunk plus the sizes of the samples before
    /// it in that chunk.
    private static func place(
        sizes: [UInt32], chunks: [Int64], stsc h: MP4Box.Header, bytes: [UInt8], base: Int64
    ) throws(MP4Error) -> [Int64] {
        var r = MP4ByteReader(bytes, base: base, header: h)
        _ = try r.versionAndFlags()
        let count = try r.u32()
        try r.checkCount(UInt64(count), entrySize: 12)
        var runs: [(firstChunk: UInt32, perChunk: UInt32)] = []
        runs.reserveCapacity(Int(count))
        for _ in 0..<count {
            let first = try r.u32()
            let perChunk = try r.u32()
            try r.discard(4)
            guard first >= 1, first > (runs.last?.firstChunk ?? 0) else {
                throw r.inconsistent(
                    "first_chunk values must start at 1 and increase, found \(first) after \(runs.last?.firstChunk ?? 0)"
                )
            }
            runs.append((first, perChunk))
        }
        var offsets: [Int64] = []
        offsets.reserveCapacity(sizes.count)
        var sample = 0
        placing: for (k, run) in runs.enumerated() {
            let firstChunk = Int(run.firstChunk) - 1
            let endChunk = k + 1 < runs.count ? min(Int(runs[k + 1].firstChunk) - 1, chunks.count) : chunks.count
            guard firstChunk < endChunk else { continue }
            for chunk in firstChunk..<endChunk {
                var offset = chunks[chunk]
                var n: UInt32 = 0
                while n < run.perChunk {
                    guard sample < sizes.count else { break placing }
                    offsets.append(offset)
                    guard let next = offset.addingChecked(Int64(sizes[sample])) else {
                        throw r.inconsistent("sample \(sample + 1) runs past the largest file offset")
                    }
                    offset = next
                    sample += 1
                    n += 1
                }
            }
        }
        guard sample == sizes.count else {
            throw r.inconsistent("its chunks hold \(sample) samples but the sample size table lists \(sizes.count)")
        }
        return offsets
    }

    /// `stts`: the duration of each sample. Samples past the table's end take its last delta.
    private static func timeToSample(
        _ h: MP4Box.Header, bytes: [UInt8], base: Int64, count: Int
    ) throws(MP4Error) -> [UInt32] {
        var r = MP4ByteReader(bytes, base: base, header: h)
        _ = try r.versionAndFlags()
        let entries = try r.u32()
        try r.checkCount(UInt64(entries), entrySize: 8)
        var durations: [UInt32] = []
        durations.reserveCapacity(count)
        var last: UInt32 = 0
        for _ in 0..<entries where durations.count < count {
            let n = Int(try r.u32())
            last = try r.u32()
            durations.append(contentsOf: repeatElement(last, count: min(n, count - durations.count)))
        }
        if durations.count < count { durations.append(contentsOf: repeatElement(last, count: count - durations.count)) }
        return durations
    }

    /// `ctts`: the composition offset of each sample (read as signed, as players do for both
    /// versions). Samples past the table's end get 0.
    private static func compositionOffsets(
        _ h: MP4Box.Header, bytes: [UInt8], base: Int64, count: Int
    ) throws(MP4Error) -> [Int32] {
        var r = MP4ByteReader(bytes, base: base, header: h)
        _ = try r.versionAndFlags()
        let entries = try r.u32()
        try r.checkCount(UInt64(entries), entrySize: 8)
        var offsets: [Int32] = []
        offsets.reserveCapacity(count)
        for _ in 0..<entries where offsets.count < count {
            let n = Int(try r.u32())
            let value = Int32(bitPattern: try r.u32())
            offsets.append(contentsOf: repeatElement(value, count: min(n, count - offsets.count)))
        }
        if offsets.count < count { offsets.append(contentsOf: repeatElement(0, count: count - offsets.count)) }
        return offsets
    }
}
