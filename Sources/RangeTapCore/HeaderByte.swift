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
    ///
    /// Inlinable, so each caller gets it specialized for its collections (a call through the
    /// generic entry point cost a witness-table call per byte: 4 % of the event loop's time on
    /// fresh connections); bytes in contiguous storage are compared through buffer pointers.
    @inlinable
    public static func equalsIgnoringASCIICase(_ a: some Collection<UInt8>, _ b: some Collection<UInt8>) -> Bool {
        guard a.count == b.count else { return false }
        let contiguous = a.withContiguousStorageIfAvailable { pa in
            b.withContiguousStorageIfAvailable { pb in
                for i in 0..<pa.count where lower(pa[i]) != lower(pb[i]) { return false }
                return true
            }
        }
        if let contiguous, let result = contiguous { return result }
        return zip(a, b).allSatisfy { lower($0) == lower($1) }
    }

    /// `s` with its ASCII capital letters made small, other characters as they are: a field
    /// name (a token, at most 15 bytes as a rule) becomes a small string, without an allocation
    /// or `lowercased()`'s Unicode tables.
    static func asciiLowercased(_ s: Substring) -> String {
        let u = s.utf8
        guard u.allSatisfy({ $0 < 0x80 }) else { return s.lowercased() }
        guard u.contains(where: { $0 &- 0x41 < 26 }) else { return String(s) }
        return String(unsafeUninitializedCapacity: u.count) { buffer in
            var n = 0
            for b in u {
                buffer[n] = lower(b)
                n += 1
            }
            return n
        }
    }

    /// Whether `lowercasedNames` holds `name` ignoring ASCII case: for a token `name`, what
    /// `lowercasedNames.contains(name.lowercased())` answers, without a lowercased copy and its
    /// hash (the sets hop-by-hop and `Connection` rules look names up in hold a few each).
    public static func contains(_ lowercasedNames: Set<String>, _ name: Substring) -> Bool {
        lowercasedNames.contains { equalsIgnoringASCIICase($0.utf8, name.utf8) }
    }

    /// The comma-separated pieces of a field value, as `value.split(separator: ",")` gives them
    /// (empty pieces left out), split by bytes when the value is ASCII (every real one is: a
    /// comma is one character there) and by characters otherwise.
    public static func commaSeparated(_ value: Substring) -> [Substring] {
        guard value.utf8.allSatisfy({ $0 < 0x80 }) else { return value.split(separator: ",") }
        return value.utf8.split(separator: UInt8(ascii: ",")).map { Substring($0) }
    }

    /// `b` with an ASCII capital letter made small.
    @inlinable
    static func lower(_ b: UInt8) -> UInt8 {
        b &- 0x41 < 26 ? b | 0x20 : b
    }
}
