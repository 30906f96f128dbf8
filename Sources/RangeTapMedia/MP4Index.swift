import RangeTapCore

/// What an MP4 file's index says about its bytes: the top-level boxes, the tracks and the
/// file offset and media time of every sample, and the segment index (`sidx`) when there is
/// one. Answers which media time a byte range covers, and whether a range is an index fetch.
///
/// Samples come from the `moov`'s sample tables and, for a fragmented MP4, from every `moof`
/// the capture holds. Presentation times apply only the start of each track's edit list: a
/// leading empty edit delays the track, and the first media edit's `media_time` is subtracted
/// (so with B-frames the first frame is presented at 0, as ffprobe reports it); later edits
/// are ignored.
public struct MP4Index: Sendable {
    /// The boxes at the top level of the file, as far as the capture holds their headers.
    public let topLevel: [MP4Box.Header]
    /// The bytes of the `moov` box, when there is one.
    public let moov: Range<Int64>?
    /// Whether the `moov` starts after an `mdat`: a player must fetch the end of the file
    /// before it can play.
    public let moovAtEnd: Bool
    /// The tracks, in the order of the `moov`; empty when the capture lacks the `moov`'s bytes.
    public let tracks: [MP4Track]
    /// The references of the top-level `sidx` boxes: those of the video track's when there is
    /// one (else of the first `sidx`'s track), in file order, each starting where the previous
    /// ended or later.
    public let segmentIndex: [MP4SegmentReference]
    /// The bytes of the top-level `sidx` boxes.
    public let segmentIndexBoxes: [Range<Int64>]

    /// Types a file's first box may have for it to be read as MP4.
    public static let firstBoxTypes: Set<String> = ["ftyp", "styp", "moov", "moof", "sidx", "mdat", "free", "wide"]
    /// Most samples read across all tracks (32 bytes of memory each); never more than the
    /// resource's length in bytes either.
    public static let maximumSampleCount = 1 << 23
    /// Largest `moov` read.
    public static let maximumMovieSize: Int64 = 256 << 20
    /// Largest `moof` read.
    public static let maximumFragmentSize: Int64 = 64 << 20

    /// Reads the index of the MP4 file in `source`; nil when its first box is not an MP4 box
    /// (or the capture lacks the file's first 8 bytes).
    ///
    /// Reads 16 bytes at the start of each top-level box, then the whole `moov`, each `moof`
    /// and each `sidx`. Boxes whose bytes the capture lacks are passed over: their samples or
    /// references are missing from the index. Throws ``MP4Error`` for malformed boxes.
    public static func read(_ source: some ResourceBytes) throws(MP4Error) -> MP4Index? {
        guard let first = source.bytes(0..<8), first.count == 8 else { return nil }
        let firstType = MP4Box.typeName(
            UInt32(first[4]) << 24 | UInt32(first[5]) << 16 | UInt32(first[6]) << 8 | UInt32(first[7]))
        guard firstBoxTypes.contains(firstType) else { return nil }

        let boxes = try MP4Box.topLevel(of: source)
        let moovBox = boxes.first { $0.type == "moov" }
        let moovAtEnd =
            moovBox.map { m in boxes.contains { $0.type == "mdat" && $0.range.lowerBound < m.range.lowerBound } }
            ?? false

        // No more samples than the resource has bytes: a count of samples sharing one size
        // (`stsz` with no table, `trun` with defaults) is bounded by no table of its own.
        var budget = min(maximumSampleCount, Int(clamping: source.length ?? Int64(maximumSampleCount)))
        var builders: [MP4TrackBuilder] = []
        if let m = moovBox, let bytes = try payloadBytes(of: m, from: source, limit: maximumMovieSize) {
            builders = try MP4MovieReader.tracks(moov: m, bytes: bytes, budget: &budget)
        }
        if !builders.isEmpty {
            for moof in boxes where moof.type == "moof" {
                guard let bytes = try payloadBytes(of: moof, from: source, limit: maximumFragmentSize) else { continue }
                try MP4FragmentReader.read(moof: moof, bytes: bytes, tracks: &builders, budget: &budget)
            }
        }
        let tracks = builders.map { $0.build() }

        let sidxBoxes = boxes.filter { $0.type == "sidx" }
        var parsed: [(referenceID: UInt32, references: [MP4SegmentReference])] = []
        for sidx in sidxBoxes {
            guard let bytes = try payloadBytes(of: sidx, from: source, limit: MP4SegmentIndex.maximumSize) else {
                continue
            }
            parsed.append(try MP4SegmentIndex.parseBox(bytes, at: sidx.range.lowerBound))
        }
        let videoIDs = Set(tracks.filter(\.isVideo).map(\.id))
        let chosenID = parsed.first { videoIDs.contains($0.referenceID) }?.referenceID ?? parsed.first?.referenceID
        var references: [MP4SegmentReference] = []
        for box in parsed where box.referenceID == chosenID {
            for ref in box.references where ref.byteRange.lowerBound >= (references.last?.byteRange.upperBound ?? .min)
            {
                references.append(ref)
            }
        }
        return MP4Index(
            topLevel: boxes, moov: moovBox?.range, moovAtEnd: moovAtEnd, tracks: tracks, segmentIndex: references,
            segmentIndexBoxes: sidxBoxes.map(\.range))
    }

