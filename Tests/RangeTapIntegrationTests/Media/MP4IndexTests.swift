import Foundation
import RangeTapCore
@testable import RangeTapMedia
import RangeTapTestSupport
import Testing

/// One video packet as ffprobe lists it.
struct FFprobePacket {
    var pts: Double
    var duration: Double
    var pos: Int64
    var size: Int64
}

/// `MP4Index` against ffprobe on files ffmpeg made (`tools/make-media.sh`), and against
/// synthetic files for scale and for hostile input.
@Suite struct MP4IndexTests {
    static let files = [
        "moov-at-end.mp4", "faststart.mp4", "fragmented.mp4", "dash-sidx.mp4", "bframes.mp4", "bframes-fragmented.mp4",
    ]

    /// The bytes of the test file `name`.
    func media(_ name: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: URL(fileURLWithPath: try Media.directory() + "/" + name)))
    }

    /// The first video stream's packets of `name`, in decode (file) order.
    func videoPackets(_ name: String) throws -> [FFprobePacket] {
        let path = try Media.directory() + "/" + name
        let r = try runCommand(
            try Paths.tool("ffprobe"),
            [
                "-v", "error", "-select_streams", "v:0", "-show_entries", "packet=pts_time,duration_time,pos,size",
                "-of", "compact=p=0:nk=0", path,
            ])
        guard r.status == 0 else { throw TestFailure("ffprobe failed on \(name): \(r.stderr)") }
        return try r.text.split(separator: "\n").map { line in
            var fields: [String: String] = [:]
            for pair in line.split(separator: "|") {
                let kv = pair.split(separator: "=", maxSplits: 1).map(String.init)
                if kv.count == 2 { fields[kv[0]] = kv[1] }
            }
            guard let pts = fields["pts_time"].flatMap(Double.init),
                let duration = fields["duration_time"].flatMap(Double.init),
                let pos = fields["pos"].flatMap({ Int64($0) }), let size = fields["size"].flatMap({ Int64($0) })
            else {
                throw TestFailure("unexpected ffprobe line: \(line)")
            }
            return FFprobePacket(pts: pts, duration: duration, pos: pos, size: size)
        }
    }

    /// The file's duration as ffprobe reports it.
    func duration(_ name: String) throws -> Double {
        let path = try Media.directory() + "/" + name
        let r = try runCommand(
            try Paths.tool("ffprobe"), ["-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", path])
        guard let d = Double(r.text.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw TestFailure("no duration for \(name): \(r.stderr)")
        }
        return d
    }

    @Test(arguments: files)
    func samplesAndTimesMatchFFprobe(file: String) throws {
        let data = try media(file)
        let index = try #require(try MP4Index.read(InMemoryResourceBytes(data)))
        let video = try #require(index.tracks.first { $0.isVideo })
        let packets = try videoPackets(file)
        #expect(packets.count == 500)
        #expect(video.sampleCount == packets.count)
        #expect(video.sampleOffsets == packets.map(\.pos).sorted())
        #expect(video.sampleSizes.map { Int64($0) } == packets.sorted { $0.pos < $1.pos }.map(\.size))
        #expect(index.tracks.contains { $0.handler == "soun" && $0.sampleCount > 0 })

        // ffprobe's times include the edit list's start, and MP4Index applies it the same way,
        // so times compare directly: bframes.mp4's edit list shifts presentation to start at 0;
        // bframes-fragmented.mp4 has none, so both start at the first composition offset (0.08).
        let firstPTS = packets.map(\.pts).min() ?? -1
        #expect(abs(Double(video.presentationTimes.min() ?? 0) / Double(video.timescale) - firstPTS) < 0.001)
        for window in [1..<25, 100..<150, 260..<261, 300..<420, 475..<499] {
            let chosen = packets[window]
            let first = chosen.map(\.pos).min() ?? 0
            let last = chosen.map { $0.pos + $0.size }.max() ?? 0
            let span = try #require(index.timeSpan(of: first..<last), "\(file) packets \(window)")
            let start = chosen.map(\.pts).min() ?? 0
            let end = chosen.map { $0.pts + $0.duration }.max() ?? 0
            #expect(
                abs(span.start - start) < 0.001, "\(file) packets \(window): start \(span.start) vs ffprobe \(start)")
            #expect(abs(span.end - end) < 0.001, "\(file) packets \(window): end \(span.end) vs ffprobe \(end)")
        }
        // One byte inside a packet is that packet's time.
        let p = packets[200]
        let one = try #require(index.timeSpan(of: (p.pos + p.size / 2)..<(p.pos + p.size / 2 + 1)))
        #expect(abs(one.start - p.pts) < 0.001 && abs(one.end - (p.pts + p.duration)) < 0.001)
        // Bytes before the first sample (ftyp) cover no media.
        #expect(index.timeSpan(of: 0..<8) == nil)
    }

    @Test func moovPlacementAndIndexFetch() throws {
        let atEnd = try #require(try MP4Index.read(InMemoryResourceBytes(try media("moov-at-end.mp4"))))
        let fast = try #require(try MP4Index.read(InMemoryResourceBytes(try media("faststart.mp4"))))
        #expect(atEnd.moovAtEnd)
        #expect(!fast.moovAtEnd)
        let endMoov = try #require(atEnd.moov)
        let fastMoov = try #require(fast.moov)
        #expect(endMoov.upperBound == Int64(try media("moov-at-end.mp4").count))
        #expect(fastMoov.lowerBound < (fast.topLevel.first { $0.type == "mdat" }?.range.lowerBound ?? 0))
        #expect(atEnd.topLevel.map(\.type) == ["ftyp", "free", "mdat", "moov"])
        #expect(atEnd.isIndex(endMoov))
        #expect(fast.isIndex(fastMoov))
        // A player's first fetch of a faststart file: ftyp and moov together.
        #expect(fast.isIndex(0..<fastMoov.upperBound))
        // The moov plus media samples is not an index fetch, nor are media bytes alone.
        let video = try #require(atEnd.tracks.first { $0.isVideo })
        let sample = video.sampleOffsets[10]..<(video.sampleOffsets[10] + Int64(video.sampleSizes[10]))
        #expect(!atEnd.isIndex(sample))
        #expect(!fast.isIndex(0..<(fastMoov.upperBound + 100_000)))
        #expect(!atEnd.isIndex(endMoov.lowerBound..<endMoov.lowerBound))
    }

    @Test func segmentIndexCoversTheMedia() throws {
        let data = try media("dash-sidx.mp4")
        let index = try #require(try MP4Index.read(InMemoryResourceBytes(data)))
        let refs = index.segmentIndex
        #expect(refs.count >= 19)
        let fragments = index.topLevel.filter { $0.type == "moof" || $0.type == "mdat" }
        #expect(refs.first?.byteRange.lowerBound == fragments.first?.range.lowerBound)
        #expect(refs.last?.byteRange.upperBound == fragments.last?.range.upperBound)
        for (a, b) in zip(refs, refs.dropFirst()) {
            #expect(a.byteRange.upperBound == b.byteRange.lowerBound)
            #expect(abs(a.end - b.start) < 1e-9)
        }
        #expect(refs.allSatisfy { $0.startsWithSAP })
        #expect(refs.allSatisfy { !$0.referencesIndex })
        let total = refs.reduce(0) { $0 + ($1.end - $1.start) }
        #expect(abs(total - (try duration("dash-sidx.mp4"))) < 0.05)
        // Each reference's bytes hold the video samples of its times.
        for ref in refs {
            let span = try #require(index.timeSpan(of: ref.byteRange))
            #expect(abs(span.start - ref.start) < 0.001, "reference at \(ref.byteRange)")
        }
        // The sidx boxes are index fetches; read alone (as a DASH indexRange fetch gives them)
        // they parse to the same references.
        let sidx = try #require(index.topLevel.first { $0.type == "sidx" })
        #expect(index.isIndex(sidx.range))
        let alone = try MP4SegmentIndex.parse(
            Array(data[Int(sidx.range.lowerBound)..<Int(sidx.range.upperBound)]), at: sidx.range.lowerBound)
        #expect(alone == refs)
    }

    @Test func sparseCaptureStillGivesTheIndex() throws {
        let data = try media("moov-at-end.mp4")
        let whole = try #require(try MP4Index.read(InMemoryResourceBytes(data)))
        let sparse = try #require(try MP4Index.read(SparseResourceBytes(data, hole: 1_000_000..<2_000_000)))
        #expect(sparse.tracks.map(\.sampleCount) == whole.tracks.map(\.sampleCount))
        #expect(sparse.moovAtEnd)
        let unknownLength = try #require(
            try MP4Index.read(SparseResourceBytes(data, hole: 1_000_000..<2_000_000, knownLength: false)))
        #expect(unknownLength.tracks.map(\.sampleCount) == whole.tracks.map(\.sampleCount))

        // Only the start and the end captured, as a player fetches a moov-at-end file.
        let moov = try #require(whole.moov)
        let ends = SparseResourceBytes(
            pieces: [(0, Array(data[0..<4096])), (moov.lowerBound, Array(data[Int(moov.lowerBound)...]))],
            length: Int64(data.count))
        let fromEnds = try #require(try MP4Index.read(ends))
        #expect(fromEnds.tracks.map(\.sampleCount) == whole.tracks.map(\.sampleCount))
        #expect(fromEnds.topLevel.map(\.type) == ["ftyp", "free", "mdat", "moov"])

        // A fragmented file missing a middle stretch: the fragments before the hole are read,
        // the walk stops at the hole.
        let fragmented = try media("fragmented.mp4")
        let fullFragmented = try #require(try MP4Index.read(InMemoryResourceBytes(fragmented)))
        let cut = try #require(try MP4Index.read(SparseResourceBytes(fragmented, hole: 1_000_000..<1_500_000)))
        let cutVideo = try #require(cut.tracks.first { $0.isVideo })
        let fullVideo = try #require(fullFragmented.tracks.first { $0.isVideo })
        #expect(cutVideo.sampleCount > 100 && cutVideo.sampleCount < fullVideo.sampleCount)
        #expect(Array(cutVideo.sampleOffsets) == Array(fullVideo.sampleOffsets.prefix(cutVideo.sampleCount)))

        // Without the moov bytes there are boxes but no tracks.
        let noMoov = try #require(
            try MP4Index.read(SparseResourceBytes(data, hole: (moov.lowerBound + 20)..<(moov.lowerBound + 40))))
        #expect(noMoov.tracks.isEmpty)
        #expect(noMoov.moov == moov)
    }

    @Test func halfAMillionSamplesAreFast() throws {
        let count = 500_000
        let perChunk = 10
        let sizes = (0..<count).map { UInt32(100 + $0 % 50) }
        var chunkOffsets: [Int64] = []
        let mdatStart: Int64 = 8_000_000
        var offset = mdatStart + 8
        var sampleOffsets: [Int64] = []
        sampleOffsets.reserveCapacity(count)
        for (i, s) in sizes.enumerated() {
            if i % perChunk == 0 { chunkOffsets.append(offset) }
            sampleOffsets.append(offset)
            offset += Int64(s)
        }
        let tables =
            MP4TestBoxes.stts(count: UInt32(count), delta: 512) + MP4TestBoxes.stsz(sizes)
            + MP4TestBoxes.stsc(perChunk: UInt32(perChunk)) + MP4TestBoxes.co64(chunkOffsets)
        let head = MP4TestBoxes.ftyp + MP4TestBoxes.moov(tables: tables)
        let free = MP4TestBoxes.box("free", [UInt8](repeating: 0, count: Int(mdatStart) - head.count - 8))
        let mdatHeader = MP4TestBoxes.u32(1) + Array("mdat".utf8) + MP4TestBoxes.u64(UInt64(offset - mdatStart))
        // Only the index bytes and the mdat header are captured.
        let source = SparseResourceBytes(pieces: [(0, head + free), (mdatStart, mdatHeader)], length: offset)

        let index = try #require(try MP4Index.read(source))
        let video = try #require(index.tracks.first)
        #expect(video.sampleCount == count)
        #expect(video.sampleOffsets == sampleOffsets)
        #expect(index.topLevel.map(\.type) == ["ftyp", "moov", "free", "mdat"])
        #expect(index.topLevel.last?.headerSize == 16)

        var generator = SeededGenerator(seed: 14)
        for _ in 0..<10_000 {
            let a = Int(generator.next(below: Int64(count)))
            let b = min(count, a + 1 + Int(generator.next(below: Int64(count / 4))))
            let bytes = sampleOffsets[a]..<(sampleOffsets[b - 1] + Int64(sizes[b - 1]))
            let span = try #require(index.timeSpan(of: bytes))
            #expect(span.start == Double(a * 512) / 12800 && span.end == Double(b * 512) / 12800)
        }
    }

    /// What reading `bytes` gives: the index, nil, or the error.
    func outcome(_ bytes: [UInt8]) -> Result<MP4Index?, MP4Error> {
        do throws(MP4Error) {
            return .success(try MP4Index.read(InMemoryResourceBytes(bytes)))
        } catch {
            return .failure(error)
        }
    }

    /// The error reading `bytes` gives, if any.
    func error(_ bytes: [UInt8]) -> MP4Error? {
        if case .failure(let e) = outcome(bytes) { return e }
        return nil
    }

    @Test func hostileHeadersGiveTypedErrors() throws {
        typealias B = MP4TestBoxes
        // Cut short inside the moov, and inside the mdat.
        let fast = try media("faststart.mp4")
        let cutInMoov = try #require(error(Array(fast.prefix(5000))))
        #expect(cutInMoov.box == "moov" && cutInMoov.offset == 32)
        #expect(cutInMoov.description.contains("'moov'") && cutInMoov.description.contains("byte 32"))
        #expect(error(Array(fast.prefix(20_000)))?.box == "mdat")
        // Size 1 with a largesize smaller than the 16-byte header.
        let tinyLarge = B.u32(1) + Array("ftyp".utf8) + B.u64(9) + [UInt8](repeating: 0, count: 16)
        #expect(error(tinyLarge) == .largeSizeTooSmall(box: "ftyp", offset: 0, size: 9))
        // A box of 4 bytes after a good ftyp.
        #expect(
            error(B.ftyp + B.u32(4) + Array("free".utf8))
                == .boxTooSmall(box: "free", offset: Int64(B.ftyp.count), size: 4))
        // A size past the end of the resource.
        #expect(error(B.ftyp + B.u32(1_000_000) + Array("mdat".utf8) + [1, 2, 3])?.box == "mdat")
        // Largesize past Int64.
        #expect(error(B.ftyp + B.u32(1) + Array("mdat".utf8) + B.u64(.max))?.box == "mdat")
        // Not MP4 at all.
        #expect(try outcome(Array("<!DOCTYPE html><html></html>".utf8)).get() == nil)
        #expect(try outcome([0, 0]).get() == nil)
        // A lone ftyp: an index with no tracks.
        let lone = try #require(try outcome(B.ftyp).get())
        #expect(lone.tracks.isEmpty && lone.moov == nil && lone.timeSpan(of: 0..<100) == nil)
    }

    @Test func hostileTablesGiveTypedErrors() throws {
        typealias B = MP4TestBoxes
        // stsz claims 2^31 samples with 20 bytes of table.
        let hugeTable = B.fullBox("stsz", B.u32(0) + B.u32(1 << 31) + [UInt8](repeating: 1, count: 20))
        let e1 = try #require(
            error(B.ftyp + B.moov(tables: B.stts(count: 1, delta: 1) + hugeTable + B.stsc(perChunk: 1) + B.co64([0]))))
        #expect(e1.box == "stsz")
        #expect(e1.description.contains("2147483648"))
        // stsz with one size for 2^31 samples: refused by the sample limit, not allocated; and
        // for 2^20 samples, more than the file has bytes.
        for count: UInt32 in [1 << 31, 1 << 20] {
            let constant = B.fullBox("stsz", B.u32(100) + B.u32(count))
            let e = try #require(error(B.ftyp + B.moov(tables: constant + B.stsc(perChunk: count) + B.co64([0]))))
            #expect(e.box == "stsz" && e.description.contains("\(count) entries"))
        }
        // stco claims more chunks than it holds.
        let stco = B.fullBox("stco", B.u32(0x4000_0000) + B.u32(0))
        #expect(error(B.ftyp + B.moov(tables: B.stsz([1, 2]) + B.stsc(perChunk: 1) + stco))?.box == "stco")
        // stsc whose first chunk is 0.
        let badStsc = B.fullBox("stsc", B.u32(1) + B.u32(0) + B.u32(1) + B.u32(1))
        #expect(error(B.ftyp + B.moov(tables: B.stsz([1, 2]) + badStsc + B.co64([0, 100])))?.box == "stsc")
        // Chunks that hold fewer samples than stsz lists.
        #expect(
            error(B.ftyp + B.moov(tables: B.stsz([1, 2, 3]) + B.stsc(perChunk: 1) + B.co64([0, 100])))?.box == "stsc")
        // A child running past its parent.
        let overrun = try #require(error(B.ftyp + B.moov(tables: B.u32(100) + Array("stsz".utf8))))
        #expect(overrun.box == "stsz" && overrun.description.contains("past the end"))
        // A trun claiming 2^32-1 samples with no per-sample fields.
        let trex = B.fullBox("trex", B.u32(1) + B.u32(1) + B.u32(512) + B.u32(100) + B.u32(0))
        let moov = B.moov(tables: B.stsz([]), extra: B.box("mvex", trex))
        let moof = B.box(
            "moof", B.box("traf", B.fullBox("tfhd", B.u32(1), flags: 0x02_0000) + B.fullBox("trun", B.u32(0xFFFF_FFFF)))
        )
        #expect(error(B.ftyp + moov + moof)?.box == "trun")
        // A sidx claiming 65535 references with 12 bytes of them.
        let sidx = B.fullBox(
            "sidx",
            B.u32(1) + B.u32(1000) + B.u32(0) + B.u32(0) + [0, 0, 0xFF, 0xFF] + [UInt8](repeating: 0, count: 12))
        #expect(throws: MP4Error.self) { try MP4SegmentIndex.parse(sidx, at: 0) }
        #expect(error(B.ftyp + sidx)?.box == "sidx")
        // A segment index that is not a sidx.
        #expect(throws: MP4Error.self) { try MP4SegmentIndex.parse(B.ftyp, at: 0) }
    }

    @Test func fragmentDefaultsComeFromTrex() throws {
        typealias B = MP4TestBoxes
        let trex = B.fullBox("trex", B.u32(1) + B.u32(1) + B.u32(512) + B.u32(100) + B.u32(0))
        let moov = B.moov(tables: B.stsz([]), extra: B.box("mvex", trex))
        let tfdt = B.fullBox("tfdt", B.u64(12800), version: 1)
        let trun = B.fullBox("trun", B.u32(3) + B.u32(0), flags: 0x01)
        var moof = B.box("moof", B.box("traf", B.fullBox("tfhd", B.u32(1), flags: 0x02_0000) + tfdt + trun))
        let moofStart = Int64(B.ftyp.count + moov.count)
        let dataOffset = UInt32(moof.count + 8)
        moof.replaceSubrange((moof.count - 4)..<moof.count, with: B.u32(dataOffset))
        let file = B.ftyp + moov + moof + B.box("mdat", [UInt8](repeating: 0, count: 300))
        let index = try #require(try MP4Index.read(InMemoryResourceBytes(file)))
        let video = try #require(index.tracks.first)
        #expect(video.sampleOffsets == [0, 100, 200].map { moofStart + Int64(dataOffset) + $0 })
        #expect(video.decodeTimes == [12800, 13312, 13824])
        let span = try #require(index.timeSpan(of: 0..<Int64(file.count)))
        #expect(span.start == 1 && span.end == Double(12800 + 1536) / 12800)
    }

    @Test func damagedMoovNeverTraps() throws {
        let data = try media("faststart.mp4")
        let whole = try #require(try MP4Index.read(InMemoryResourceBytes(data)))
        let moov = try #require(whole.moov)
        var generator = SeededGenerator(seed: 2026)
        var errors = 0
        for _ in 0..<300 {
            var damaged = data
            for _ in 0..<(1 + generator.next(below: 4)) {
                let at = Int(moov.lowerBound + generator.next(below: moov.upperBound - moov.lowerBound))
                damaged[at] = UInt8(truncatingIfNeeded: generator.next())
            }
            if case .failure = outcome(damaged) { errors += 1 }
        }
        // Some damage lands in sizes and counts and is reported; none traps.
        #expect(errors > 0)
    }
}
