import Foundation

/// The bytes of one resource as a capture holds them: the chunks of every response to it,
/// placed at their offset in the resource (their `resourceOffset`), read from `body.bin` when
/// asked. Where responses overlap (a refetch), the earliest recorded chunk wins.
///
/// Reading a range the capture lacks any byte of answers nil, so an MP4 box that was never
/// fetched is never read as zeros.
public final class CapturedResourceBytes: ResourceBytes {
    /// A disjoint stretch of the resource and the chunk holding it.
    private struct Piece {
        var start: Int64
        var end: Int64
        var chunk: ChunkEvent
        /// Resource offset of the chunk's first byte.
        var chunkStart: Int64
    }

    /// Complete length of the resource, when a response said it.
    public let length: Int64?
    private let reader: CaptureReader
    private var pieces: [Piece] = []
    private var cached: (bodyOffset: Int64, bytes: [UInt8])?

    /// Places `chunks` (each with a `resourceOffset`) of one resource; `length` is its complete
    /// length when known.
    public init(reader: CaptureReader, chunks: [ChunkEvent], length: Int64?) {
        self.reader = reader
        self.length = length
        var covered = Int64.min
        for c in chunks.filter({ $0.resourceOffset != nil && $0.size > 0 }).sorted(by: { $0.resourceOffset! < $1.resourceOffset! }) {
            let start = c.resourceOffset!
            let end = start.addingSaturating(Int64(c.size))
            guard end > covered else { continue }
            pieces.append(Piece(start: max(start, covered), end: end, chunk: c, chunkStart: start))
            covered = end
        }
    }

    /// Bytes of the resource the capture holds, in total.
    public var capturedByteCount: Int64 { pieces.reduce(0) { $0 + ($1.end - $1.start) } }

    /// The bytes of `range`, or nil when any of them is not in the capture (or `body.bin`
    /// cannot be read there).
    public func bytes(_ range: Range<Int64>) -> [UInt8]? {
        guard range.lowerBound >= 0 else { return nil }
        if range.isEmpty { return [] }
        var i = firstPiece(endingAfter: range.lowerBound)
        var out: [UInt8] = []
        out.reserveCapacity(Int(min(range.count, 1 << 20)))
        var at = range.lowerBound
        while at < range.upperBound {
            guard i < pieces.count, pieces[i].start <= at, let chunk = chunkBytes(pieces[i].chunk) else { return nil }
            let p = pieces[i]
            let from = Int(at - p.chunkStart)
            let to = Int(min(p.end, range.upperBound) - p.chunkStart)
            guard from >= 0, to <= chunk.count else { return nil }
            out.append(contentsOf: chunk[from..<to])
            at = p.chunkStart + Int64(to)
            i += 1
        }
        return out
    }

    /// Index of the first piece whose end lies after `offset`.
    private func firstPiece(endingAfter offset: Int64) -> Int {
        var lo = 0, hi = pieces.count
        while lo < hi {
            let mid = (lo + hi) / 2
            if pieces[mid].end <= offset { lo = mid + 1 } else { hi = mid }
        }
        return lo
    }

    /// A chunk's recorded bytes; the last one read is kept, as box walks read small pieces of
    /// one chunk many times.
    private func chunkBytes(_ c: ChunkEvent) -> [UInt8]? {
        guard let at = c.bodyOffset else { return nil }
        if let cached, cached.bodyOffset == at, cached.bytes.count == c.size { return cached.bytes }
        guard let data = try? reader.bytes(of: c) else { return nil }
        let bytes = [UInt8](data)
        cached = (at, bytes)
        return bytes
    }
}
