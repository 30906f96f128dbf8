import RangeTapCore
import Testing

/// `HeaderByte.equalsIgnoringASCIICase`: the byte comparison every header-name and scheme test
/// goes through, on contiguous and non-contiguous collections alike.
@Suite("HeaderByte.equalsIgnoringASCIICase")
struct HeaderByteTests {
    /// Every pair of bytes: equal ignoring case exactly when they are equal or differ only in
    /// the case of an ASCII letter (so `@`/`` ` ``, `[`/`{` and bytes above 0x7F never match
    /// another byte).
    @Test func everyPairOfBytes() {
        func folded(_ b: UInt8) -> UInt8 { (65...90).contains(b) ? b + 32 : b }
        for a in UInt8.min...UInt8.max {
            for b in UInt8.min...UInt8.max {
                let expected = folded(a) == folded(b)
                #expect(HeaderByte.equalsIgnoringASCIICase([a], [b]) == expected, "\(a) vs \(b)")
            }
        }
    }

    @Test(arguments: [
        ("Content-Range", "content-range", true),
        ("CONTENT-RANGE", "content-range", true),
        ("Content-Rangf", "content-range", false),
        ("Content-Range ", "content-range", false),
        ("", "", true),
        ("é", "É", false),
    ])
    func strings(a: String, b: String, equal: Bool) {
        // Contiguous (String's UTF-8), then the same bytes in collections without contiguous storage.
        #expect(HeaderByte.equalsIgnoringASCIICase(a.utf8, b.utf8) == equal)
        #expect(HeaderByte.equalsIgnoringASCIICase(a.utf8.lazy.map { $0 }, b.utf8.reversed().reversed()) == equal)
        #expect(HeaderByte.equalsIgnoringASCIICase(Array(a.utf8), b.utf8.lazy.map { $0 }) == equal)
    }
}