    /// The whole bytes of `box`, nil when the capture lacks any; throws when the box is larger
    /// than `limit`.
    private static func payloadBytes(
        of box: MP4Box.Header, from source: some ResourceBytes, limit: Int64
    ) throws(MP4Error) -> [UInt8]? {
        let size = box.range.upperBound - box.range.lowerBound
        guard size <= limit else {
            throw .tooLarge(box: box.type, offset: box.range.lowerBound, size: size, limit: limit)
        }
        guard let bytes = source.bytes(box.range), Int64(bytes.count) == size else { return nil }
        return bytes
    }

    /// The media time, in seconds, covered by the samples whose bytes overlap `bytes`: the
    /// earliest presentation time and the latest presentation end among them. The video
    /// tracks answer when their samples overlap `bytes`; otherwise all tracks do. Without
    /// tracks (a media segment file read without its initialization segment: `styp`, `sidx`,
    /// `moof`, `mdat`), the references of its `sidx` that overlap `bytes` answer. Nil when no
    /// sample or reference overlaps. Each track is searched by binary search, so this stays
    /// fast for hundreds of thousands of samples.
    public func timeSpan(of bytes: Range<Int64>) -> (start: Double, end: Double)? {
        if let span = Self.span(of: bytes, in: tracks.filter(\.isVideo)) { return span }
        if let span = Self.span(of: bytes, in: tracks) { return span }
        guard tracks.isEmpty else { return nil }
        let refs = segmentIndex.filter { !$0.referencesIndex && $0.byteRange.overlaps(bytes) }
        guard let first = refs.map(\.start).min(), let last = refs.map(\.end).max() else { return nil }
        return (first, last)
    }

    private static func span(of bytes: Range<Int64>, in tracks: [MP4Track]) -> (start: Double, end: Double)? {
        var result: (start: Double, end: Double)?
        for track in tracks {
            guard let s = track.timeSpan(of: bytes) else { continue }
            result = result.map { (min($0.start, s.start), max($0.end, s.end)) } ?? s
        }
        return result
    }

    /// The bytes of the index boxes: the `moov` and the top-level `sidx` boxes.
    public var indexRanges: [Range<Int64>] {
        (moov.map { [$0] } ?? []) + segmentIndexBoxes
    }

    /// Whether fetching `bytes` is an index fetch: the range touches the `moov` or a `sidx`
    /// and holds no sample's bytes and no `moof` or `mdat` box (so a fetch of `ftyp` and `moov`
    /// together counts; a fetch that runs on into the media does not, nor does a whole media
    /// segment file, `styp` + `sidx` + `moof` + `mdat`, read without its initialization segment).
    public func isIndex(_ bytes: Range<Int64>) -> Bool {
        guard !bytes.isEmpty, indexRanges.contains(where: { $0.overlaps(bytes) }) else { return false }
        if topLevel.contains(where: { ($0.type == "moof" || $0.type == "mdat") && $0.range.overlaps(bytes) }) {
            return false
        }
        return tracks.allSatisfy { $0.samples(overlapping: bytes).isEmpty }
    }

    /// Media bytes a fetch may hold before a `moov` at the end and still be the index fetch.
    public static let indexLeadIn: Int64 = 256 << 10

    /// Whether fetching `bytes` is a fetch of the index at the end that began a little early: the
    /// range holds the whole `moov`, which follows the media data, and starts at most
    /// ``indexLeadIn`` bytes before it. Players that do not know where the `moov` begins ask for
    /// the file's last bytes (AVPlayer `bytes=N-` for the last 64 KiB, Chromium similarly); a
    /// seek that reads on to the end starts further back and is media. Ranges of the index
    /// alone are ``isIndex(_:)``.
    public func isIndexAtEnd(_ bytes: Range<Int64>) -> Bool {
        guard moovAtEnd, let moov, bytes.lowerBound <= moov.lowerBound, bytes.upperBound >= moov.upperBound else {
            return false
        }
        return moov.lowerBound - bytes.lowerBound <= Self.indexLeadIn
    }

    /// Whether the file is fragmented (has top-level `moof` boxes).
    public var isFragmented: Bool { topLevel.contains { $0.type == "moof" } }
}
