/// Why a `Range` or `Content-Range` value could not be parsed; the description names the value
/// and what was wrong with it.
public struct RangeParseError: Error, Sendable, Hashable, CustomStringConvertible {
    enum Code: Sendable, Hashable {
        case tooLong, missingEquals, badUnit, missingDash, badNumber, lastBeforeFirst, empty
        case missingSlash, badLength, badContentRange
    }
    let code: Code
    /// The value that failed to parse (its first 200 characters).
    public let value: String

    init(_ code: Code, _ value: String) {
        self.code = code
        self.value = String(value.prefix(200))
    }

    public var description: String {
        let what: String
        switch code {
        case .tooLong: what = "the value is longer than 8192 bytes"
        case .missingEquals: what = "expected UNIT=RANGES, such as bytes=0-1"
        case .badUnit: what = "the range unit is not a token"
        case .missingDash: what = "a range has no '-' (expected first-last, first- or -suffix)"
        case .badNumber: what = "a byte offset is not a non-negative decimal number that fits in 63 bits"
        case .lastBeforeFirst: what = "a range ends before it starts"
        case .empty: what = "no ranges were given"
        case .missingSlash: what = "expected 'bytes first-last/length' or 'bytes */length'"
        case .badLength: what = "the complete length is neither a number nor '*'"
        case .badContentRange: what = "the range part is neither first-last nor '*'"
        }
        return "cannot parse range \"\(value)\": \(what)"
    }
}
