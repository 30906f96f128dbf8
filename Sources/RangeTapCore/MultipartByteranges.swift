/// A `multipart/byteranges` body split into its parts (RFC 9110 §14.6).
public struct MultipartByteranges: Sendable {
    /// One part: its header lines and body bytes.
    public struct Part: Sendable {
        /// The part's header lines, raw.
        public var headers: [HeaderLine]
        /// The part's bytes.
        public var body: [UInt8]
        /// The part's Content-Range value.
        public var contentRange: String? { headers.first(named: "Content-Range") }
    }

    /// The parts in order.
    public var parts: [Part]

    /// The `boundary` parameter of a Content-Type value, unquoted.
    public static func boundary(contentType: String) -> String? {
        for param in contentType.split(separator: ";").dropFirst() {
            let kv = param.split(separator: "=", maxSplits: 1)
            guard kv.count == 2, kv[0].trimmingHTTPWhitespace().lowercased() == "boundary" else { continue }
            var v = String(kv[1].trimmingHTTPWhitespace())
            if v.count >= 2, v.hasPrefix("\""), v.hasSuffix("\"") { v = String(v.dropFirst().dropLast()) }
            return v.isEmpty ? nil : v
        }
        return nil
    }

    /// Splits `body`; the error says what was malformed.
    public static func parse(_ body: [UInt8], boundary: String) -> Result<MultipartByteranges, MultipartError> {
        var scanned = 0
        return parse(body, boundary: boundary, scanned: &scanned)
    }

    /// ``parse(_:boundary:)``, counting into `scanned` the offsets the delimiter searches looked
    /// at (linear in the body, whatever its parts; the scaling test reads it).
    static func parse(
        _ body: [UInt8], boundary: String, scanned: inout Int
    ) -> Result<MultipartByteranges, MultipartError> {
        let delimiter = Array("--\(boundary)".utf8)
        guard var at = find(delimiter, in: body, from: 0, scanned: &scanned) else {
            return .failure(.init("no \"--\(boundary)\" delimiter in the body"))
        }
        var parts: [Part] = []
        var crlfDelimiter = Finder(Array("\r\n--\(boundary)".utf8))
        var lfDelimiter = Finder(Array("\n--\(boundary)".utf8))
        while true {
            at += delimiter.count
            if at + 1 < body.count, body[at] == UInt8(ascii: "-"), body[at + 1] == UInt8(ascii: "-") { break }
            // The rest of the delimiter line.
            guard let eol = body[at...].firstIndex(of: UInt8(ascii: "\n")) else {
                return .failure(.init("the body ends inside a delimiter line (no closing \"--\(boundary)--\")"))
            }
            var i = eol + 1
            var headers: [HeaderLine] = []
            while true {
                guard let end = body[i...].firstIndex(of: UInt8(ascii: "\n")) else {
                    return .failure(.init("part \(parts.count + 1) ends inside its headers"))
                }
                let line = HeaderLine(raw: Latin1.string(body[i...end]))
                i = end + 1
                if line.isBlank { break }
                headers.append(line)
            }
            guard
                let next = crlfDelimiter.next(in: body, from: i, scanned: &scanned)
                    ?? lfDelimiter.next(in: body, from: i, scanned: &scanned)
            else {
                return .failure(
                    .init("part \(parts.count + 1) is not followed by a delimiter (no closing \"--\(boundary)--\")"))
            }
            parts.append(Part(headers: headers, body: Array(body[i..<next])))
            at = body[next] == UInt8(ascii: "\r") ? next + 2 : next + 1
        }
        return .success(MultipartByteranges(parts: parts))
    }

    /// Finds one needle at ever later offsets, remembering the last answer: without it, a body
    /// of many parts and no CRLF delimiter was searched to its end once per part (N² steps; found
    /// while fuzzing, issue 10).
    private struct Finder {
        let needle: [UInt8]
        /// The offset of the last search, or nil before the first.
        private var searchedFrom: Int?
        /// The first occurrence at or after `searchedFrom`.
        private var found: Int?

        init(_ needle: [UInt8]) { self.needle = needle }

        /// The first occurrence at or after `from`.
        mutating func next(in hay: [UInt8], from: Int, scanned: inout Int) -> Int? {
            if let searchedFrom, searchedFrom <= from {
                guard let found else { return nil }  // none after `searchedFrom`, so none after `from`
                if found >= from { return found }
            }
            searchedFrom = from
            found = MultipartByteranges.find(needle, in: hay, from: from, scanned: &scanned)
            return found
        }
    }

    private static func find(_ needle: [UInt8], in hay: [UInt8], from: Int, scanned: inout Int) -> Int? {
        guard !needle.isEmpty, hay.count >= needle.count else { return nil }
        var i = from
        defer { scanned += i - from }
        while i + needle.count <= hay.count {
            if hay[i] == needle[0], hay[i..<(i + needle.count)].elementsEqual(needle) { return i }
            i += 1
        }
        return nil
    }
}
