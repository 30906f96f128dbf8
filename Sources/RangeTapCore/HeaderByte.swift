/// The bytes a header line is read by, and the tests on them. All are ASCII, so matching them
/// in a string's UTF-8 view finds exactly the code points of the same value.
public enum HeaderByte {
    static let cr: UInt8 = 0x0D
    static let lf: UInt8 = 0x0A
    static let colon: UInt8 = 0x3A
    static let space: UInt8 = 0x20
    static let tab: UInt8 = 0x09

    /// A `tchar` of RFC 9110 §5.6.2 (a byte of a multi-byte UTF-8 sequence never is).
    static func isToken(_ b: UInt8) -> Bool {
        switch b {
        case 0x30...0x39, 0x41...0x5A, 0x61...0x7A: true
        // ! # $ % & ' * + - . ^ _ ` | ~
        case 0x21, 0x23...0x27, 0x2A, 0x2B, 0x2D, 0x2E, 0x5E...0x60, 0x7C, 0x7E: true
        default: false
        }
    }

    /// Whether `a` and `b` are the same bytes but for the case of ASCII letters.
    static func equalsIgnoringASCIICase(_ a: some StringProtocol, _ b: some StringProtocol) -> Bool {
        equalsIgnoringASCIICase(a.utf8, b.utf8)
    }

    /// Whether the bytes `a` and `b` are the same but for the case of ASCII letters (a header
    /// name against a known one, with no copy and no decoding).
    public static func equalsIgnoringASCIICase(_ a: some Collection<UInt8>, _ b: some Collection<UInt8>) -> Bool {
        guard a.count == b.count else { return false }
        return zip(a, b).allSatisfy { lower($0) == lower($1) }
    }

    private static func lower(_ b: UInt8) -> UInt8 {
        (0x41...0x5A).contains(b) ? b | 0x20 : b
    }
}
