/// Lower-case hexadecimal text of bytes, from a table (no `String(format:)` per byte: this runs
/// once per exchange on the capture writer's thread).
public enum HexText {
    private static let digits = Array("0123456789abcdef".utf8)

    /// `bytes` as lower-case hex, two digits a byte.
    public static func lowercase<S: Sequence>(_ bytes: S) -> String where S.Element == UInt8 {
        var out: [UInt8] = []
        out.reserveCapacity(bytes.underestimatedCount * 2)
        for b in bytes {
            out.append(digits[Int(b >> 4)])
            out.append(digits[Int(b & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }
}
