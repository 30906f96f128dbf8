import RangeTapCore
import Testing

/// The error `RangeRequest.parse` throws for `value`, or nil when it parses.
private func rangeError(_ value: String) -> RangeParseError? {
    do {
        _ = try RangeRequest.parse(value)
        return nil
    } catch {
        return error
    }
}

@Suite("RangeRequest parsing and resolution")
struct RangeRequestTests {
    // MARK: Parsing

    @Test func closedRange() throws {
        let r = try RangeRequest.parse("bytes=0-1")
        #expect(r.unit == "bytes")
        #expect(r.isBytes)
        #expect(r.specs == [.closed(first: 0, last: 1)])
        #expect(r.headerValue == "bytes=0-1")
    }

    @Test func openEndedRange() throws {
        let r = try RangeRequest.parse("bytes=0-")
        #expect(r.specs == [.from(first: 0)])
        #expect(r.specs[0].knownFirst == 0)
        #expect(r.headerValue == "bytes=0-")
    }

    @Test func suffixRange() throws {
        let r = try RangeRequest.parse("bytes=-500")
        #expect(r.specs == [.suffix(length: 500)])
        #expect(r.specs[0].knownFirst == nil)
        #expect(r.headerValue == "bytes=-500")
    }

    @Test func multipleRangesKeepTheirOrder() throws {
        let r = try RangeRequest.parse("bytes=0-0,200-299")
        #expect(r.specs == [.closed(first: 0, last: 0), .closed(first: 200, last: 299)])
        #expect(r.headerValue == "bytes=0-0,200-299")
    }

    @Test func whitespaceAroundSpecsAndCommasIsTolerated() throws {
        let r = try RangeRequest.parse("bytes= 0-1 , 5-9")
        #expect(r.unit == "bytes")
        #expect(r.specs == [.closed(first: 0, last: 1), .closed(first: 5, last: 9)])
        #expect(r.headerValue == "bytes=0-1,5-9")
    }

    @Test func emptyListElementsAreSkipped() throws {
        let r = try RangeRequest.parse("bytes=0-1,,-5,")
        #expect(r.specs == [.closed(first: 0, last: 1), .suffix(length: 5)])
    }

    @Test func unitIsKeptAsWrittenAndComparedCaseInsensitively() throws {
        let r = try RangeRequest.parse("Bytes=0-1")
        #expect(r.unit == "Bytes")
        #expect(r.isBytes)
        #expect(r.specs == [.closed(first: 0, last: 1)])
        #expect(r.headerValue == "Bytes=0-1")
    }

    @Test func otherUnitsParseButAreNotBytes() throws {
        let r = try RangeRequest.parse("pages=0-1")
        #expect(r.unit == "pages")
        #expect(!r.isBytes)
        #expect(r.specs == [.closed(first: 0, last: 1)])
    }

    @Test func largestInt64OffsetParses() throws {
        let r = try RangeRequest.parse("bytes=9223372036854775807-")
        #expect(r.specs == [.from(first: Int64.max)])
    }

    // MARK: Errors

    @Test func missingEqualsIsAnError() throws {
        let e = try #require(rangeError("bytes"))
        #expect(e.value == "bytes")
        #expect(e.description.contains("\"bytes\""))
        #expect(e.description.contains("expected UNIT=RANGES"))
    }

    @Test func noRangesIsAnError() throws {
        let e = try #require(rangeError("bytes="))
        #expect(e.value == "bytes=")
        #expect(e.description.contains("\"bytes=\""))
        #expect(e.description.contains("no ranges were given"))
    }

    @Test func onlyCommasIsAnError() throws {
        let e = try #require(rangeError("bytes= , ,"))
        #expect(e.description.contains("no ranges were given"))
    }

    @Test func lastBeforeFirstIsAnError() throws {
        let e = try #require(rangeError("bytes=5-1"))
        #expect(e.description.contains("\"bytes=5-1\""))
        #expect(e.description.contains("ends before it starts"))
    }

    @Test func nonNumericOffsetsAreAnError() throws {
        let e = try #require(rangeError("bytes=a-b"))
        #expect(e.description.contains("\"bytes=a-b\""))
        #expect(e.description.contains("not a non-negative decimal number"))
    }

    @Test(arguments: ["bytes=+1-2", "bytes=1-2x", "bytes=- 5", "bytes=-", "bytes=1--2", "bytes=0x10-"])
    func malformedNumbersAreErrors(value: String) throws {
        let e = try #require(rangeError(value))
        #expect(e.description.contains("not a non-negative decimal number"))
    }

    @Test func missingDashIsAnError() throws {
        let e = try #require(rangeError("bytes=0-1,7"))
        #expect(e.description.contains("\"bytes=0-1,7\""))
        #expect(e.description.contains("has no '-'"))
    }

    @Test(arguments: ["=0-1", "by tes=0-1", "bytes\u{1}=0-1"])
    func badUnitIsAnError(value: String) throws {
        let e = try #require(rangeError(value))
        #expect(e.description.contains("not a token"))
    }

