import RangeTapCore
import Testing

/// Found while fuzzing (issue 10): with no CRLF delimiter in the body, every part searched for
/// one to the end of the body, so N parts separated by bare LFs took N² steps.
@Suite("MultipartByteranges scaling")
struct MultipartByterangesScalingTests {
    @Test func manyBareLFPartsTakeLinearTime() throws {
        let count = 20_000
        let body = Array((String(repeating: "--B\nContent-Range: bytes 0-0/1\n\nx\n", count: count) + "--B--\n").utf8)
        let clock = ContinuousClock()
        var result: Result<MultipartByteranges, MultipartError>?
        let elapsed = clock.measure { result = MultipartByteranges.parse(body, boundary: "B") }
        let parts = try #require(try result?.get()).parts
        #expect(parts.count == count)
        #expect(parts.allSatisfy { $0.body == [UInt8(ascii: "x")] && $0.contentRange == "bytes 0-0/1" })
        // Quadratic, this took minutes in a debug build; linear, well under a second.
        #expect(elapsed < .seconds(20))
    }

    @Test func aCRLFDelimiterStillWinsOverAnEarlierBareLFLookalike() throws {
        let body = Array("--B\r\nContent-Range: bytes 0-5/7\r\n\r\na\n--Bx\r\n--B\r\nContent-Range: bytes 6-6/7\r\n\r\nb\r\n--B--\r\n".utf8)
        let parts = try MultipartByteranges.parse(body, boundary: "B").get().parts
        #expect(parts.map(\.body) == [Array("a\n--Bx".utf8), Array("b".utf8)])
        #expect(parts.map(\.contentRange) == ["bytes 0-5/7", "bytes 6-6/7"])
    }
}
