import RangeTapCore

/// One track of an MP4 file and its samples, from the `moov`'s sample tables and the
/// `moof` fragments.
///
/// Samples are stored compactly as parallel arrays sorted by file offset: sample `i` occupies
/// bytes `sampleOffsets[i] ..< sampleOffsets[i] + sampleSizes[i]`, is decoded at
/// `decodeTimes[i]` and presented from `presentationTimes[i]` for `durations[i]`, all times
/// in ``timescale`` units. Presentation times include the shift of the track's edit list (see
/// ``MP4Index``).
public struct MP4Track: Sendable {
    /// The track's ID (`tkhd`).
    public let id: UInt32
    /// The handler type (`hdlr`): `vide`, `soun`, `subt`, `text`, `hint`, …
    public let handler: String
    /// Units per second of the track's times (`mdhd`).
    public let timescale: UInt32
    /// Byte offset of each sample in the resource, ascending.
    public let sampleOffsets: [Int64]
    /// Size of each sample in bytes.
    public let sampleSizes: [UInt32]
    /// Decode time of each sample.
    public let decodeTimes: [Int64]
    /// Presentation (composition) time of each sample, edit list applied.
    public let presentationTimes: [Int64]
    /// Duration of each sample.
    public let durations: [UInt32]

    /// Samples per block of ``blockStart`` and ``blockEnd``.
    static let blockSize = 64
    /// Earliest presentation time within each block of 64 samples.
    private let blockStart: [Int64]
    /// Latest presentation end within each block of 64 samples.
    private let blockEnd: [Int64]

    /// Builds a track from samples in any order; they are sorted by offset here.
    init(
        id: UInt32, handler: String, timescale: UInt32, offsets: [Int64], sizes: [UInt32], decodeTimes: [Int64],
        presentationTimes: [Int64], durations: [UInt32]
    ) {
        self.id = id
        self.handler = handler
        self.timescale = timescale
        var sorted = true
        for i in offsets.indices.dropFirst() where offsets[i - 1] > offsets[i] {
            sorted = false
            break
        }
        if sorted {
            sampleOffsets = offsets
            sampleSizes = sizes
            self.decodeTimes = decodeTimes
            self.presentationTimes = presentationTimes
            self.durations = durations
        } else {
            let order = offsets.indices.sorted { offsets[$0] < offsets[$1] }
            sampleOffsets = order.map { offsets[$0] }
            sampleSizes = order.map { sizes[$0] }
            self.decodeTimes = order.map { decodeTimes[$0] }
            self.presentationTimes = order.map { presentationTimes[$0] }
            self.durations = order.map { durations[$0] }
        }
        var starts: [Int64] = []
        var ends: [Int64] = []
        starts.reserveCapacity(sampleOffsets.count / Self.blockSize + 1)
        ends.reserveCapacity(sampleOffsets.count / Self.blockSize + 1)
        var b = 0
        while b < sampleOffsets.count {
            let upper = min(b + Self.blockSize, sampleOffsets.count)
            var s = Int64.max
            var e = Int64.min
            for i in b..<upper {
                s = min(s, self.presentationTimes[i])
                e = max(e, self.presentationTimes[i].addingSaturating(Int64(self.durations[i])))
            }
            starts.append(s)
            ends.append(e)
            b = upper
        }
        blockStart = starts
        blockEnd = ends
    }

    /// Number of samples.
    public var sampleCount: Int { sampleOffsets.count }

    /// Whether this is a video track (handler `vide`).
    public var isVideo: Bool { handler == "vide" }

    /// The indices of the samples whose bytes overlap `bytes`, found by binary search.
    ///
    /// Samples are assumed not to overlap each other (true of any file a muxer wrote); for a
    /// file where they do, the answer may leave out or take in a few samples at the edges.
    public func samples(overlapping bytes: Range<Int64>) -> Range<Int> {
        guard !bytes.isEmpty else { return 0..<0 }
        // First sample ending after bytes.lowerBound.
        var lo = 0
        var hi = sampleOffsets.count
        while lo < hi {
            let mid = lo + (hi - lo) / 2
            if sampleOffsets[mid].addingSaturating(Int64(sampleSizes[mid])) > bytes.lowerBound {
                hi = mid
            } else {
                lo = mid + 1
            }
        }
        let first = lo
        // First sample starting at or after bytes.upperBound.
        hi = sampleOffsets.count
        while lo < hi {
            let mid = lo + (hi - lo) / 2
            if sampleOffsets[mid] >= bytes.upperBound { hi = mid } else { lo = mid + 1 }
        }
        return first..<max(first, lo)
    }

    /// Earliest presentation time and latest presentation end, in ``timescale`` units, of the
    /// samples `indices`; nil when `indices` is empty. Uses per-block summaries, so a range of
    /// n samples costs about n / 64 steps.
    public func presentationBounds(of indices: Range<Int>) -> (start: Int64, end: Int64)? {
        let indices = indices.clamped(to: 0..<sampleCount)
        guard !indices.isEmpty else { return nil }
        var s = Int64.max
        var e = Int64.min
        var i = indices.lowerBound
        while i < indices.upperBound {
            if i % Self.blockSize == 0, i + Self.blockSize <= indices.upperBound {
                let b = i / Self.blockSize
                s = min(s, blockStart[b])
                e = max(e, blockEnd[b])
                i += Self.blockSize
            } else {
                s = min(s, presentationTimes[i])
                e = max(e, presentationTimes[i].addingSaturating(Int64(durations[i])))
                i += 1
            }
        }
        return (s, e)
    }

    /// The media time, in seconds, covered by the samples whose bytes overlap `bytes`: the
    /// earliest presentation time and the latest presentation end; nil when none overlaps.
    public func timeSpan(of bytes: Range<Int64>) -> (start: Double, end: Double)? {
        guard timescale > 0, let (s, e) = presentationBounds(of: samples(overlapping: bytes)) else { return nil }
        return (Double(s) / Double(timescale), Double(e) / Double(timescale))
    }
}
