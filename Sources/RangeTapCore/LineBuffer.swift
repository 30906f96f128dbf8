import Foundation

/// Splits bytes that arrive in blocks into `\n`-terminated lines, in time linear in the
/// number of bytes: each byte is searched for a newline once, and the unfinished last line
/// is moved at most once per block (only when complete lines were taken before it).
struct LineBuffer {
    private var buffer = Data()
    /// Offset of the first byte of the current (unfinished) line.
    private var start = 0
    /// Bytes from `start` up to here hold no newline.
    private var searched = 0

    /// Adds a block read from the file.
    mutating func append(_ block: Data) {
        if start > 0 {
            buffer.removeSubrange(buffer.startIndex..<(buffer.startIndex + start))
            searched -= start
            start = 0
        }
        buffer.append(block)
    }

    /// The next complete line, without its `\n`; nil when the rest has no newline yet.
    mutating func nextLine() -> Data? {
        let from = max(start, searched)
        let found: Int? = buffer.withUnsafeBytes { raw in
            guard from < raw.count, let base = raw.baseAddress else { return nil }
            guard let hit = memchr(base + from, 0x0A, raw.count - from) else { return nil }
            return base.distance(to: UnsafeRawPointer(hit))
        }
        guard let nl = found else {
            searched = buffer.count
            return nil
        }
        let line = buffer[(buffer.startIndex + start)..<(buffer.startIndex + nl)]
        start = nl + 1
        searched = start
        return line
    }

    /// Bytes of the unfinished last line.
    var pendingCount: Int { buffer.count - start }
}
