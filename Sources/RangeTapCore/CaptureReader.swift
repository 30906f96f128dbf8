import Foundation
import RangeTapSystem

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
    /// The size of `body.bin` when last looked at (it only grows).
    private var bodyLengthSeen: Int64 = 0

    /// Opens a capture; accepts the directory or its `events.jsonl`.
    public init(path: String) throws(CaptureError) {
        var dir = path
        if dir.hasSuffix("/events.jsonl") { dir = String(dir.dropLast("/events.jsonl".count)) }
        while dir.count > 1 && dir.hasSuffix("/") { dir.removeLast() }
        self.path = dir
        let eventsPath = dir + "/events.jsonl"
        // Opening a FIFO for reading waits for a writer: every reader (and serve) would hang.
        if let kind = Self.notRegular(eventsPath) {
            throw .cannotOpen(path: dir, reason: "its events.jsonl is \(kind), not a regular file")
        }
        guard let handle = FileHandle(forReadingAtPath: eventsPath) else {
            throw .cannotOpen(
                path: dir,
                reason: FileManager.default.fileExists(atPath: dir)
                    ? "it has no readable events.jsonl" : "no such file or directory")
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
        if let kind = Self.notRegular(path + "/events.jsonl") {
            throw CaptureError.cannotOpen(path: path, reason: "its events.jsonl is \(kind), not a regular file")
        }
        if FileManager.default.fileExists(atPath: path + "/body.bin"), let kind = Self.notRegular(path + "/body.bin") {
            throw CaptureError.cannotOpen(path: path, reason: "its body.bin is \(kind), not a regular file")
        }
        guard let handle = FileHandle(forReadingAtPath: path + "/events.jsonl") else {
            throw CaptureError.cannotOpen(path: path, reason: "events.jsonl disappeared")
        }
        defer { try? handle.close() }
        let decoder = JSONDecoder()
        var lines = LineBuffer()
        var lineNumber = 0
        let checkBody = header.bodies && FileManager.default.fileExists(atPath: path + "/body.bin")
        truncatedTail = false
        while true {
            let block = try handle.read(upToCount: 1 << 20) ?? Data()
            if block.isEmpty { break }
            lines.append(block)
            if lines.pendingCount > Self.maxLine {
                // No event is near this long (a 100 MB header line is read); a longer one would
                // only grow the reader's memory with the file.
                throw CaptureError.malformedEvent(
                    line: lineNumber + 1,
                    reason:
                        "longer than \(Self.maxLine >> 20) MiB without a line end: this is no capture's event line (the file is damaged or not a capture)"
                )
            }
            while let line = lines.nextLine() {
                lineNumber += 1
                guard lineNumber > 1, !line.isEmpty,
                    let e = try CaptureEvent.decode(jsonLine: line, lineNumber: lineNumber, decoder: decoder)
                else { continue }
                // Decoding checked that `at + size` fits.
                if checkBody, case .chunk(let c) = e, let at = c.bodyOffset, !bodyHolds(at + Int64(c.size)) {
                    throw CaptureError.malformedEvent(
                        line: lineNumber,
                        reason:
                            "field \"size\" (\(c.size) bytes at \"at\" \(at)) reaches past the end of body.bin (\(bodyLengthSeen) bytes)"
                    )
                }
                try body(e)
            }
        }
        truncatedTail = lines.pendingCount > 0
    }

    /// The longest event line read (a line of 100 MB, a header line that long, is read).
    public static let maxLine = 256 << 20

    /// What `path` is when it exists and is no regular file ("a FIFO", "a directory", …); nil
    /// for a regular file or nothing there (a symbolic link is followed).
    static func notRegular(_ path: String) -> String? {
        switch System.status(path)?.kind {
        case nil, .regular: return nil
        case .directory: return "a directory"
        case .fifo: return "a FIFO"
        case .socket: return "a socket"
        case .device: return "a device"
        case .other: return "not a file"
        }
    }

    /// Whether `body.bin` has at least `end` bytes; looks at the file again only when the
    /// size last seen is too small (it is written before the lines that point at it).
    private func bodyHolds(_ end: Int64) -> Bool {
        if end <= bodyLengthSeen { return true }
        if let size = System.status(path + "/body.bin")?.size { bodyLengthSeen = size }
        return end <= bodyLengthSeen
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
        if bodyHandle == nil {
            if let kind = Self.notRegular(path + "/body.bin") {
                throw .cannotOpen(path: path, reason: "its body.bin is \(kind), not a regular file")
            }
            bodyHandle = FileHandle(forReadingAtPath: path + "/body.bin")
        }
        guard let handle = bodyHandle else { throw .cannotOpen(path: path, reason: "it has no readable body.bin") }
        // Never seek to a negative offset or allocate for a size body.bin cannot hold.
        guard at >= 0, chunk.size >= 0, let end = at.addingChecked(Int64(chunk.size)), bodyHolds(end) else {
            throw .bodyOutOfRange(path: path, offset: at, size: chunk.size)
        }
        do {
            try handle.seek(toOffset: UInt64(at))
            let data = try handle.read(upToCount: chunk.size) ?? Data()
            guard data.count == chunk.size else {
                throw CaptureError.bodyOutOfRange(path: path, offset: at, size: chunk.size)
            }
            return data
        } catch let e as CaptureError {
            throw e
        } catch {
            throw .bodyOutOfRange(path: path, offset: at, size: chunk.size)
        }
    }

    deinit { try? bodyHandle?.close() }
}
