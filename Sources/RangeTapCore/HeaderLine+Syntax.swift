extension HeaderLine {
    /// The shape of one head line as RFC 9112 reads it (§2.2, §4, §5.1, §5.2), so that lines
    /// ``name`` does not accept (`Content-Range : bytes 0-1/10`, a folded value) stay visible
    /// to the analysis, the probe and the proxy.
    public enum Syntax: Sendable, Hashable {
        /// A response status line, `HTTP/1.1 206 Partial Content` (RFC 9112 §4).
        case statusLine
        /// A well-formed field line: a token name followed directly by the colon (RFC 9112 §5).
        case field
        /// A token name, whitespace, then the colon (`Content-Range : …`), which RFC 9112 §5.1
        /// forbids; `name` is the name without the whitespace.
        case spaceBeforeColon(name: String)
        /// A line starting with SP or HTAB: an obs-fold continuation of the previous field's
        /// value (RFC 9112 §5.2), or whitespace after the start line (§2.2).
        case obsFoldContinuation
        /// A non-empty line without a colon that is no status line.
        case noColon
        /// A colon preceded by something that is not a token (`Foo Bar: x`, `: x`).
        case invalidName
        /// The empty line that ends a head.
        case blank
    }

    /// How a line ends.
    public enum LineEnding: Sendable, Hashable {
        /// `\r\n`, as RFC 9112 §2.2 requires of senders.
        case crlf
        /// A bare `\n`, which RFC 9112 §2.2 lets recipients accept but strict parsers reject.
        case bareLF
        /// No terminator: the line was cut off.
        case none
    }

    /// What kind of line this is (see ``Syntax``).
    public var syntax: Syntax {
        let c = content
        let u = c.utf8
        guard let first = u.first else { return .blank }
        if first == HeaderByte.space || first == HeaderByte.tab { return .obsFoldContinuation }
        if first == UInt8(ascii: "H"), Self.isStatusLine(u) { return .statusLine }
        guard let colon = u.firstIndex(of: HeaderByte.colon) else { return .noColon }
        if colon > u.startIndex, u[..<colon].allSatisfy(HeaderByte.isToken) { return .field }
        var nameEnd = colon
        while nameEnd > u.startIndex {
            let previous = u.index(before: nameEnd)
            guard u[previous] == HeaderByte.space || u[previous] == HeaderByte.tab else { break }
            nameEnd = previous
        }
        if nameEnd < colon, nameEnd > u.startIndex, u[..<nameEnd].allSatisfy(HeaderByte.isToken) {
            return .spaceBeforeColon(name: String(Substring(c.unicodeScalars[..<nameEnd])))
        }
        return .invalidName
    }

    /// How the line ends (see ``LineEnding``).
    public var lineEnding: LineEnding {
        let u = raw.utf8
        guard let last = u.last, last == HeaderByte.lf else { return .none }
        let lf = u.index(before: u.endIndex)
        return lf > u.startIndex && u[u.index(before: lf)] == HeaderByte.cr ? .crlf : .bareLF
    }

    /// Whether a CR appears anywhere but in the CRLF terminator: a recipient that takes it for
    /// a line end sees a field the server did not send (response splitting).
    public var containsBareCR: Bool { content.utf8.contains(HeaderByte.cr) }

    /// The same line with the whitespace between name and colon removed (what RFC 9112 §5.1
    /// requires of a proxy), value and terminator kept byte for byte; other lines unchanged.
    public func removingSpaceBeforeColon() -> HeaderLine {
        guard case .spaceBeforeColon(let name) = syntax else { return self }
        let scalars = content.unicodeScalars
        guard let colon = scalars.firstIndex(of: ":") else { return self }
        var rest = String.UnicodeScalarView()
        rest.append(contentsOf: scalars[colon...])
        return HeaderLine(raw: name + String(rest) + terminator)
    }

    /// `HTTP/` DIGIT `.` DIGIT SP 3DIGIT, then nothing or SP and a reason phrase.
    private static let httpSlash = Array("HTTP/".utf8)

    private static func isStatusLine(_ u: Substring.UTF8View) -> Bool {
        // Thirteen bytes decide it; past them only whether there are more.
        let s = Array(u.prefix(13))
        // `HTTP/2 206`: how libcurl writes the head of a response that came over HTTP/2 or 3
        // (a `:status` field, no reason phrase).
        if s.count >= 10, s[0..<5].elementsEqual(httpSlash), isDigit(s[5]), s[6] == HeaderByte.space,
            isDigit(s[7]), isDigit(s[8]), isDigit(s[9])
        {
            return s.count == 10 || s[10] == HeaderByte.space
        }
        guard s.count >= 12, s[0..<5].elementsEqual(httpSlash),
            isDigit(s[5]), s[6] == UInt8(ascii: "."), isDigit(s[7]), s[8] == HeaderByte.space,
            isDigit(s[9]), isDigit(s[10]), isDigit(s[11])
        else { return false }
        return s.count == 12 || s[12] == HeaderByte.space
    }

    private static func isDigit(_ b: UInt8) -> Bool { (0x30...0x39).contains(b) }

    /// A `tchar` of RFC 9110 §5.6.2.
    public static func isTokenScalar(_ c: Unicode.Scalar) -> Bool {
        c.isASCII && HeaderByte.isToken(UInt8(c.value))
    }
}
