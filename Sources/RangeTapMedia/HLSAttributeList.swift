import RangeTapCore

/// An RFC 8216 attribute list (section 4.2): `NAME=value` pairs separated by commas, where a
/// value is a quoted string (which may hold commas), a hexadecimal sequence, a decimal number,
/// a decimal resolution or an enumerated string.
struct HLSAttributeList {
    /// Values by attribute name; quoted strings without their quotes.
    private(set) var values: [String: String] = [:]

    /// Reads `text`; nil when it is not an attribute list (a name without `=`, an unterminated
    /// quoted string, a value not followed by a comma).
    init?(_ text: Substring) {
        var i = text.startIndex
        func passSpaces() { while i < text.endIndex, text[i] == " " || text[i] == "\t" { i = text.index(after: i) } }
        passSpaces()
        while i < text.endIndex {
            let nameStart = i
            while i < text.endIndex, text[i] != "=", text[i] != "," { i = text.index(after: i) }
            guard i < text.endIndex, text[i] == "=" else { return nil }
            let name = text[nameStart..<i].trimmingSpaces()
            guard !name.isEmpty else { return nil }
            i = text.index(after: i)
            let value: Substring
            if i < text.endIndex, text[i] == "\"" {
                let open = text.index(after: i)
                guard let close = text[open...].firstIndex(of: "\"") else { return nil }
                value = text[open..<close]
                i = text.index(after: close)
                passSpaces()
                guard i == text.endIndex || text[i] == "," else { return nil }
            } else {
                let start = i
                while i < text.endIndex, text[i] != "," { i = text.index(after: i) }
                value = text[start..<i].trimmingSpaces()
            }
            values[String(name)] = String(value)
            if i < text.endIndex { i = text.index(after: i) }
            passSpaces()
        }
    }

    /// The value of attribute `name`.
    subscript(name: String) -> String? { values[name] }

    /// A decimal-integer attribute; nil when absent or not a non-negative integer.
    func integer(_ name: String) -> Int? {
        guard let v = values[name], !v.isEmpty, v.allSatisfy(\.isASCIIDigit) else { return nil }
        return Int(v)
    }

    /// A decimal-floating-point attribute; nil when absent or not a finite number.
    func decimal(_ name: String) -> Double? {
        guard let v = values[name], let d = Double(v), d.isFinite else { return nil }
        return d
    }

    /// A decimal-resolution attribute (`1280x720`).
    func resolution(_ name: String) -> (width: Int, height: Int)? {
        guard let v = values[name] else { return nil }
        let parts = v.split(separator: "x", omittingEmptySubsequences: false)
        guard parts.count == 2, let w = Int(parts[0]), let h = Int(parts[1]), w >= 0, h >= 0 else { return nil }
        return (w, h)
    }
}

extension Substring {
    /// The text without leading and trailing spaces and tabs.
    fileprivate func trimmingSpaces() -> Substring {
        var s = self
        while let f = s.first, f == " " || f == "\t" { s = s.dropFirst() }
        while let l = s.last, l == " " || l == "\t" { s = s.dropLast() }
        return s
    }
}

extension Character {
    /// True for `0`...`9`.
    fileprivate var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}
