import Testing
@testable import RangeTapProbe
import RangeTapCore

/// The pure parts of the probe, without sockets: dates, multipart bodies, the range plan.
@Suite struct ProbeUnitTests {
    @Test func imfFixdateRoundTrips() throws {
        let t = try #require(HTTPDate.parse("Sun, 06 Nov 1994 08:49:37 GMT"))
        #expect(t == 784_111_777)
        #expect(HTTPDate.format(t) == "Sun, 06 Nov 1994 08:49:37 GMT")
        #expect(HTTPDate.format(0) == "Thu, 01 Jan 1970 00:00:00 GMT")
        #expect(HTTPDate.parse("Sunday, 06-Nov-94 08:49:37 GMT") == nil, "RFC 850 form is obsolete")
        #expect(HTTPDate.parse("Mon, 06 Nov 1994 08:49:37 GMT") == nil, "weekday must agree")
        #expect(HTTPDate.parse("Sun Nov  6 08:49:37 1994") == nil, "asctime form is obsolete")
    }

    @Test func aDateIsStrongOnlyAMinuteAfterTheChange() {
        let lm = "Sun, 06 Nov 1994 08:49:37 GMT"
        let strong = DateStrength(lastModified: lm, date: "Sun, 06 Nov 1994 08:50:37 GMT")
        #expect(strong.age == 60)
        #expect(strong.weakness == nil)
        let young = DateStrength(lastModified: lm, date: "Sun, 06 Nov 1994 08:50:36 GMT")
        #expect(young.age == 59)
        #expect(young.weakness?.contains("only 59 s before the response's Date") == true)
        #expect(DateStrength(lastModified: lm, date: nil).weakness?.contains("no Date") == true)
        #expect(
            DateStrength(lastModified: lm, date: "yesterday").weakness?.contains("\"yesterday\" is not an IMF-fixdate")
                == true)
        #expect(
            DateStrength(lastModified: "Sunday, 06-Nov-94 08:49:37 GMT", date: "Sun, 06 Nov 1994 09:49:37 GMT")
                .weakness?.contains("is not an IMF-fixdate") == true)
    }

    @Test func multipartBodySplitsIntoParts() throws {
        let body = Array(
            "\r\n--XYZ\r\nContent-Type: video/mp4\r\nContent-Range: bytes 0-0/100\r\n\r\nA\r\n--XYZ\r\nContent-Range: bytes 5-7/100\r\n\r\nBCD\r\n--XYZ--\r\n"
                .utf8)
        let parsed = try MultipartByteranges.parse(body, boundary: "XYZ").get()
        #expect(parsed.parts.count == 2)
        #expect(parsed.parts[0].contentRange == "bytes 0-0/100")
        #expect(parsed.parts[0].body == Array("A".utf8))
        #expect(parsed.parts[1].body == Array("BCD".utf8))
        #expect(MultipartByteranges.boundary(contentType: "multipart/byteranges; boundary=\"a b\"") == "a b")
        #expect(
            MultipartByteranges.boundary(contentType: "multipart/byteranges;boundary=00000000000000000001")
                == "00000000000000000001")
    }

    @Test func unterminatedMultipartIsAnError() {
        let body = Array("--XYZ\r\nContent-Range: bytes 0-0/100\r\n\r\nA".utf8)
        guard case .failure(let error) = MultipartByteranges.parse(body, boundary: "XYZ") else {
            Issue.record("expected a failure")
            return
        }
        #expect(error.description.contains("not followed by a delimiter"))
    }

    @Test func planStaysSmallForLargeFiles() throws {
        let plan = ProbePlan(length: 10 << 30, referenceLimit: 8 << 20)
        let open = try #require(plan.single(.open))
        #expect(open.expected.count == 4096)
        #expect(plan.middle.upperBound <= 8 << 20, "the middle range lies inside the reference read")
        #expect(plan.single(.clamped)?.value == "bytes=\((10 << 30) - 100)-\((10 << 30) + 999)")
        #expect(plan.single(.clamped)?.expected.count == 100)
        #expect(plan.single(.suffix)?.value == "bytes=-500")
        #expect(plan.referenceSlices.allSatisfy { $0.upperBound <= 8 << 20 })
        #expect(plan.tailSlices.count == 3, "suffix, last byte and clamped are checked against the open-ended range")
    }

    @Test func planForATinyFile() throws {
        let plan = ProbePlan(length: 3, referenceLimit: 8 << 20)
        #expect(plan.single(.lastByte)?.value == "bytes=2-2")
        #expect(plan.single(.open)?.expected == ByteRange(first: 1, last: 2))
        #expect(plan.expectedParts(ProbePlan.multiValue) == [ByteRange(first: 0, last: 0)])
    }

    @Test func entityTagSyntax() {
        #expect(ResourceChecks.isEntityTag("\"abc\""))
        #expect(ResourceChecks.isEntityTag("W/\"abc\""))
        #expect(!ResourceChecks.isEntityTag("abc"))
        #expect(!ResourceChecks.isEntityTag("\"a\"b\""))
    }

    @Test func headerSpellingWrapperFindsOddCase() {
        let lines = ["HTTP/1.1 206 Partial Content\r\n", "Content-range: bytes 0-1/10\r\n", "\r\n"].map(
            HeaderLine.init(raw:))
        let findings = HeaderSpelling.findings(in: lines)
        #expect(findings.map(\.code) == ["header-case"])
        #expect(HeaderSpelling.usualSpelling(of: "content-range") == "Content-Range")
    }
}
