import Foundation
import RangeTapCore
@testable import RangeTapProxy
import Testing

/// `RequestHeadScanner.framing(of:)` reads a head's bytes; it must frame every head as the
/// reading on Swift strings it replaced (kept here as the reference) did.
@Suite("RequestHeadScanner framing")
struct RequestHeadFramingTests {
    /// The reading before: the head decoded, split into Characters, names and values lowercased
    /// and trimmed with Foundation.
    static func reference(_ head: [UInt8]) -> RequestHeadScanner.State {
        let text = String(decoding: head, as: UTF8.self)
        var lines = text.split(
            omittingEmptySubsequences: true, whereSeparator: { $0 == "\n" || $0 == "\r\n" || $0 == "\r" })
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
                chunked =
                    value.split(separator: ",").last.map { $0.trimmingCharacters(in: .whitespaces) == "chunked" }
                    ?? false
            } else if name == "content-length" {
                length = Int64(value)
            }
        }
        if chunked { return .chunkSize }
        if let length, length > 0 { return .body(remaining: length) }
        return .head
    }

    @Test(arguments: [
        ("GET / HTTP/1.1\r\nHost: a\r\n\r\n", RequestHeadScanner.State.head),
        ("POST / HTTP/1.1\r\nContent-Length: 12\r\n\r\n", .body(remaining: 12)),
        ("POST / HTTP/1.1\r\ncontent-LENGTH:\t 7 \t\r\n\r\n", .body(remaining: 7)),
        ("POST / HTTP/1.1\r\nContent-Length: +5\r\n\r\n", .body(remaining: 5)),
        ("POST / HTTP/1.1\r\nContent-Length: -5\r\n\r\n", .head),
        ("POST / HTTP/1.1\r\nContent-Length: 99999999999999999999\r\n\r\n", .head),
        ("POST / HTTP/1.1\r\nContent-Length:\u{A0}9\r\n\r\n", .body(remaining: 9)),
        ("POST / HTTP/1.1\r\nTransfer-Encoding: gzip, Chunked \r\n\r\n", .chunkSize),
        ("POST / HTTP/1.1\r\nTransfer-Encoding: chunked, gzip\r\n\r\n", .head),
        ("POST / HTTP/1.1\nTransfer-Encoding: chunked\nTransfer-Encoding: identity\n\n", .head),
        ("POST / HTTP/1.1\rContent-Length: 3\r\r", .body(remaining: 3)),
        ("connect a:443 HTTP/1.1\r\nHost: a:443\r\n\r\n", .opaque),
        ("CONNECTa:443 HTTP/1.1\r\n\r\n", .head),
        ("\r\n\r\nPOST / HTTP/1.1\r\nContent-Length: 4\r\n\r\n", .body(remaining: 4)),
    ])
    func knownHeads(head: String, expected: RequestHeadScanner.State) {
        let bytes = Array(head.utf8)
        #expect(RequestHeadScanner.framing(of: bytes) == expected)
        #expect(Self.reference(bytes) == expected)
    }

    /// 20,000 random heads built from the pieces that decide framing, with every kind of line
    /// ending, case, whitespace, sign, comma, non-ASCII spaces and letters, and invalid UTF-8.
    @Test func randomHeadsAreFramedAsTheStringReadingFramedThem() {
        var rng = SeededGenerator(seed: 0xF4A_3161)
        let requestLines = [
            "GET / HTTP/1.1", "POST /u HTTP/1.1", "CONNECT h:443 HTTP/1.1", "connect h:443 HTTP/1.1",
            "Connect  h HTTP/1.1", "CONNECT", "CONNECTx h HTTP/1.1", "PUT /ı HTTP/1.1", "",
        ]
        let names = [
            "Content-Length", "content-length", "CONTENT-LENGTH", "Transfer-Encoding", "transfer-encoding",
            "TrAnSfEr-EnCoDiNg", "Content-Lengths", "Host", "X-K\u{212A}", "Content-Length ", " Content-Length",
            "Trans\u{FF}fer-Encoding",
        ]
        let values = [
            "5", "0", "12", "+7", "-3", "007", "1 2", "", " ", "chunked", "Chunked", "gzip, chunked", "chunked , gzip",
            "chunked,", ",chunked", "gzip,\tchunked\t", "\u{A0}42", "42\u{3000}", "4\u{0301}", "9223372036854775807",
            "9223372036854775808", "-9223372036854775808", "ch\u{FF}unked", "x",
        ]
        let endings: [[UInt8]] = [[13, 10], [10], [13], [13, 13, 10], [10, 13]]
        for _ in 0..<20_000 {
            var head: [UInt8] = []
            if Int.random(in: 0..<10, using: &rng) == 0 { head += [13, 10] }
            head += Array(requestLines.randomElement(using: &rng)!.utf8)
            head += endings.randomElement(using: &rng)!
            for _ in 0..<Int.random(in: 0...4, using: &rng) {
                var line = Array(names.randomElement(using: &rng)!.utf8)
                if Int.random(in: 0..<12, using: &rng) != 0 { line.append(58) }
                for _ in 0..<Int.random(in: 0...2, using: &rng) { line.append([32, 9].randomElement(using: &rng)!) }
                line += Array(values.randomElement(using: &rng)!.utf8)
                if Int.random(in: 0..<8, using: &rng) == 0 {
                    line.append([32, 9, 0xC2, 0xFF].randomElement(using: &rng)!)
                }
                head += line
                head += endings.randomElement(using: &rng)!
            }
            head += [13, 10]
            let got = RequestHeadScanner.framing(of: head)
            let want = Self.reference(head)
            #expect(got == want, "\(String(decoding: head, as: UTF8.self).debugDescription)")
            if got != want { return }
        }
    }
}
