/// RFC 3986 §2.1 percent-decoding of a URL component into UTF-8 text.
public enum PercentDecoding {
    /// `text` with each `%XX` replaced by its byte; nil when a `%` is not followed by two hex
    /// digits or the bytes are not UTF-8. `+` stays `+` (CMCD is percent-encoded, not a form).
    public static func decode(_ text: some StringProtocol) -> String? {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        var it = text.utf8.makeIterator()
        while let b = it.next() {
            guard b == UInt8(ascii: "%") else {
                bytes.append(b)
                continue
            }
            guard let h = it.next().flatMap(hexValue), let l = it.next().flatMap(hexValue) else { return nil }
            bytes.append(h << 4 | l)
        }
        return String(validating: bytes, as: UTF8.self)
    }

    private static func hexValue(_ b: UInt8) -> UInt8? {
        switch b {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): b - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): b - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): b - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
