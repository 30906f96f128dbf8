import Foundation
import RangeTapCore

/// A sparse file per resource plus the set of byte ranges it holds: every byte a player ever
/// received is kept and served back, wherever it lies.
public final class SparseCache: RangeCache {
    public let name = "sparse"
    private let storage: CacheStorage
    private var held: [String: ByteRangeSet] = [:]

    /// A cache in `directory` holding at most `capacity` bytes.
    public init(directory: String, capacity: Int64) throws {
        storage = try CacheStorage(directory: directory, capacity: capacity)
        storage.onEvict = { [unowned self] key in held.removeValue(forKey: key) }
    }

    public var evictions: Int { storage.evictions }
    public private(set) var oversized: Set<String> = []

    public func resourceInfo(_ info: ResourceInfo) throws {}

    public func store(_ bytes: Data, at offset: Int64, resource: String, exchange: Int) throws {
        guard !bytes.isEmpty, !storage.isRefused(resource) else { return }
        let path = storage.path(for: resource)
        var ranges = held[resource] ?? ByteRangeSet()
        ranges.insert(try CacheStorage.span(bytes.count, at: offset, path: path))
        // Accounted before the write: a resource past the capacity is refused, never written.
        guard storage.update(resource, path: path, bytes: ranges.count) else {
            oversized.insert(resource)
            return
        }
        try CacheStorage.write(bytes, at: offset, path: path)
        held[resource] = ranges
    }

    public func exchangeEnded(resource: String, exchange: Int, complete: Bool) throws {}

    public func read(resource: String, range: Range<Int64>) throws -> Data {
        let run = held[resource]?.contiguousLength(from: range.lowerBound) ?? 0
        guard run > 0 else { return Data() }
        return try CacheStorage.read(
            Int(min(run, range.upperBound - range.lowerBound)), at: range.lowerBound, path: storage.path(for: resource))
    }
}
