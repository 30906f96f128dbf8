/// Byte-exact text for header lines: each byte maps to the code point of the same value
/// (ISO-8859-1), so any bytes a server sends survive a round trip through JSON unchanged.
public enum Latin1 {
    /// Decodes bytes one-to-one into a String.
    public static func string<Bytes: Sequence>(_ bytes: Bytes) -> String where Bytes.Element == UInt8 {
        // Every header line of every response comes here: write its UTF-8 at once (ASCII bytes
        // as they are, 0x80-0xFF as two bytes each) rather than appending scalar by scalar.
        if let s = bytes.withContiguousStorageIfAvailable(string(buffer:)) { return s }
        return Array(bytes).withUnsafeBufferPointer(string(buffer:))
    }

    private static func string(buffer: UnsafeBufferPointer<UInt8>) -> String {
        var high = 0
        for b in buffer where b >= 0x80 { high += 1 }
        if high == 0 { return String(decoding: buffer, as: UTF8.self) }
        return String(unsafeUninitializedCapacity: buffer.count + high) { out in
            var i = 0
            for b in buffer {
                if b < 0x80 {
                    out[i] = b
                    i += 1
                } else {
                    out[i] = 0xC0 | (b >> 6)
                    out[i + 1] = 0x80 | (b & 0x3F)
                    i += 2
                }
            }
            return i
        }
    }

    /// Encodes back to the original bytes; code points above U+00FF (which `string` never
    /// produces) become `?`.
    public static func bytes(_ string: String) -> [UInt8] {
        // ASCII (nearly every header line): the UTF-8 bytes are the Latin-1 bytes.
        if string.utf8.allSatisfy({ $0 < 0x80 }) { return Array(string.utf8) }
        return string.unicodeScalars.map { $0.value <= 0xFF ? UInt8($0.value) : UInt8(ascii: "?") }
    }
}
