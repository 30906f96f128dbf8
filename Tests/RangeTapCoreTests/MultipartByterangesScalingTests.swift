@testable import RangeTapCore
import Testing

/// Found while fuzzing (issue 10): with no CRLF delimiter in the body, every part searched for
/// one to the end of the body, so N parts separated by bare LFs took N² steps.
@Suite("MultipartByteranges scaling")
struct MultipartByterangesScalingTests {
    @Test func manyBareLFPartsTakeLinearTime() throws {
        let count = 20_000
        let body = Array((String(repeating: "--B\nContent-Range: bytes 0-0/1\n\nx\n", count: count) + "--B--\n").utf8)
        var scanned = 0
        let parts = try MultipartByteranges.parse(body, boundary: "B", scanned: &scanned).get().parts
        #expect(parts.count == count)
        #expect(parts.allSatisfy { $0.body == [UInt8(ascii: "x")] && $0.contentRange == "bytes 0-0/1" })
        // Counted, not timed: quadratic, the delimiter searches looked at about count/2 times
        // the body (each part searched to the end for a CRLF delimiter); linear, at most twice
        // it (one pass per delimiter kind).
        #expect(
            scanned <= 2 * body.count,
            "the delimiter searches looked at \(scanned) offsets of a \(body.count)-byte body")
    }

    @Test func aCRLFDelimiterStillWinsOverAnEarlierBareLFLookalike() throws {
        let body = Array(
            "--B\r\nContent-Range: bytes 0-5/7\r\n\r\na\n--Bx\r\n--B\r\nContent-Range: bytes 6-6/7\r\n\r\nb\r\n--B--\r\n"
                .utf8)
        let parts = try MultipartByteranges.parse(body, boundary: "B").get().parts
        #expect(parts.map(\.body) == [Array("a\n--Bx".utf8), Array("b".utf8)])
        #expect(parts.map(\.contentRange) == ["bytes 0-5/7", "bytes 6-6/7"])
    }
}
