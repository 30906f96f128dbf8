import Foundation
import RangeTapCore

/// The bytes a capture holds for each resource, read from `body.bin` on demand: the "network"
/// of a replay. Memory grows with the number of chunks, not with body size.
final class CaptureTruth {
    private let reader: CaptureReader
    private var pieces: [String: [(offset: Int64, chunk: ChunkEvent)]] = [:]
    private var indexes: [String: ResourceChunkIndex] = [:]

    init(reader: CaptureReader) {
        self.reader = reader
    }

    /// Adds a recorded chunk of `resource` (the first recording of an offset wins).
    func add(_ chunk: ChunkEvent, resource: String, resourceOffset: Int64) {
        pieces[resource, default: []].append((resourceOffset, chunk))
    }

    /// Builds the disjoint index; call once after the last `add`. Where exchanges overlap, the
    /// first recording of a byte wins (later ones add only what is new).
    func seal() {
        // The replayer refuses resources whose bytes end past ResourceLimit; the index leaves
        // such chunks out anyway.
        for (resource, list) in pieces { indexes[resource] = ResourceChunkIndex(list) }
        pieces = [:]
    }

    /// The recorded bytes of `range` of `resource`; throws if the capture lacks some of them.
    func bytes(_ resource: String, _ range: Range<Int64>) throws -> Data {
        var out = Data()
        out.reserveCapacity(Int(range.count))
        var position = range.lowerBound
        let index = indexes[resource] ?? ResourceChunkIndex([])
        let list = index.segments
        var i = index.firstSegment(endingAfter: position)
        while position < range.upperBound {
            guard i < list.count, list[i].span.lowerBound <= position else {
                throw ReplayError.cacheIO("the capture has no bytes of \(resource) at offset \(position)")
            }
            let seg = list[i]
            let data = try reader.bytes(of: seg.chunk)
            let from = seg.offsetInChunk + Int(position - seg.span.lowerBound)
            let to = seg.offsetInChunk + Int(min(range.upperBound, seg.span.upperBound) - seg.span.lowerBound)
            out.append(data[data.startIndex + from..<data.startIndex + to])
            position += Int64(to - from)
            i += 1
        }
        return out
    }
}
