import Foundation

/// Reads a capture directory written by ``CaptureWriter``, also while it is still being
/// written or after the writer was killed: a last line without its newline is an unfinished
/// event and is left out (``truncatedTail`` tells).
public final class CaptureReader {
    /// The capture directory.
    public let path: String
    /// The header (first event).
    public private(set) var header: CaptureHeader
    /// Whether the last line of `events.jsonl` was incomplete when read.
    public private(set) var truncatedTail = false
    private var bodyHandle: FileHandle?

    /// Opens a capture; accepts the directory or its `events.jsonl`.
    public init(path: String) throws(CaptureError) {
        var dir = path
        if dir.hasSuffix("/events.jsonl") { dir = String(dir.dropLast("/events.jsonl".count)) }
        while dir.count > 1 && dir.hasSuffix("/") { dir.removeLast() }
        self.path = dir
        let eventsPath = dir + "/events.jsonl"
        guard let handle = FileHandle(forReadingAtPath: eventsPath) else {
            throw .cannotOpen(path: dir, reason: FileManager.default.fileExists(atPath: dir) ? "it has no readable events.jsonl" : "no such file or directory")
        }
        defer { try? handle.close() }
        let firstBlock = (try? handle.read(upToCount: 64 * 1024)) ?? Data()
        guard let nl = firstBlock.firstIndex(of: UInt8(ascii: "\n")),
              case .header(let h)? = try? CaptureEvent.decode(jsonLine: firstBlock[..<nl], lineNumber: 1)
        else { throw .noHeader(path: dir) }
        guard h.version <= CaptureHeader.currentVersion else { throw .unsupportedVersion(found: h.version) }
        header = h
    }

    /// Calls `body` with every complete event after the header, in file order, reading in
    /// blocks so memory does not grow with the capture.
    public func forEachEvent(_ body: (CaptureEvent) throws -> Void) throws {
        guard let handle = FileHandle(forReadingAtPath: path + "/events.jsonl") else {
            throw CaptureError.cannotOpen(path: path, reason: "events.jsonl disappeared")
        }
        defer { try? handle.close() }
        let decoder = JSONDecoder()
        var pending = Data()
        var lineNumber = 0
        truncatedTail = false
        while true {
            let block = try handle.read(upToCount: 1 << 20) ?? Data()
            if block.isEmpty { break }
            pending.append(block)
            var start = pending.startIndex
            while let nl = pending[start...].firstIndex(of: UInt8(ascii: "\n")) {
                lineNumber += 1
                if lineNumber > 1, nl > start,
                   let e = try CaptureEvent.decode(jsonLine: pending[start..<nl], lineNumber: lineNumber, decoder: decoder) {
                    try body(e)
                }
                start = pending.index(after: nl)
            }
            pending = Data(pending[start...])
        }
        truncatedTail = !pending.isEmpty
    }

    /// All complete events after the header.
    public func events() throws -> [CaptureEvent] {
        var all: [CaptureEvent] = []
        try forEachEvent { all.append($0) }
        return all
    }

    /// The recorded bytes of one chunk, read from `body.bin`.
    public func bytes(of chunk: ChunkEvent) throws(CaptureError) -> Data {
        guard header.bodies, let at = chunk.bodyOffset else { throw .bodiesNotRecorded(path: path) }
        if bodyHandle == nil { bodyHandle = FileHandle(forReadingAtPath: path + "/body.bin") }
        guard let handle = bodyHandle else { throw .cannotOpen(path: path, reason: "it has no readable body.bin") }
        do {
            try handle.seek(toOffset: UInt64(at))
            let data = try handle.read(upToCount: chunk.size) ?? Data()
            guard data.count == chunk.size else { throw CaptureError.bodyOutOfRange(path: path, offset: at, size: chunk.size) }
            return data
        } catch let e as CaptureError {
            throw e
        } catch {
            throw .bodyOutOfRange(path: path, offset: at, size: chunk.size)
        }
    }

    deinit { try? bodyHandle?.close() }
}
