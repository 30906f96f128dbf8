/// One byte-range-spec of a `Range` request header (RFC 9110 §14.1.1).
public enum RangeSpec: Sendable, Hashable {
    /// `first-last`: an explicit inclusive range.
    case closed(first: Int64, last: Int64)
    /// `first-`: from `first` to the end of the representation.
    case from(first: Int64)
    /// `-length`: the last `length` bytes.
    case suffix(length: Int64)

    /// The bytes this spec selects from a representation of `length` bytes, or `nil` when it
    /// is unsatisfiable there (RFC 9110 §14.1.2: first byte at or past the length, or `-0`).
    public func resolved(length: Int64) -> ByteRange? {
        switch self {
        case .closed(let first, let last):
            guard first < length else { return nil }
            return ByteRange(first: first, last: min(last, length - 1))
        case .from(let first):
            guard first < length else { return nil }
            return ByteRange(first: first, last: length - 1)
        case .suffix(let count):
            guard count > 0, length > 0 else { return nil }
            return ByteRange(first: max(0, length - count), last: length - 1)
        }
    }

    /// The first byte offset when it does not depend on the length.
    public var knownFirst: Int64? {
        switch self {
        case .closed(let first, _), .from(let first): return first
        case .suffix: return nil
        }
    }
}

/// A parsed `Range` request header value such as `bytes=0-1` or `bytes=0-0,-10`.
///
/// This is the single parser for Range in rangetap: the proxy, inspect, probe and replay all use it.
public struct RangeRequest: Sendable, Hashable {
    /// The range unit as written (`bytes` for every range a media client sends).
    public var unit: String
    /// The specs in the order they were written.
    public var specs: [RangeSpec]

    /// Creates a request from parts.
    public init(unit: String = "bytes", specs: [RangeSpec]) {
        self.unit = unit
        self.specs = specs
    }

    /// Whether the unit is `bytes`, compared case-insensitively as RFC 9110 §14.1 says.
    public var isBytes: Bool { unit.lowercased() == "bytes" }

    /// Parses a Range header value. Whitespace around specs and commas is tolerated (the
    /// grammar allows OWS there); anything else malformed is an error that says what was wrong.
    public static func parse(_ value: String) throws(RangeParseError) -> RangeRequest {
        guard value.utf8.count <= 8192 else { throw .init(.tooLong, value) }
        guard let eq = value.firstIndex(of: "=") else { throw .init(.missingEquals, value) }
        let unit = value[..<eq].trimmingHTTPWhitespace()
        guard !unit.isEmpty, unit.allSatisfy(\.isHTTPTokenCharacter) else { throw .init(.badUnit, value) }
        var specs: [RangeSpec] = []
        for rawPart in value[value.index(after: eq)...].split(separator: ",", omittingEmptySubsequences: false) {
            let part = rawPart.trimmingHTTPWhitespace()
            if part.isEmpty { continue }  // RFC 9110 allows empty list elements
            guard let dash = part.firstIndex(of: "-") else { throw .init(.missingDash, value) }
            let lhs = part[..<dash]
            let rhs = part[part.index(after: dash)...]
            if lhs.isEmpty {
                guard let n = parseDecimal(rhs) else { throw .init(.badNumber, value) }
                specs.append(.suffix(length: n))
            } else {
                guard let first = parseDecimal(lhs) else { throw .init(.badNumber, value) }
                if rhs.isEmpty {
                    specs.append(.from(first: first))
                } else {
                    guard let last = parseDecimal(rhs) else { throw .init(.badNumber, value) }
                    guard last >= first else { throw .init(.lastBeforeFirst, value) }
                    specs.append(.closed(first: first, last: last))
                }
            }
        }
        guard !specs.isEmpty else { throw .init(.empty, value) }
        return RangeRequest(unit: String(unit), specs: specs)
    }

    /// The header value in canonical form.
    public var headerValue: String {
        unit + "="
            + specs.map { spec in
                switch spec {
                case .closed(let f, let l): return "\(f)-\(l)"
                case .from(let f): return "\(f)-"
                case .suffix(let n): return "-\(n)"
                }
            }.joined(separator: ",")
    }
}

/// Parses ASCII digits into a non-negative Int64; nil on anything else or overflow.
func parseDecimal(_ s: Substring) -> Int64? {
    guard !s.isEmpty, s.utf8.count <= 19 else { return nil }
    var n: Int64 = 0
    for b in s.utf8 {
        guard b >= 0x30, b <= 0x39 else { return nil }
        let (m, o1) = n.multipliedReportingOverflow(by: 10)
        let (a, o2) = m.addingReportingOverflow(Int64(b - 0x30))
        if o1 || o2 { return nil }
        n = a
    }
    return n
}

extension StringProtocol {
    /// Drops leading and trailing spaces and tabs (HTTP's optional whitespace, RFC 9110 §5.6.3).
    ///
    /// Trims by characters: a space that a combining mark follows (or a prepended mark precedes)
    /// is part of a larger character and stays. Read byte by byte when the bytes next to the
    /// whitespace are ASCII, which no such mark is (every header value's read goes through here).
    public func trimmingHTTPWhitespace() -> Substring {
        let s = Substring(self)
        let u = s.utf8
        var start = u.startIndex
        var end = u.endIndex
        while start < end, u[start] == HeaderByte.space || u[start] == HeaderByte.tab { u.formIndex(after: &start) }
        while end > start {
            let last = u.index(before: end)
            guard u[last] == HeaderByte.space || u[last] == HeaderByte.tab else { break }
            end = last
        }
        let leadingSafe = start == u.startIndex || start == u.endIndex || u[start] < 0x80
        let trailingSafe = end == u.endIndex || end == start || u[u.index(before: end)] < 0x80
        if leadingSafe && trailingSafe { return s[start..<end] }
        var c = s
        while let first = c.first, first == " " || first == "\t" { c = c.dropFirst() }
        while let last = c.last, last == " " || last == "\t" { c = c.dropLast() }
        return c
    }
}

extension Character {
    /// Whether this is a `tchar` of RFC 9110 §5.6.2.
    var isHTTPTokenCharacter: Bool {
        asciiValue.map(HeaderByte.isToken) ?? false
    }
}
