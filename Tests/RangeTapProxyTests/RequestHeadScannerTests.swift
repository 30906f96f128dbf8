@testable import RangeTapProxy
import Testing

@Suite("RequestHeadScanner")
struct RequestHeadScannerTests {
    private func scan(_ pieces: [String]) -> (heads: [String], passed: String) {
        var scanner = RequestHeadScanner()
        var heads: [String] = []
        var passed: [UInt8] = []
        for piece in pieces {
            let bytes = Array(piece.utf8)
            for segment in bytes.withUnsafeBytes({ scanner.feed($0) }) {
                switch segment {
                case .pass(let r): passed += bytes[r]
                case .head(let raw): heads.append(String(decoding: raw, as: UTF8.self))
                case .held(let b): passed += b
                }
            }
        }
        return (heads, String(decoding: passed, as: UTF8.self))
    }

    @Test func pipelinedRequestsWithLengthAndChunkedBodiesGiveEachHeadOnce() {
        let a = "POST /a HTTP/1.1\r\nContent-Length: 5\r\n\r\n"
        let b = "PUT /b HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n"
        let c = "GET /c HTTP/1.1\nX: 1\n\n"
        let stream = a + "12345" + b + "3;ext=1\r\nabc\r\n0\r\nT: 1\r\n\r\n" + c
        // Whole, and one byte at a time: the same heads and the same body bytes passed.
        for pieces in [[stream], stream.map { String($0) }] {
            let r = scan(pieces)
            #expect(r.heads == [a, b, c])
            #expect(r.passed == "12345" + "3;ext=1\r\nabc\r\n0\r\nT: 1\r\n\r\n")
        }
    }

    @Test func afterConnectNothingIsScanned() {
        let r = scan(["CONNECT h:443 HTTP/1.1\r\nHost: h:443\r\n\r\n\u{16}\u{03}\u{01}GET / HTTP/1.1\r\n\r\n"])
        #expect(r.heads.count == 1)
        #expect(r.passed == "\u{16}\u{03}\u{01}GET / HTTP/1.1\r\n\r\n")
    }

    @Test func normalizedRepairsBareLFAndObsFoldOnly() {
        let raw = Array("GET / HTTP/1.1\nHost: h\r\nX-F: a\r\n\t b\r\nX-T:\tv \n\n".utf8)
        #expect(
            String(decoding: RequestHeadScanner.normalized(raw), as: UTF8.self)
                == "GET / HTTP/1.1\r\nHost: h\r\nX-F: a b\r\nX-T:\tv \r\n\r\n")
    }

    @Test func anOverlongHeadIsHandedOnUnkept() {
        let long = "GET / HTTP/1.1\r\nX: " + String(repeating: "a", count: RequestHeadScanner.maxHeadBytes) + "\r\n\r\n"
        let r = scan([long])
        #expect(r.heads.isEmpty)
        #expect(r.passed == long)
    }
}
