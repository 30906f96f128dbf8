/// The syntax of a CMCD payload (CTA-5004 §3.2, the dictionary of RFC 8941 without
/// parameters): `key[=value]` entries separated by commas; a value is a quoted string, a
/// number, a token, or absent (a true boolean).
enum CMCDParser {
    /// A value as written, before its key's type is applied.
    enum Parsed: Equatable {
        /// No `=value`: a true boolean.
        case bare
        /// `"…"`, unescaped.
        case quoted(String)
        /// `-12`, `1.08`, as written.
        case number(String)
        /// `v`, `true`.
        case token(String)
        /// `?1` or `?0` (RFC 8941's boolean).
        case flag(Bool)

        /// The value when no type is known for the key (a custom key).
        var value: CMCDValue {
            switch self {
            case .bare: .boolean(true)
            case .quoted(let s): .string(s)
            case .number(let n): Int64(n).map(CMCDValue.integer) ?? Double(n).map(CMCDValue.decimal) ?? .token(n)
            case .token(let t): .token(t)
            case .flag(let b): .boolean(b)
            }
        }

        /// As written, for messages.
        var written: String {
            switch self {
            case .bare: ""
            case .quoted(let s): "\"\(s)\""
            case .number(let n), .token(let n): n
            case .flag(let b): b ? "?1" : "?0"
            }
        }
    }

    /// One entry of a payload, or what is wrong with it.
    enum Item {
        case entry(String, Parsed)
        case problem(String)
    }

    /// A value typed by its key, or what is wrong with it.
    enum Typed {
        case value(CMCDValue)
        case problem(String)
    }

    /// The entries of `payload`, in order.
    static func items(_ payload: String) -> [Item] {
        var items: [Item] = []
        var current = ""
        var inString = false
        var escaped = false
        for ch in payload {
            if inString {
                current.append(ch)
                if escaped {
                    escaped = false
                } else if ch == "\\" {
                    escaped = true
                } else if ch == "\"" {
                    inString = false
                }
            } else if ch == "," {
                items.append(item(current))
                current = ""
            } else {
                if ch == "\"" { inString = true }
                current.append(ch)
            }
        }
        if inString {
            items.append(.problem("a string is not closed: \(current.trimmingWhitespace)"))
        } else if !(items.isEmpty && current.trimmingWhitespace.isEmpty) {
            items.append(item(current))
        }
        return items
    }

    /// One `key[=value]` entry.
    static func item(_ text: String) -> Item {
        let entry = text.trimmingWhitespace
        guard !entry.isEmpty else { return .problem("an entry is empty (two commas in a row, or one at an end)") }
        let key: String
        let rest: Substring?
        if let eq = entry.firstIndex(of: "=") {
            key = String(entry[..<eq])
            rest = entry[entry.index(after: eq)...]
        } else {
            key = entry
            rest = nil
        }
        guard isKey(key) else {
            return .problem(
                "\"\(key)\" is not a key (a key is lower-case letters, digits and _-.*, starting with a letter)")
        }
        guard let rest else { return .entry(key, .bare) }
        guard let value = value(rest) else { return .problem("\(entry) has a value CMCD cannot hold") }
        return .entry(key, value)
    }

    /// RFC 8941's key: `( lcalpha / "*" ) *( lcalpha / DIGIT / "_" / "-" / "." / "*" )`.
    static func isKey(_ s: String) -> Bool {
        guard let first = s.unicodeScalars.first, first == "*" || ("a"..."z").contains(first) else { return false }
        return s.unicodeScalars.allSatisfy {
            ("a"..."z").contains($0) || ("0"..."9").contains($0) || "_-.*".unicodeScalars.contains($0)
        }
    }

    private static func value(_ text: Substring) -> Parsed? {
        guard let first = text.unicodeScalars.first else { return nil }
        if first == "\"" {
            guard text.count >= 2, text.hasSuffix("\"") else { return nil }
            var out = ""
            var escaped = false
            for ch in text.dropFirst().dropLast() {
                if escaped {
                    guard ch == "\"" || ch == "\\" else { return nil }
                    out.append(ch)
                    escaped = false
                } else if ch == "\\" {
                    escaped = true
                } else if ch == "\"" {
                    return nil
                } else {
                    out.append(ch)
                }
            }
            return escaped ? nil : .quoted(out)
        }
        if text == "?1" { return .flag(true) }
        if text == "?0" { return .flag(false) }
        if first == "-" || ("0"..."9").contains(first) {
            return isNumber(text) ? .number(String(text)) : nil
        }
        if first == "*" || ("a"..."z").contains(first) || ("A"..."Z").contains(first) {
            let tokenChars = "!#$%&'*+-.^_`|~:/"
            let ok = text.unicodeScalars.allSatisfy {
                ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0)
                    || tokenChars.unicodeScalars.contains($0)
            }
            return ok ? .token(String(text)) : nil
        }
        return nil
    }

    /// RFC 8941's integer (up to 15 digits) or decimal (up to 12 digits, 3 after the point).
    static func isNumber(_ text: Substring) -> Bool {
        let digits = text.hasPrefix("-") ? text.dropFirst() : text
        let parts = digits.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy(\.isASCIIDigitCharacter) }) else { return false }
        if parts.count == 1 { return parts[0].count <= 15 }
        return parts.count == 2 && parts[0].count <= 12 && parts[1].count <= 3
    }

    /// `value` as `key` requires it.
    static func typed(_ value: Parsed, key: CMCDKey) -> Typed {
        let k = key.name
        let shown = "\(k)=\(value.written)"
        switch key.kind {
        case .integer:
            if case .number(let n) = value, let i = Int64(n) { return .value(.integer(i)) }
            return .problem("\(shown) is not an integer (\(key.meaning))")
        case .decimal:
            if case .number(let n) = value, let d = Double(n) { return .value(.decimal(d)) }
            return .problem("\(shown) is not a number (\(key.meaning))")
        case .boolean:
            switch value {
            case .bare: return .value(.boolean(true))
            case .flag(let b): return .value(.boolean(b))
            case .token("true"): return .value(.boolean(true))
            case .token("false"): return .value(.boolean(false))
            default: return .problem("\(shown) is not a boolean (\(key.meaning): the key alone means true)")
            }
        case .token(let allowed):
            guard case .token(let t) = value else {
                return .problem("\(shown) must be a token, one of \(allowed.joined(separator: ", ")) (\(key.meaning))")
            }
            guard allowed.contains(t) else {
                return .problem("\(shown) is not one of \(allowed.joined(separator: ", ")) (\(key.meaning))")
            }
            return .value(.token(t))
        case .string(let maxLength):
            guard case .quoted(let s) = value else {
                return .problem("\(shown) must be a quoted string (\(key.meaning))")
            }
            if let maxLength, s.count > maxLength {
                return .problem("\(k) is \(s.count) characters long, more than \(maxLength) (\(key.meaning))")
            }
            if k == "nrr", CMCDNextRange(s) == nil {
                return .problem("\(shown) is not a range such as \"12323-48763\" (\(key.meaning))")
            }
            return .value(.string(s))
        }
    }
}

extension Character {
    /// `0`…`9`.
    var isASCIIDigitCharacter: Bool { ("0"..."9").contains(self) }
}

extension StringProtocol {
    /// Without leading and trailing spaces and tabs.
    var trimmingWhitespace: String {
        var s = Substring(self)
        while let f = s.first, f == " " || f == "\t" { s.removeFirst() }
        while let l = s.last, l == " " || l == "\t" { s.removeLast() }
        return String(s)
    }
}
