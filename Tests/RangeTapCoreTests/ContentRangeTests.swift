import RangeTapCore
import Testing

/// The error `ContentRange.parse` throws for `value`, or nil when it parses.
private func contentRangeError(_ value: String) -> RangeParseError? {
    do {
        _ = try ContentRange.parse(value)
        return nil
    } catch {
        return error
    }
}

@Suite("Content-Range parsing")
struct ContentRangeTests {
    @Test func rangeWithCompleteLength() throws {
        let cr = try ContentRange.parse("bytes 0-1/100")
        #expect(cr.unit == "bytes")
        #expect(cr.range == ByteRange(first: 0, last: 1))
        #expect(cr.range?.count == 2)
        #expect(cr.completeLength == 100)
        #expect(cr.isConsistent)
    }

    @Test func rangeWithUnknownLength() throws {
        let cr = try ContentRange.parse("bytes 0-1/*")
        #expect(cr.range == ByteRange(first: 0, last: 1))
        #expect(cr.completeLength == nil)
        #expect(cr.isConsistent)
    }

    @Test func unsatisfiedForm() throws {
        let cr = try ContentRange.parse("bytes */100")
        #expect(cr.range == nil)
        #expect(cr.completeLength == 100)
        #expect(cr.isConsistent)
    }

    @Test func surroundingWhitespaceAndUnitCaseAreKept() throws {
        let cr = try ContentRange.parse("  Bytes 200-299/1000 ")
        #expect(cr.unit == "Bytes")
        #expect(cr.range == ByteRange(first: 200, last: 299))
        #expect(cr.completeLength == 1000)
    }

    @Test func lastBeforeFirstIsAnError() throws {
        let e = try #require(contentRangeError("bytes 5-1/10"))
        #expect(e.description.contains("\"bytes 5-1/10\""))
        #expect(e.description.contains("ends before it starts"))
    }

    @Test func missingLengthIsAnError() throws {
        let e = try #require(contentRangeError("bytes 0-1"))
        #expect(e.description.contains("\"bytes 0-1\""))
        #expect(e.description.contains("expected 'bytes first-last/length'"))
    }

    @Test func missingUnitIsAnError() throws {
        let e = try #require(contentRangeError("0-1/10"))
        #expect(e.description.contains("\"0-1/10\""))
        #expect(e.description.contains("expected 'bytes first-last/length'"))
    }

    @Test func nonNumericFirstIsAnError() throws {
        let e = try #require(contentRangeError("bytes x-1/10"))
        #expect(e.description.contains("\"bytes x-1/10\""))
        #expect(e.description.contains("not a non-negative decimal number"))
    }

    @Test func badLengthIsAnError() throws {
        let e = try #require(contentRangeError("bytes 0-1/ten"))
        #expect(e.description.contains("neither a number nor '*'"))
        #expect(contentRangeError("bytes 0-1/") != nil)
    }

    @Test func rangePartWithoutDashIsAnError() throws {
        let e = try #require(contentRangeError("bytes 7/10"))
        #expect(e.description.contains("neither first-last nor '*'"))
    }

    @Test func unsatisfiedFormRequiresACompleteLength() {
        // RFC 9110 §14.4: unsatisfied-range = "*/" complete-length; "*/*" carries no information
        // and is not a valid Content-Range.
        #expect(contentRangeError("bytes */*") != nil)
    }

    @Test func rangePastTheCompleteLengthIsInconsistent() throws {
        let cr = try ContentRange.parse("bytes 0-200/100")
        #expect(cr.range == ByteRange(first: 0, last: 200))
        #expect(!cr.isConsistent)
        // The last byte must be strictly inside: 0-100/100 is one byte too long, 0-99/100 fits.
        #expect(!(try ContentRange.parse("bytes 0-100/100")).isConsistent)
        #expect(try ContentRange.parse("bytes 0-99/100").isConsistent)
    }
}
