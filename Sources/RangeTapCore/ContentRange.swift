/// A parsed `Content-Range` response header (RFC 9110 §14.4): `bytes 0-1/100`, `bytes 0-1/*`
/// or `bytes */100`.
public struct ContentRange: Sendable, Hashable {
    /// The unit as written.
    public var unit: String
    /// The range carried, or `nil` for the unsatisfied form `*/LEN` sent with a 416.
    public var range: ByteRange?
    /// The complete length, or `nil` when the server wrote `*`.
    public var completeLength: Int64?

    /// Creates a value from parts.
    public init(unit: String = "bytes", range: ByteRange?, completeLength: Int64?) {
        self.unit = unit
        self.range = range
        self.completeLength = completeLength
    }

    /// Parses a header value; the error names what was wrong.
    public static func parse(_ value: String) throws(RangeParseError) -> ContentRange {
        let v = Substring(value).trimmingHTTPWhitespace()
        guard let space = v.firstIndex(of: " ") else { throw RangeParseError(.missingSlash, value) }
        let unit = v[..<space]
        guard !unit.isEmpty, unit.allSatisfy(\.isHTTPTokenCharacter) else { throw RangeParseError(.badUnit, value) }
        let rest = v[v.index(after: space)...].trimmingHTTPWhitespace()
        guard let slash = rest.firstIndex(of: "/") else { throw RangeParseError(.missingSlash, value) }
        let rangePart = rest[..<slash]
        let lengthPart = rest[rest.index(after: slash)...]
        let length: Int64?
        if lengthPart == "*" {
            length = nil
        } else {
            guard let n = parseDecimal(lengthPart) else { throw RangeParseError(.badLength, value) }
            length = n
        }
        if rangePart == "*" {
            // RFC 9110 §14.4: the unsatisfied form always carries the complete length.
            guard length != nil else { throw RangeParseError(.badLength, value) }
            return ContentRange(unit: String(unit), range: nil, completeLength: length)
        }
        guard let dash = rangePart.firstIndex(of: "-") else { throw RangeParseError(.badContentRange, value) }
        guard let first = parseDecimal(rangePart[..<dash]),
            let last = parseDecimal(rangePart[rangePart.index(after: dash)...])
        else { throw RangeParseError(.badNumber, value) }
        guard last >= first else { throw RangeParseError(.lastBeforeFirst, value) }
        return ContentRange(unit: String(unit), range: ByteRange(first: first, last: last), completeLength: length)
    }

    /// Whether the range is consistent with the complete length (last byte inside it).
    public var isConsistent: Bool {
        guard let range, let completeLength else { return true }
        return range.last < completeLength
    }
}
