import Foundation
import RangeTapCore

/// The bytes a capture holds for each resource, read from `body.bin` on demand: the "network"
/// of a replay. Memory grows with the number of chunks, not with body size.
final class CaptureTruth {
    struct Piece {
        var resourceOffset: Int64
        var chunk: ChunkEvent
    }

    private let reader: CaptureReader
    private var pieces: [String: [Piece]] = [:]

    init(reader: CaptureReader) {
        self.reader = reader
    }

    /// Adds a recorded chunk of `resource` (the first recording of an offset wins).
    func add(_ chunk: ChunkEvent, resource: String, resourceOffset: Int64) {
        pieces[resource, default: []].append(Piece(resourceOffset: resourceOffset, chunk: chunk))
    }

    /// Sorts the index; call once after the last `add`.
    func seal() {
        for (k, v) in pieces { pieces[k] = v.sorted { $0.resourceOffset < $1.resourceOffset } }
    }

    /// The recorded bytes of `range` of `resource`; throws if the capture lacks some of them.
    func bytes(_ resource: String, _ range: Range<Int64>) throws -> Data {
        var out = Data()
        out.reserveCapacity(Int(range.count))
        var position = range.lowerBound
        let list = pieces[resource] ?? []
        // First piece that could cover `position`.
        var i = list.partitioningIndex { $0.resourceOffset + Int64($0.chunk.size) > position }
        while position < range.upperBound {
            while i < list.count, list[i].resourceOffset + Int64(list[i].chunk.size) <= position { i += 1 }
            guard i < list.count, list[i].resourceOffset <= position else {
                throw ReplayError.cacheIO("the capture has no bytes of \(resource) at offset \(position)")
            }
            let p = list[i]
            let data = try reader.bytes(of: p.chunk)
            let from = Int(position - p.resourceOffset)
            let to = Int(min(range.upperBound - p.resourceOffset, Int64(data.count)))
            out.append(data[data.startIndex + from..<data.startIndex + to])
            position += Int64(to - from)
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