    @Test func offsetOverflowingInt64IsAnError() throws {
        let value = "bytes=99999999999999999999-"
        let e = try #require(rangeError(value))
        #expect(e.description.contains("\"\(value)\""))
        #expect(e.description.contains("fits in 63 bits"))
        // One past Int64.max has 19 digits and must still be rejected.
        let e2 = try #require(rangeError("bytes=9223372036854775808-"))
        #expect(e2.description.contains("fits in 63 bits"))
    }

    @Test func overlongValueIsAnErrorThatQuotesOnlyItsStart() throws {
        let value = "bytes=" + String(repeating: "0-1,", count: 2249)  // 9002 bytes
        #expect(value.utf8.count > 8192)
        let e = try #require(rangeError(value))
        #expect(e.value == String(value.prefix(200)))
        #expect(e.description.contains("longer than 8192 bytes"))
        #expect(e.description.contains(String(value.prefix(200))))
        #expect(e.description.count < 400)
    }

    @Test func valueOfExactly8192BytesIsNotTooLong() throws {
        // Padded to exactly the limit with trailing OWS.
        let head = "bytes=0-1"
        let value = head + String(repeating: " ", count: 8192 - head.utf8.count)
        #expect(value.utf8.count == 8192)
        let r = try RangeRequest.parse(value)
        #expect(r.specs == [.closed(first: 0, last: 1)])
    }

    // MARK: Resolution

    @Test func closedRangeEndPastLengthIsClamped() {
        #expect(RangeSpec.closed(first: 10, last: 5000).resolved(length: 100) == ByteRange(first: 10, last: 99))
        #expect(RangeSpec.closed(first: 0, last: 1).resolved(length: 100) == ByteRange(first: 0, last: 1))
        #expect(RangeSpec.closed(first: 0, last: 99).resolved(length: 100) == ByteRange(first: 0, last: 99))
    }

    @Test func firstByteAtOrPastLengthIsUnsatisfiable() {
        #expect(RangeSpec.closed(first: 100, last: 200).resolved(length: 100) == nil)
        #expect(RangeSpec.closed(first: 101, last: 200).resolved(length: 100) == nil)
        #expect(RangeSpec.from(first: 100).resolved(length: 100) == nil)
        #expect(RangeSpec.from(first: 99).resolved(length: 100) == ByteRange(first: 99, last: 99))
        #expect(RangeSpec.from(first: 0).resolved(length: 0) == nil)
    }

    @Test func zeroSuffixIsUnsatisfiable() throws {
        let r = try RangeRequest.parse("bytes=-0")
        #expect(r.specs == [.suffix(length: 0)])
        #expect(r.specs[0].resolved(length: 100) == nil)
        #expect(RangeSpec.suffix(length: 10).resolved(length: 0) == nil)
    }

    @Test func suffixLargerThanLengthSelectsTheWholeRepresentation() {
        let whole = RangeSpec.suffix(length: 500).resolved(length: 100)
        #expect(whole == ByteRange(first: 0, last: 99))
        #expect(whole?.count == 100)
        #expect(RangeSpec.suffix(length: 10).resolved(length: 100) == ByteRange(first: 90, last: 99))
    }

    @Test func byteRangeCountsAreInclusive() {
        let r = ByteRange(first: 0, last: 1)
        #expect(r.count == 2)
        #expect(r.upperBound == 2)
        #expect(r.description == "0-1")
    }

    // MARK: Property: headerValue round-trips through parse

    @Test func headerValueRoundTripsThroughParse() throws {
        var rng = SeededGenerator(seed: 0x5EED_1234)
        let units = ["bytes", "Bytes", "BYTES", "items", "x-unit.v2"]
        func offset() -> Int64 {
            switch Int.random(in: 0..<4, using: &rng) {
            case 0: return Int64.random(in: 0...9, using: &rng)
            case 1: return Int64.random(in: 0...1_000_000, using: &rng)
            case 2: return Int64.random(in: 0...Int64.max, using: &rng)
            default: return Int64.max - Int64.random(in: 0...3, using: &rng)
            }
        }
        for iteration in 0..<2000 {
            var specs: [RangeSpec] = []
            for _ in 0..<Int.random(in: 1...5, using: &rng) {
                switch Int.random(in: 0..<3, using: &rng) {
                case 0:
                    let a = offset(), b = offset()
                    specs.append(.closed(first: min(a, b), last: max(a, b)))
                case 1: specs.append(.from(first: offset()))
                default: specs.append(.suffix(length: offset()))
                }
            }
            let request = RangeRequest(unit: units[Int.random(in: 0..<units.count, using: &rng)], specs: specs)
            let text = request.headerValue
            let parsed = try RangeRequest.parse(text)
            #expect(parsed == request, "iteration \(iteration): \(text)")
            #expect(parsed.headerValue == text)

            // The same value with optional whitespace around specs and commas parses the same.
            let spaced =
                request.unit + "="
                + text.split(separator: "=", maxSplits: 1)[1]
                .split(separator: ",").map { " \t\($0) " }.joined(separator: ",")
            #expect(try RangeRequest.parse(spaced) == request, "iteration \(iteration): \(spaced)")
            if parsed != request { break }
        }
    }
}
