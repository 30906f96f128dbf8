import Foundation

/// Keeps one contiguous run of each resource from byte 0 and merges only data that touches its
/// end (the seed-001 strategy): correct, but everything after a seek is thrown away.
public final class PrefixCache: RangeCache {
    public let name = "prefix"
    /// At the start of the range asked for: seed 001 saves what it downloaded at the requested range's start.
    public let placement = ChunkPlacement.request
    private let storage: CacheStorage
    private var lengths: [String: Int64] = [:]

    /// A cache in `directory` holding at most `capacity` bytes.
    public init(directory: String, capacity: Int64) throws {
        storage = try CacheStorage(directory: directory, capacity: capacity)
        storage.onEvict = { [unowned self] key in lengths.removeValue(forKey: key) }
    }

    public var evictions: Int { storage.evictions }
    public private(set) var oversized: Set<String> = []

    public func resourceInfo(_ info: ResourceInfo) throws {}

    public func store(_ bytes: Data, at offset: Int64, resource: String, exchange: Int) throws {
        let have = lengths[resource] ?? 0
        let end = offset + Int64(bytes.count)
        guard !storage.isRefused(resource), offset <= have, end > have else { return }
        let path = storage.path(for: resource)
        // Accounted before the write: a prefix past the capacity is refused, never written.
        guard storage.update(resource, path: path, bytes: end) else {
            oversized.insert(resource)
            return
        }
        try CacheStorage.write(bytes.suffix(from: bytes.startIndex + Int(have - offset)), at: have, path: path)
        lengths[resource] = end
    }

    public func exchangeEnded(resource: String, exchange: Int, complete: Bool) throws {}

    public func read(resource: String, range: Range<Int64>) throws -> Data {
        let have = lengths[resource] ?? 0
        guard range.lowerBound < have else { return Data() }
        return try CacheStorage.read(
            Int(min(range.upperBound, have) - range.lowerBound), at: range.lowerBound, path: storage.path(for: resource)
        )
    }
}
