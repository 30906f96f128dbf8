/// Escaping for text taken from a capture before it goes into HTML or SVG.
///
/// Capture text is arbitrary bytes mapped to Latin-1 (header lines, targets, messages), so
/// besides the HTML specials it may hold control characters, which are neither valid in HTML
/// nor visible. They are shown as `\r`, `\n`, `\t` or `\xNN` instead, so a stray byte is seen,
/// never interpreted. Numeric references are not used for them: HTML maps `&#x80;`–`&#x9F;` to
/// Windows-1252 characters, which would hide the real byte.
public enum HTMLEscaping {
    /// `s` safe as element text and as a quoted attribute value.
    public static func escape(_ s: some StringProtocol) -> String {
        if !s.unicodeScalars.contains(where: needsWork) { return String(s) }
        var out = ""
        out.reserveCapacity(s.utf8.count + 16)
        for u in s.unicodeScalars {
            switch u {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&#39;"
            case "\r": out += "\\r"
            case "\n": out += "\\n"
            case "\t": out += "\\t"
            default:
                if isControl(u) {
                    out += "\\x" + hex2(u.value)
                } else {
                    out.unicodeScalars.append(u)
                }
            }
        }
        return out
    }

    /// A raw header line for a `<pre>`: the content escaped, its terminator (`\r\n` or a bare
    /// `\n`) shown dimmed so line-ending defects are visible.
    public static func headerLine(_ raw: String) -> String {
        var scalars = Array(raw.unicodeScalars)
        var terminator = ""
        if scalars.last == "\n" {
            scalars.removeLast()
            terminator = "\\n"
            if scalars.last == "\r" {
                scalars.removeLast()
                terminator = "\\r\\n"
            }
        }
        let content = escape(String(String.UnicodeScalarView(scalars)))
        return terminator.isEmpty ? content : content + "<span class=\"eol\">" + terminator + "</span>"
    }

    private static func needsWork(_ u: Unicode.Scalar) -> Bool {
        switch u {
        case "&", "<", ">", "\"", "'": true
        default: isControl(u)
        }
    }

    private static func isControl(_ u: Unicode.Scalar) -> Bool {
        u.value < 0x20 || (u.value >= 0x7F && u.value <= 0x9F)
    }

    private static func hex2(_ v: UInt32) -> String {
        let digits = Array("0123456789ABCDEF")
        return String([digits[Int(v >> 4) & 0xF], digits[Int(v) & 0xF]])
    }
}
