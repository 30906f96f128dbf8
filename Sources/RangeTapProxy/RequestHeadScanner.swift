import Foundation
import RangeTapCore

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

    enum State: Equatable {
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
    /// The line being read in the chunk-size and trailer states.
    private var line: [UInt8] = []
    private var head: [UInt8] = []
    /// Where the head line being read starts in `head`.
    private var headLineStart = 0

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
                if b == 10 || remaining == 1 {
                    state = .chunkSize
                } else {
                    state = .chunkDataEnd(remaining: remaining - 1)
                }
            case .chunkSize, .trailers:
                if passStart == nil { passStart = i }
                let b = bytes[i]
                i += 1
                line.append(b)
                if b == 10 { endLine(&out) }
            case .head:
                closePass(i)
                // A line at a time: up to and with the next LF, or to the end of the input.
                let lf = memchr(bytes.baseAddress! + i, 10, bytes.count - i)
                let runEnd = lf.map { bytes.baseAddress!.distance(to: UnsafeRawPointer($0)) + 1 } ?? bytes.count
                let room = Self.maxHeadBytes - head.count
                if runEnd - i > room {
                    // Too long to be a head rangetap keeps: the byte past the limit (never the
                    // LF, which lies further on) ends it; hand it on and stop looking.
                    head.append(contentsOf: bytes[i..<(i + room)])
                    out.append(.held(head + [bytes[i + room]]))
                    head.removeAll()
                    headLineStart = 0
                    state = .opaque
                    i += room + 1
                    continue
                }
                head.append(contentsOf: bytes[i..<runEnd])
                i = runEnd
                if lf != nil { headLineEnded(&out) }
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

    /// A head line ended with the LF last in `head`. It matters only for whether it is empty
    /// (nothing before its CRLF or LF), read where it stands in `head`, with no copy.
    private mutating func headLineEnded(_ out: inout [Segment]) {
        let length = head.count - headLineStart
        let isEmpty = length == 1 || (length == 2 && head[headLineStart] == 13)
        headLineStart = head.count
        // Empty lines before a request line are ignored (RFC 9112 §2.2).
        if isEmpty && head.count <= 2 {
            head.removeAll(keepingCapacity: true)
            headLineStart = 0
            return
        }
        guard isEmpty else { return }
        let done = head
        head.removeAll(keepingCapacity: true)
        headLineStart = 0
        out.append(.head(raw: done))
        state = Self.framing(of: done)
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

    /// How the body after `head` is framed. Reads bytes: lines end at CR, LF or CRLF; names
    /// compare ignoring ASCII case; a value with a byte above 0x7F is read as text, with
    /// Foundation's whitespace trimming, which knows non-ASCII spaces.
    static func framing(of head: [UInt8]) -> State {
        head.withUnsafeBufferPointer { bytes -> State in
            var length: Int64?
            var chunked = false
            var isRequestLine = true
            var start = 0
            while start < bytes.count {
                var end = start
                while end < bytes.count, bytes[end] != 13, bytes[end] != 10 { end += 1 }
                defer { start = end + 1 }
                guard end > start else { continue }
                let line = UnsafeBufferPointer(rebasing: bytes[start..<end])
                if isRequestLine {
                    isRequestLine = false
                    if line.count >= 8, HeaderByte.equalsIgnoringASCIICase(line[0..<7], "CONNECT".utf8), line[7] == 32 {
                        return .opaque
                    }
                    continue
                }
                guard let colon = line.firstIndex(of: 58) else { continue }
                let name = line[..<colon]
                let isTE = HeaderByte.equalsIgnoringASCIICase(name, "transfer-encoding".utf8)
                guard isTE || HeaderByte.equalsIgnoringASCIICase(name, "content-length".utf8) else { continue }
                let value = line[(colon + 1)...]
                if value.contains(where: { $0 >= 0x80 }) {
                    let text = String(decoding: value, as: UTF8.self)
                    if isTE { chunked = Self.lastCodingIsChunked(text) } else { length = Self.length(text) }
                    continue
                }
                if isTE {
                    // The last coding: after the last comma that has something after it (empty
                    // list elements do not count), without SP/HTAB around it.
                    var list = Self.trimmed(value)
                    while list.last == 44 { list = list.dropLast() }
                    let last = list.lastIndex(of: 44).map { list[($0 + 1)...] } ?? list
                    chunked = !list.isEmpty && HeaderByte.equalsIgnoringASCIICase(Self.trimmed(last), "chunked".utf8)
                } else {
                    length = Int64(String(decoding: Self.trimmed(value), as: UTF8.self))
                }
            }
            if chunked { return .chunkSize }
            if let length, length > 0 { return .body(remaining: length) }
            return .head
        }
    }

    /// `bytes` without SP and HTAB at either end.
    private static func trimmed(_ bytes: Slice<UnsafeBufferPointer<UInt8>>) -> Slice<UnsafeBufferPointer<UInt8>> {
        var s = bytes
        while let f = s.first, f == 32 || f == 9 { s = s.dropFirst() }
        while let l = s.last, l == 32 || l == 9 { s = s.dropLast() }
        return s
    }

    /// A `Transfer-Encoding` value read as text: its last coding is `chunked`.
    private static func lastCodingIsChunked(_ value: String) -> Bool {
        let v = value.trimmingCharacters(in: .whitespaces).lowercased()
        return v.split(separator: ",").last.map { $0.trimmingCharacters(in: .whitespaces) == "chunked" } ?? false
    }

    /// A `Content-Length` value read as text.
    private static func length(_ value: String) -> Int64? {
        Int64(value.trimmingCharacters(in: .whitespaces).lowercased())
    }
}
