/// Text that came from a capture (an upstream's header, a client's path, an error message),
/// made safe to print on a terminal.
public enum TerminalText {
    /// `text` with every control character except tab written out visibly: CR and LF as `\r`
    /// and `\n`, other C0 controls, DEL and C1 controls as `\xNN` (ESC as `\x1B`). An upstream
    /// cannot then move the cursor, recolour, retitle or clear the terminal of whoever reads
    /// `summary`, `inspect` or the live log, and a line stays one line.
    public static func escapingControls(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: needsEscape) else { return text }
        var out = ""
        out.reserveCapacity(text.utf8.count + 8)
        for scalar in text.unicodeScalars {
            guard needsEscape(scalar) else {
                out.unicodeScalars.append(scalar)
                continue
            }
            switch scalar.value {
            case 0x0D: out += "\\r"
            case 0x0A: out += "\\n"
            default: out += "\\x" + hex(scalar.value)
            }
        }
        return out
    }

    private static func needsEscape(_ s: Unicode.Scalar) -> Bool {
        switch s.value {
        case 0x09: false
        case 0..<0x20, 0x7F...0x9F: true
        default: false
        }
    }

    private static func hex(_ v: UInt32) -> String {
        let digits = Array("0123456789ABCDEF")
        return String([digits[Int(v >> 4) & 0xF], digits[Int(v) & 0xF]])
    }
}
