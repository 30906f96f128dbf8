import Foundation
import RangeTapCore
import RangeTapReplay

/// A prefix cache with the classic off-by-one merge: when new data overlaps or touches the
/// end of the run, it skips one byte too many.
final class OffByOneMergeCache: RangeCache {
    let name = "off-by-one-merge"
    var evictions: Int { 0 }
    private var run: [String: Data] = [:]

    func resourceInfo(_ info: ResourceInfo) throws {}
    func exchangeEnded(resource: String, exchange: Int, complete: Bool) throws {}

    func store(_ bytes: Data, at offset: Int64, resource: String, exchange: Int) throws {
        var have = run[resource] ?? Data()
        let end = offset + Int64(bytes.count)
        guard offset <= Int64(have.count), end > Int64(have.count) else { return }
        let skip = Int(Int64(have.count) - offset) + (have.isEmpty ? 0 : 1)  // the bug: + 1
        guard skip < bytes.count else { return }
        have.append(bytes.suffix(from: bytes.startIndex + skip))
        run[resource] = have
    }

    func read(resource: String, range: Range<Int64>) throws -> Data {
        guard let have = run[resource], range.lowerBound < Int64(have.count) else { return Data() }
        return have[Int(range.lowerBound)..<Int(min(range.upperBound, Int64(have.count)))]
    }
}

/// A sparse cache that writes each exchange's bytes relative to the exchange's first offset,
/// as if every response started at byte 0.
final class WrongOffsetCache: RangeCache {
    let name = "wrong-offset"
    var evictions: Int { 0 }
    private var file: [String: [Int64: UInt8]] = [:]
    private var held: [String: ByteRangeSet] = [:]
    private var firstOffset: [Int: Int64] = [:]

    func resourceInfo(_ info: ResourceInfo) throws {}
    func exchangeEnded(resource: String, exchange: Int, complete: Bool) throws {}

    func store(_ bytes: Data, at offset: Int64, resource: String, exchange: Int) throws {
        let base = firstOffset[exchange] ?? offset
        firstOffset[exchange] = base
        var f = file[resource] ?? [:]
        for (i, b) in bytes.enumerated() { f[offset - base + Int64(i)] = b }  // the bug: - base
        file[resource] = f
        held[resource, default: ByteRangeSet()].insert(offset..<(offset + Int64(bytes.count)))
    }

    func read(resource: String, range: Range<Int64>) throws -> Data {
        let run = held[resource]?.contiguousLength(from: range.lowerBound) ?? 0
        let f = file[resource] ?? [:]
        return Data((range.lowerBound..<(range.lowerBound + min(run, Int64(range.count)))).map { f[$0] ?? 0 })
    }
}
