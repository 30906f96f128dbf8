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
    private var overflow = false

    /// Feeds bytes in arrival order; returns the heads they completed, each with its blank line.
    mutating func feed(_ bytes: some Collection<UInt8>) -> [[UInt8]] {
        var heads: [[UInt8]] = []
        var i = bytes.startIndex
        while i != bytes.endIndex {
            switch state {
            case .opaque:
                return heads
            case .body(let remaining):
                let n = min(Int64(bytes.distance(from: i, to: bytes.endIndex)), remaining)
                i = bytes.index(i, offsetBy: Int(n))
                state = remaining - n == 0 ? .head : .body(remaining: remaining - n)
            case .chunkData(let remaining):
                let n = min(Int64(bytes.distance(from: i, to: bytes.endIndex)), remaining)
                i = bytes.index(i, offsetBy: Int(n))
                state = remaining - n == 0 ? .chunkDataEnd(remaining: 2) : .chunkData(remaining: remaining - n)
            case .chunkDataEnd(let remaining):
                // CRLF (or a bare LF) after chunk data.
                let b = bytes[i]
                i = bytes.index(after: i)
                if b == 10 || remaining == 1 { state = .chunkSize } else { state = .chunkDataEnd(remaining: remaining - 1) }
            case .head, .chunkSize, .trailers:
                let b = bytes[i]
                i = bytes.index(after: i)
                if case .head = state {
                    if head.count < Self.maxHeadBytes { head.append(b) } else { overflow = true }
                }
                line.append(b)
                guard b == 10 else { continue }
                var end = line.count - 1
                if end > 0 && line[end - 1] == 13 { end -= 1 }
                let content = Array(line[..<end])
                line.removeAll(keepingCapacity: true)
                lineEnded(content, heads: &heads)
            }
        }
        return heads
    }

    private mutating func lineEnded(_ content: [UInt8], heads: inout [[UInt8]]) {
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
            if overflow {
                overflow = false
                state = .opaque
                return
            }
            heads.append(done)
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
