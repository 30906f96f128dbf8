import Foundation

/// Finds request heads in the raw bytes a client sends, exactly as sent, by following HTTP/1.1
/// message framing (Content-Length bodies, chunked bodies, CONNECT): what NIO's decoder parses
/// into values, this keeps as bytes, so the capture records the head the client sent and the
/// proxy forwards its lines untouched. A value type with no I/O.
///
/// It only needs to agree with the decoder on well-formed messages: a message the decoder
/// rejects ends the connection anyway.
struct RequestHeadScanner {
    /// Longest head kept; a longer one is not captured raw (the decoder refuses it too).
    static let maxHeadBytes = 1 << 20

    private enum State {
        case head
        case body(remaining: Int64)
        case chunkSize
        case chunkData(remaining: Int64)
        case chunkDataEnd(remaining: Int)
        case trailers
        /// After CONNECT or an unreadable framing: bytes are no longer HTTP messages.
        case opaque
    }

    private var state: State = .head
    private var line: [UInt8] = []
    private var head: [UInt8] = []

    /// Whether part of a request head has arrived and the rest has not.
    var isInsideHead: Bool {
        if case .head = state { return !head.isEmpty }
        return false
    }

    /// What the decoder is to get for some input bytes.
    enum Segment: Equatable {
        /// Input bytes (by offset in the fed collection) to pass on unchanged: bodies, chunk framing.
        case pass(Range<Int>)
        /// A complete request head: `raw` as received, for the capture and the upstream.
        case head(raw: [UInt8])
        /// Head bytes held back and then given up on (too long): pass them on as they were.
        case held([UInt8])
    }

    /// Feeds bytes in arrival order. Head bytes are held back until the head is complete (a
    /// head is no use to the decoder before); everything else passes at once.
    mutating func feed(_ bytes: UnsafeRawBufferPointer) -> [Segment] {
        var out: [Segment] = []
        var i = 0
        var passStart: Int?
        func closePass(_ end: Int) {
            if let start = passStart, end > start { out.append(.pass(start..<end)) }
            passStart = nil
        }
        while i < bytes.count {
            switch state {
            case .opaque:
                if passStart == nil { passStart = i }
                i = bytes.count
            case .body(let remaining):
                if passStart == nil { passStart = i }
                let n = min(Int64(bytes.count - i), remaining)
                i += Int(n)
                state = remaining - n == 0 ? .head : .body(remaining: remaining - n)
            case .chunkData(let remaining):
                if passStart == nil { passStart = i }
                let n = min(Int64(bytes.count - i), remaining)
                i += Int(n)
                state = remaining - n == 0 ? .chunkDataEnd(remaining: 2) : .chunkData(remaining: remaining - n)
            case .chunkDataEnd(let remaining):
                if passStart == nil { passStart = i }
                let b = bytes[i]
                i += 1
                if b == 10 || remaining == 1 { state = .chunkSize } else { state = .chunkDataEnd(remaining: remaining - 1) }
            case .chunkSize, .trailers:
                if passStart == nil { passStart = i }
                let b = bytes[i]
                i += 1
                line.append(b)
                if b == 10 { endLine(&out) }
            case .head:
                closePass(i)
                let b = bytes[i]
                i += 1
                if head.count < Self.maxHeadBytes {
                    head.append(b)
                } else {
                    // Too long to be a head rangetap keeps: hand it on and stop looking.
                    out.append(.held(head + [b]))
                    head.removeAll()
                    line.removeAll()
                    state = .opaque
                    continue
                }
                line.append(b)
                if b == 10 { endLine(&out) }
            }
        }
        closePass(bytes.count)
        return out
    }

    private mutating func endLine(_ out: inout [Segment]) {
        var end = line.count - 1
        if end > 0 && line[end - 1] == 13 { end -= 1 }
        let content = Array(line[..<end])
        line.removeAll(keepingCapacity: true)
        lineEnded(content, out: &out)
    }

    /// A head as NIO's strict decoder accepts it: bare LF line ends made CRLF (RFC 9112 §2.2
    /// lets a recipient accept them) and obs-folds replaced by one SP (§5.2). Other bytes as sent.
    static func normalized(_ raw: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(raw.count + 16)
        var lineStart = true
        var inFold = false
        for b in raw {
            if (lineStart || inFold) && (b == 32 || b == 9) {
                if lineStart && !out.isEmpty {
                    // A continuation: the line end just written and all this whitespace become one SP.
                    while let last = out.last, last == 10 || last == 13 { out.removeLast() }
                    out.append(32)
                    inFold = true
                }
                lineStart = false
                continue
            }
            inFold = false
            lineStart = false
            if b == 10 {
                if out.last != 13 { out.append(13) }
                out.append(10)
                lineStart = true
            } else {
                out.append(b)
            }
        }
        return out
    }

    private mutating func lineEnded(_ content: [UInt8], out: inout [Segment]) {
        switch state {
        case .head:
            // Empty lines before a request line are ignored (RFC 9112 §2.2).
            if content.isEmpty && head.count <= 2 {
                head.removeAll(keepingCapacity: true)
                return
            }
            guard content.isEmpty else { return }
            let done = head
            head.removeAll(keepingCapacity: true)
            out.append(.head(raw: done))
            state = Self.framing(of: done)
        case .chunkSize:
            let hex = content.prefix { $0 != 59 && $0 != 32 && $0 != 9 }  // up to ';' or whitespace
            guard let size = Int64(String(decoding: hex, as: UTF8.self), radix: 16), size >= 0 else {
                state = .opaque
                return
            }
            state = size == 0 ? .trailers : .chunkData(remaining: size)
        case .trailers:
            if content.isEmpty { state = .head }
        default:
            break
        }
    }

    /// How the body after `head` is framed.
    private static func framing(of head: [UInt8]) -> State {
        let text = String(decoding: head, as: UTF8.self)
        var lines = text.split(omittingEmptySubsequences: true, whereSeparator: { $0 == "\n" || $0 == "\r\n" || $0 == "\r" })
        guard let requestLine = lines.first else { return .head }
        lines.removeFirst()
        if requestLine.uppercased().hasPrefix("CONNECT ") { return .opaque }
        var length: Int64?
        var chunked = false
        for l in lines {
            guard let colon = l.firstIndex(of: ":") else { continue }
            let name = l[..<colon].lowercased()
            let value = l[l.index(after: colon)...].trimmingCharacters(in: .whitespaces).lowercased()
            if name == "transfer-encoding" {
                chunked = value.split(separator: ",").last.map { $0.trimmingCharacters(in: .whitespaces) == "chunked" } ?? false
            } else if name == "content-length" {
                length = Int64(value)
            }
        }
        if chunked { return .chunkSize }
        if let length, length > 0 { return .body(remaining: length) }
        return .head
    }
}
