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
        let scalars = Array(content.unicodeScalars)
        guard let first = scalars.first else { return .blank }
        if first == " " || first == "\t" { return .obsFoldContinuation }
        if Self.isStatusLine(scalars) { return .statusLine }
        guard let colon = scalars.firstIndex(of: ":") else { return .noColon }
        let before = scalars[..<colon]
        if !before.isEmpty, before.allSatisfy(Self.isTokenScalar) { return .field }
        var name = before
        while let last = name.last, last == " " || last == "\t" { name = name.dropLast() }
        if name.count < before.count, !name.isEmpty, name.allSatisfy(Self.isTokenScalar) {
            var s = String.UnicodeScalarView()
            s.append(contentsOf: name)
            return .spaceBeforeColon(name: String(s))
        }
        return .invalidName
    }

    /// How the line ends (see ``LineEnding``).
    public var lineEnding: LineEnding {
        switch terminator {
        case "\r\n": .crlf
        case "\n": .bareLF
        default: .none
        }
    }

    /// Whether a CR appears anywhere but in the CRLF terminator: a recipient that takes it for
    /// a line end sees a field the server did not send (response splitting).
    public var containsBareCR: Bool { content.unicodeScalars.contains("\r") }

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
    private static func isStatusLine(_ s: [Unicode.Scalar]) -> Bool {
        let prefix: [Unicode.Scalar] = ["H", "T", "T", "P", "/"]
        // `HTTP/2 206`: how libcurl writes the head of a response that came over HTTP/2 or 3
        // (a `:status` field, no reason phrase).
        if s.count >= 10, Array(s[0..<5]) == prefix, isDigit(s[5]), s[6] == " ",
           isDigit(s[7]), isDigit(s[8]), isDigit(s[9]) {
            return s.count == 10 || s[10] == " "
        }
        guard s.count >= 12, Array(s[0..<5]) == prefix,
              isDigit(s[5]), s[6] == ".", isDigit(s[7]), s[8] == " ",
              isDigit(s[9]), isDigit(s[10]), isDigit(s[11])
        else { return false }
        return s.count == 12 || s[12] == " "
    }

    private static func isDigit(_ c: Unicode.Scalar) -> Bool { ("0"..."9").contains(c) }

    /// A `tchar` of RFC 9110 §5.6.2.
    static func isTokenScalar(_ c: Unicode.Scalar) -> Bool {
        switch c.value {
        case 0x30...0x39, 0x41...0x5A, 0x61...0x7A: true
        default: c.isASCII && "!#$%&'*+-.^_`|~".unicodeScalars.contains(c)
        }
    }
}
