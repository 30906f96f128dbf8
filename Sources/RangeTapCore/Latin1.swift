/// Byte-exact text for header lines: each byte maps to the code point of the same value
/// (ISO-8859-1), so any bytes a server sends survive a round trip through JSON unchanged.
public enum Latin1 {
    /// Decodes bytes one-to-one into a String.
    public static func string<Bytes: Sequence>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        var s = String.UnicodeScalarView()
        for b in bytes { s.append(Unicode.Scalar(b)) }
        return String(s)
    }

    /// Encodes back to the original bytes; code points above U+00FF (which `string` never
    /// produces) become `?`.
    public static func bytes(_ string: String) -> [UInt8] {
        string.unicodeScalars.map { $0.value <= 0xFF ? UInt8($0.value) : UInt8(ascii: "?") }
    }
}
