import Foundation

/// Files of a file-backed cache in one directory, with a capacity and oldest-first eviction.
///
/// The files never hold more than the capacity once ``update(_:path:bytes:)`` returns: older
/// entries are evicted first, and an entry that alone exceeds the capacity is refused (its file
/// deleted, its key remembered in ``refused`` so the strategy stores no more of it).
final class CacheStorage {
    /// One evictable entry: a file and the bytes it holds.
    struct Entry {
        var key: String
        var path: String
        var bytes: Int64
        var created: Int
    }

    let directory: String
    let capacity: Int64
    private(set) var entries: [String: Entry] = [:]
    private var sequence = 0
    private(set) var evictions = 0
    /// Keys refused because they alone exceed the capacity, with the bytes they had reached.
    private(set) var refused: [String: Int64] = [:]
    /// Called when an entry is evicted, so the strategy can forget its index.
    var onEvict: ((String) -> Void)?

    init(directory: String, capacity: Int64) throws {
        self.directory = directory
        self.capacity = capacity
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    /// A file name for a key (a URL plus a suffix), safe on any file system.
    func path(for key: String) -> String {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in key.utf8 {
            h ^= UInt64(b)
            h = h &* 0x100_0000_01b3
        }
        return directory + "/" + String(h, radix: 16)
    }

    /// Records that `key`'s file now holds `bytes`, then evicts oldest entries while over capacity
    /// (never the entry just touched). An entry larger than the whole capacity is refused instead:
    /// its file is deleted and ``isRefused(_:)`` answers true from then on. Returns whether the
    /// entry is kept.
    @discardableResult
    func update(_ key: String, path: String, bytes: Int64) -> Bool {
        if bytes > capacity {
            if entries[key] == nil { try? FileManager.default.removeItem(atPath: path) }
            remove(key)
            refused[key] = max(bytes, refused[key] ?? 0)
            onEvict?(key)
            return false
        }
        if entries[key] == nil {
            sequence += 1
            entries[key] = Entry(key: key, path: path, bytes: bytes, created: sequence)
        } else {
            entries[key]!.bytes = bytes
        }
        var total = entries.values.map(\.bytes).saturatingSum()
        while total > capacity,
            let oldest = entries.values.filter({ $0.key != key }).min(by: { $0.created < $1.created })
        {
            remove(oldest.key)
            evictions += 1
            total -= oldest.bytes
            onEvict?(oldest.key)
        }
        return true
    }

    /// Whether `key` was refused for exceeding the capacity on its own.
    func isRefused(_ key: String) -> Bool { refused[key] != nil }

    /// Deletes an entry and its file.
    func remove(_ key: String) {
        guard let e = entries.removeValue(forKey: key) else { return }
        try? FileManager.default.removeItem(atPath: e.path)
    }

    /// The file span `count` bytes at `offset` take, or an error when they lie outside any file.
    static func span(_ count: Int, at offset: Int64, path: String) throws -> Range<Int64> {
        guard offset >= 0, let end = offset.addingChecked(Int64(count)) else {
            throw ReplayError.cacheIO("cannot write \(count) bytes at offset \(offset) of \(path): not a file offset")
        }
        return offset..<end
    }

    /// Writes `bytes` at `offset` of the file at `path` (created if missing; holes stay sparse).
    static func write(_ bytes: Data, at offset: Int64, path: String) throws {
        if !FileManager.default.fileExists(atPath: path) {
            guard FileManager.default.createFile(atPath: path, contents: nil) else {
                throw ReplayError.cacheIO("cannot create \(path)")
            }
        }
        _ = try span(bytes.count, at: offset, path: path)
        guard let h = FileHandle(forWritingAtPath: path) else {
            throw ReplayError.cacheIO("cannot open \(path) for writing")
        }
        defer { try? h.close() }
        try h.seek(toOffset: UInt64(offset))
        try h.write(contentsOf: bytes)
    }

    /// Reads `count` bytes at `offset` of the file at `path` (fewer at its end).
    static func read(_ count: Int, at offset: Int64, path: String) throws -> Data {
        guard count > 0 else { return Data() }
        guard offset >= 0 else {
            throw ReplayError.cacheIO("cannot read at offset \(offset) of \(path): not a file offset")
        }
        guard let h = FileHandle(forReadingAtPath: path) else { return Data() }
        defer { try? h.close() }
        try h.seek(toOffset: UInt64(offset))
        return try h.read(upToCount: count) ?? Data()
    }
}
