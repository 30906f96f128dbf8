import Foundation
import RangeTapCore

/// The bytes a capture holds for each resource, read from `body.bin` on demand: the "network"
/// of a replay. Memory grows with the number of chunks, not with body size.
final class CaptureTruth {
    struct Piece {
        var resourceOffset: Int64
        var chunk: ChunkEvent
    }

    /// A disjoint span of the resource and the chunk bytes that cover it.
    struct Segment {
        var span: Range<Int64>
        var chunk: ChunkEvent
        /// Offset of `span.lowerBound` within the chunk.
        var skip: Int
    }

    private let reader: CaptureReader
    private var pieces: [String: [Piece]] = [:]
    private var segments: [String: [Segment]] = [:]

    init(reader: CaptureReader) {
        self.reader = reader
    }

    /// Adds a recorded chunk of `resource` (the first recording of an offset wins).
    func add(_ chunk: ChunkEvent, resource: String, resourceOffset: Int64) {
        pieces[resource, default: []].append(Piece(resourceOffset: resourceOffset, chunk: chunk))
    }

    /// Builds the disjoint index; call once after the last `add`. Where exchanges overlap, the
    /// first recording of a byte wins (later ones add only what is new).
    func seal() {
        for (resource, list) in pieces {
            var out: [Segment] = []
            var covered = ByteRangeSet()
            for p in list {
                // The replayer refuses resources whose bytes end past ResourceLimit; be safe anyway.
                guard let end = p.resourceOffset.addingChecked(Int64(p.chunk.size)) else { continue }
                let span = p.resourceOffset..<end
                var gaps = ByteRangeSet()
                gaps.insert(span)
                for s in covered.spans { gaps.remove(s) }
                for g in gaps.spans {
                    out.append(Segment(span: g, chunk: p.chunk, skip: Int(g.lowerBound - p.resourceOffset)))
                }
                covered.insert(span)
            }
            segments[resource] = out.sorted { $0.span.lowerBound < $1.span.lowerBound }
        }
        pieces = [:]
    }

    /// The recorded bytes of `range` of `resource`; throws if the capture lacks some of them.
    func bytes(_ resource: String, _ range: Range<Int64>) throws -> Data {
        var out = Data()
        out.reserveCapacity(Int(range.count))
        var position = range.lowerBound
        let list = segments[resource] ?? []
        var i = list.partitioningIndex { $0.span.upperBound > position }
        while position < range.upperBound {
            guard i < list.count, list[i].span.lowerBound <= position else {
                throw ReplayError.cacheIO("the capture has no bytes of \(resource) at offset \(position)")
            }
            let seg = list[i]
            let data = try reader.bytes(of: seg.chunk)
            let from = seg.skip + Int(position - seg.span.lowerBound)
            let to = seg.skip + Int(min(range.upperBound, seg.span.upperBound) - seg.span.lowerBound)
            out.append(data[data.startIndex + from..<data.startIndex + to])
            position += Int64(to - from)
            i += 1
        }
        return out
    }
}

extension Array {
    /// The first index whose element satisfies `belongs` (which must be false, then true, along the array).
    func partitioningIndex(where belongs: (Element) -> Bool) -> Int {
        var low = 0
        var high = count
        while low < high {
            let mid = (low + high) / 2
            if belongs(self[mid]) { high = mid } else { low = mid + 1 }
        }
        return low
    }
}
