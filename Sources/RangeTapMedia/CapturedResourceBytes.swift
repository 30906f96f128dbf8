import Foundation
import RangeTapCore

/// The bytes of one resource as a capture holds them: the chunks of every response to it,
/// placed at their offset in the resource (their `resourceOffset`), read from `body.bin` when
/// asked, through a ``ResourceChunkIndex``. Where responses overlap (a refetch), the first
/// recorded chunk wins.
///
/// Reading a range the capture lacks any byte of answers nil, so an MP4 box that was never
/// fetched is never read as zeros.
public final class CapturedResourceBytes: ResourceBytes {
    /// Complete length of the resource, when a response said it.
    public let length: Int64?
    private let reader: CaptureReader
    private let index: ResourceChunkIndex
    private var cached: (bodyOffset: Int64, bytes: [UInt8])?

    /// Places `chunks` (each with a `resourceOffset`), in the order they were recorded, of one
    /// resource; `length` is its complete length when known.
    public init(reader: CaptureReader, chunks: [ChunkEvent], length: Int64?) {
        self.reader = reader
        self.length = length
        index = ResourceChunkIndex(chunks.compactMap { c in c.resourceOffset.map { ($0, c) } })
    }

    /// The bytes of `range`, or nil when any of them is not in the capture (or `body.bin`
    /// cannot be read there).
    public func bytes(_ range: Range<Int64>) -> [UInt8]? {
        guard range.lowerBound >= 0 else { return nil }
        if range.isEmpty { return [] }
        let segments = index.segments
        var i = index.firstSegment(endingAfter: range.lowerBound)
        var out: [UInt8] = []
        out.reserveCapacity(Int(min(range.count, 1 << 20)))
        var at = range.lowerBound
        while at < range.upperBound {
            guard i < segments.count, segments[i].span.lowerBound <= at, let chunk = chunkBytes(segments[i].chunk)
            else { return nil }
            let s = segments[i]
            let from = s.offsetInChunk + Int(at - s.span.lowerBound)
            let to = s.offsetInChunk + Int(min(range.upperBound, s.span.upperBound) - s.span.lowerBound)
            guard from >= 0, to <= chunk.count else { return nil }
            out.append(contentsOf: chunk[from..<to])
            at += Int64(to - from)
            i += 1
        }
        return out
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
