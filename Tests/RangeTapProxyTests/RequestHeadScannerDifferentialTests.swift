@testable import RangeTapProxy
import RangeTapCore
import Testing

/// `RequestHeadScanner.feed` reads a head a line at a time (`memchr` for the LF, one append per
/// line, no copy of a head line); it used to read it a byte at a time. This holds it to the
/// byte-at-a-time reading, kept here as ``Reference``, on random request streams cut into random
/// pieces: the same segments, in the same order, piece by piece.
@Suite("RequestHeadScanner, line at a time against byte at a time")
struct RequestHeadScannerDifferentialTests {
    /// The scanner's `feed` as it read head bytes before (its other states unchanged).
    struct Reference {
        var state: RequestHeadScanner.State = .head
        var line: [UInt8] = []
        var head: [UInt8] = []
        let maxHeadBytes: Int

        mutating func feed(_ bytes: [UInt8]) -> [RequestHeadScanner.Segment] {
            var out: [RequestHeadScanner.Segment] = []
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
                    let b = bytes[i]
                    i += 1
                    if head.count < maxHeadBytes {
                        head.append(b)
                    } else {
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

        mutating func endLine(_ out: inout [RequestHeadScanner.Segment]) {
            var end = line.count - 1
            if end > 0 && line[end - 1] == 13 { end -= 1 }
            let content = Array(line[..<end])
            line.removeAll(keepingCapacity: true)
            switch state {
            case .head:
                if content.isEmpty && head.count <= 2 {
                    head.removeAll(keepingCapacity: true)
                    return
                }
                guard content.isEmpty else { return }
                let done = head
                head.removeAll(keepingCapacity: true)
                out.append(.head(raw: done))
                state = RequestHeadScanner.framing(of: done)
            case .chunkSize:
                let hex = content.prefix { $0 != 59 && $0 != 32 && $0 != 9 }
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
    }

    /// A random stream of requests: heads with random fields and line ends (CRLF, bare LF, bare
    /// CR, folds, empty lines before a request line), Content-Length and chunked bodies, the odd
    /// CONNECT, and random bytes.
    static func stream(_ g: inout SeededGenerator) -> [UInt8] {
        var out: [UInt8] = []
        let ends: [[UInt8]] = [[13, 10], [10], [13], [13, 13, 10]]
        func end() -> [UInt8] { Int.random(in: 0..<10, using: &g) < 7 ? [13, 10] : ends.randomElement(using: &g)! }
        func word() -> [UInt8] {
            let alphabet = Array("abcXYZ-:; \t,019é\u{7f}".utf8)
            return (0..<Int.random(in: 0...12, using: &g)).map { _ in alphabet.randomElement(using: &g)! }
        }
        for _ in 0..<Int.random(in: 1...6, using: &g) {
            if Int.random(in: 0..<8, using: &g) == 0 { out += end() }
            let method = ["GET", "POST", "PUT", "CONNECT", "get"].randomElement(using: &g)!
            out += Array("\(method) /\(Int.random(in: 0...99, using: &g)) HTTP/1.1".utf8) + end()
            var body: [UInt8] = []
            var chunked = false
            for _ in 0..<Int.random(in: 0...6, using: &g) {
                switch Int.random(in: 0..<6, using: &g) {
                case 0:
                    let n = Int.random(in: 0...40, using: &g)
                    out += Array("Content-Length: \(n)".utf8) + end()
                    body = (0..<n).map { _ in UInt8.random(in: 0...255, using: &g) }
                case 1:
                    out +=
                        Array(
                            "Transfer-Encoding: \(["chunked", "gzip, chunked", "chunked ,"].randomElement(using: &g)!)"
                                .utf8) + end()
                    chunked = true
                case 2:
                    out += Array(" folded".utf8) + end()
                default:
                    out += word() + Array(": ".utf8) + word() + end()
                }
            }
            out += end()
            if chunked && Bool.random(using: &g) {
                for _ in 0..<Int.random(in: 0...3, using: &g) {
                    let n = Int.random(in: 1...20, using: &g)
                    out += Array(String(n, radix: 16).utf8) + Array(";x=1\r\n".utf8)
                    out += (0..<n).map { _ in UInt8.random(in: 0...255, using: &g) } + [13, 10]
                }
                out += Array("0\r\n".utf8)
                if Bool.random(using: &g) { out += Array("T: 1\r\n".utf8) }
                out += [13, 10]
            } else {
                out += body
            }
            if Int.random(in: 0..<10, using: &g) == 0 {
                out += (0..<Int.random(in: 0...30, using: &g)).map { _ in UInt8.random(in: 0...255, using: &g) }
            }
        }
        return out
    }

    /// `bytes` cut at random places (single bytes among them).
    static func pieces(_ bytes: [UInt8], _ g: inout SeededGenerator) -> [[UInt8]] {
        var out: [[UInt8]] = []
        var i = 0
        while i < bytes.count {
            let n = min(bytes.count - i, [1, 2, 3, 7, 16, 64, 1000].randomElement(using: &g)!)
            out.append(Array(bytes[i..<(i + n)]))
            i += n
        }
        return out
    }

    @Test func everyStreamGivesTheSameSegmentsPieceByPiece() {
        var g = SeededGenerator(seed: 2511)
        for _ in 0..<3000 {
            let bytes = Self.stream(&g)
            var scanner = RequestHeadScanner()
            var reference = Reference(maxHeadBytes: RequestHeadScanner.maxHeadBytes)
            for piece in Self.pieces(bytes, &g) {
                let got = piece.withUnsafeBytes { scanner.feed($0) }
                let want = reference.feed(piece)
                #expect(got == want, "stream \(bytes) piece \(piece)")
                if got != want { return }
            }
            #expect(scanner.isInsideHead == (reference.state == .head && !reference.head.isEmpty))
        }
    }

    @Test func anOverlongHeadEndsAtTheSameByteInEveryCut() {
        let limit = RequestHeadScanner.maxHeadBytes
        // Heads around the limit (with extra = -2 the field line's LF is the limit's last byte),
        // whole and cut in two at each place near the limit: the byte past it is held back with
        // the head, then everything passes.
        for extra in [-3, -2, -1, 0, 1] {
            let long =
                Array("GET / HTTP/1.1\r\nX: ".utf8) + Array(repeating: UInt8(ascii: "a"), count: limit - 19 + extra)
                + Array("\r\n\r\nGET /b HTTP/1.1\r\n\r\n".utf8)
            for cut in [long.count] + Array((limit - 2)...(limit + 2)) {
                var scanner = RequestHeadScanner()
                var reference = Reference(maxHeadBytes: limit)
                for piece in [Array(long[..<cut]), Array(long[cut...])] where !piece.isEmpty {
                    let got = piece.withUnsafeBytes { scanner.feed($0) }
                    #expect(got == reference.feed(piece), "extra \(extra), cut at \(cut)")
                }
            }
        }
    }
}
