import Foundation

/// Keeps a resource only after one exchange downloaded all of it from byte 0 (the seed-002
/// strategy): exact, but a player that cancels and seeks never fills it.
public final class WholeFileCache: RangeCache {
    public let name = "whole"
    private let storage: CacheStorage
    private var lengths: [String: Int64] = [:]
    private var complete: [String: Int64] = [:]
    /// Per exchange in progress: how many bytes from 0 it wrote contiguously.
    private var partial: [Int: (resource: String, bytes: Int64, broken: Bool)] = [:]

    /// A cache in `directory` holding at most `capacity` bytes.
    public init(directory: String, capacity: Int64) throws {
        storage = try CacheStorage(directory: directory, capacity: capacity)
        storage.onEvict = { [unowned self] key in complete.removeValue(forKey: key) }
    }

    public var evictions: Int { storage.evictions }
    public private(set) var oversized: Set<String> = []

    public func resourceInfo(_ info: ResourceInfo) throws {
        if let l = info.length { lengths[info.url] = l }
    }

    private func partPath(_ exchange: Int) -> String { storage.directory + "/part-\(exchange)" }

    public func store(_ bytes: Data, at offset: Int64, resource: String, exchange: Int) throws {
        var p = partial[exchange] ?? (resource, 0, false)
        if p.broken || offset != p.bytes {
            p.broken = true
        } else if p.bytes + Int64(bytes.count) > storage.capacity {
            // Larger than the whole cache: refused, and the part file is not grown past it.
            p.broken = true
            storage.update(resource, path: storage.path(for: resource), bytes: p.bytes + Int64(bytes.count))
            oversized.insert(resource)
        } else {
            try CacheStorage.write(bytes, at: offset, path: partPath(exchange))
            p.bytes += Int64(bytes.count)
        }
        partial[exchange] = p
    }

    public func exchangeEnded(resource: String, exchange: Int, complete ended: Bool) throws {
        guard let p = partial.removeValue(forKey: exchange) else { return }
        let path = partPath(exchange)
        defer { try? FileManager.default.removeItem(atPath: path) }
        guard ended, !p.broken, p.bytes > 0, p.bytes == lengths[resource] ?? p.bytes, complete[resource] == nil else {
            return
        }
        let target = storage.path(for: resource)
        try? FileManager.default.removeItem(atPath: target)
        try FileManager.default.moveItem(atPath: path, toPath: target)
        complete[resource] = p.bytes
        storage.update(resource, path: target, bytes: p.bytes)
    }

    public func read(resource: String, range: Range<Int64>) throws -> Data {
        guard let have = complete[resource], range.lowerBound < have else { return Data() }
        return try CacheStorage.read(
            Int(min(range.upperBound, have) - range.lowerBound), at: range.lowerBound, path: storage.path(for: resource)
        )
    }
}
