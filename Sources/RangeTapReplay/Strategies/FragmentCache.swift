import Foundation

/// One file per fetched range, named by its start, stitched together when fragments touch
/// (the seed-004 strategy).
public final class FragmentCache: RangeCache {
    public let name = "fragments"
    /// At the start of the range asked for: seed 004 names each fragment after its request's Range.
    public let placement = ChunkPlacement.request
    private struct Fragment {
        var key: String
        var start: Int64
        var end: Int64
    }

    private let storage: CacheStorage
    private var fragments: [String: [Fragment]] = [:]
    /// The fragment each exchange in progress is writing.
    private var open: [Int: String] = [:]

    /// A cache in `directory` holding at most `capacity` bytes.
    public init(directory: String, capacity: Int64) throws {
        storage = try CacheStorage(directory: directory, capacity: capacity)
        storage.onEvict = { [unowned self] key in
            for (url, list) in fragments { fragments[url] = list.filter { $0.key != key } }
        }
    }

    public var evictions: Int { storage.evictions }
    public private(set) var oversized: Set<String> = []

    public func resourceInfo(_ info: ResourceInfo) throws {}

    public func store(_ bytes: Data, at offset: Int64, resource: String, exchange: Int) throws {
        // The rest of a fragment refused for its size is not stored either.
        if let key = open[exchange], storage.isRefused(key) { return }
        var list = fragments[resource] ?? []
        let end = offset + Int64(bytes.count)
        // Each fragment is accounted before its write: one past the capacity is refused, never written.
        if let key = open[exchange], let i = list.firstIndex(where: { $0.key == key }), list[i].end == offset {
            guard storage.update(key, path: storage.path(for: key), bytes: end - list[i].start) else {
                oversized.insert(resource)
                return
            }
            try CacheStorage.write(bytes, at: offset - list[i].start, path: storage.path(for: key))
            list[i].end = end
            fragments[resource] = list
            return
        }
        let key = "\(resource)#\(offset)#\(exchange)"
        open[exchange] = key
        guard storage.update(key, path: storage.path(for: key), bytes: end - offset) else {
            oversized.insert(resource)
            return
        }
        try CacheStorage.write(bytes, at: 0, path: storage.path(for: key))
        list.append(Fragment(key: key, start: offset, end: end))
        fragments[resource] = list
    }

    public func exchangeEnded(resource: String, exchange: Int, complete: Bool) throws {
        open.removeValue(forKey: exchange)
    }

    public func read(resource: String, range: Range<Int64>) throws -> Data {
        var out = Data()
        var position = range.lowerBound
        let list = fragments[resource] ?? []
        while position < range.upperBound {
            // The fragment covering `position` that reaches furthest.
            guard let f = list.filter({ $0.start <= position && position < $0.end }).max(by: { $0.end < $1.end }) else {
                break
            }
            let count = Int(min(f.end, range.upperBound) - position)
            let piece = try CacheStorage.read(count, at: position - f.start, path: storage.path(for: f.key))
            out.append(piece)
            if piece.count < count { break }
            position += Int64(count)
        }
        return out
    }
}
