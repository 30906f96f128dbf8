/// Where a capture holds each byte of one resource: its chunks placed at their offsets in the
/// resource and made disjoint, sorted by offset. Where recordings overlap, the first recorded
/// wins and later ones add only what is new. Replay's truth and the media mapping read a
/// resource's recorded bytes through it.
public struct ResourceChunkIndex: Sendable {
    /// A disjoint span of the resource and the chunk bytes that cover it.
    public struct Segment: Sendable {
        /// Bytes of the resource.
        public var span: Range<Int64>
        /// The chunk holding them.
        public var chunk: ChunkEvent
        /// Offset of `span.lowerBound` within the chunk.
        public var offsetInChunk: Int
    }

    /// The segments, disjoint and sorted by offset.
    public let segments: [Segment]

    /// Indexes `pieces`, each a chunk and the offset of its first byte in the resource, in the
    /// order they were recorded. A chunk whose end would pass offset 2⁶³−1 is left out.
    public init(_ pieces: [(offset: Int64, chunk: ChunkEvent)]) {
        var out: [Segment] = []
        var covered = ByteRangeSet()
        for p in pieces {
            guard let end = p.offset.addingChecked(Int64(p.chunk.size)) else { continue }
            let span = p.offset..<end
            var gaps = ByteRangeSet()
            gaps.insert(span)
            for s in covered.spans { gaps.remove(s) }
            for g in gaps.spans {
                out.append(Segment(span: g, chunk: p.chunk, offsetInChunk: Int(g.lowerBound - p.offset)))
            }
            covered.insert(span)
        }
        segments = out.sorted { $0.span.lowerBound < $1.span.lowerBound }
    }

    /// Index of the first segment ending after `offset` (`segments.count` when none does).
    public func firstSegment(endingAfter offset: Int64) -> Int {
        var low = 0
        var high = segments.count
        while low < high {
            let mid = (low + high) / 2
            if segments[mid].span.upperBound > offset { high = mid } else { low = mid + 1 }
        }
        return low
    }
}
