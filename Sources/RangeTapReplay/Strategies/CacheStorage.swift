import Foundation

/// Files of a file-backed cache in one directory, with a capacity and oldest-first eviction.
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
    /// (never the entry just touched).
    func update(_ key: String, path: String, bytes: Int64) {
        if entries[key] == nil {
            sequence += 1
            entries[key] = Entry(key: key, path: path, bytes: bytes, created: sequence)
        } else {
            entries[key]!.bytes = bytes
        }
        var total = entries.values.map(\.bytes).saturatingSum()
        while total > capacity, let oldest = entries.values.filter({ $0.key != key }).min(by: { $0.created < $1.created }) {
            remove(oldest.key)
            evictions += 1
            total -= oldest.bytes
            onEvict?(oldest.key)
        }
    }

    /// Deletes an entry and its file.
    func remove(_ key: String) {
        guard let e = entries.removeValue(forKey: key) else { return }
        try? FileManager.default.removeItem(atPath: e.path)
    }

    /// Writes `bytes` at `offset` of the file at `path` (created if missing; holes stay sparse).
    static func write(_ bytes: Data, at offset: Int64, path: String) throws {
        if !FileManager.default.fileExists(atPath: path) {
            guard FileManager.default.createFile(atPath: path, contents: nil) else {
                throw ReplayError.cacheIO("cannot create \(path)")
            }
        }
        guard offset >= 0, offset.addingChecked(Int64(bytes.count)) != nil else {
            throw ReplayError.cacheIO("cannot write \(bytes.count) bytes at offset \(offset) of \(path): not a file offset")
        }
        guard let h = FileHandle(forWritingAtPath: path) else { throw ReplayError.cacheIO("cannot open \(path) for writing") }
        defer { try? h.close() }
        try h.seek(toOffset: UInt64(offset))
        try h.write(contentsOf: bytes)
    }

    /// Reads `count` bytes at `offset` of the file at `path` (fewer at its end).
    static func read(_ count: Int, at offset: Int64, path: String) throws -> Data {
        guard count > 0 else { return Data() }
        guard offset >= 0 else { throw ReplayError.cacheIO("cannot read at offset \(offset) of \(path): not a file offset") }
        guard let h = FileHandle(forReadingAtPath: path) else { return Data() }
        defer { try? h.close() }
        try h.seek(toOffset: UInt64(offset))
        return try h.read(upToCount: count) ?? Data()
    }
}
