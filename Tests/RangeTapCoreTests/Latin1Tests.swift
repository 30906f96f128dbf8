import RangeTapCore
import Testing

/// `Latin1` maps each byte to the code point of the same value and back. It writes UTF-8 at once
/// rather than scalar by scalar; held here to the scalar reading it replaced.
@Suite("Latin1")
struct Latin1Tests {
    static func reference(_ bytes: [UInt8]) -> String {
        var s = String.UnicodeScalarView()
        for b in bytes { s.append(Unicode.Scalar(b)) }
        return String(s)
    }

    @Test func randomBytesDecodeAsTheScalarLoopDidAndRoundTrip() {
        var rng = SeededGenerator(seed: 0x1A71)
        for round in 0..<5_000 {
            let count = Int.random(in: 0...200, using: &rng)
            // Half the inputs pure ASCII (the fast path), half with any byte.
            let top: UInt8 = round % 2 == 0 ? 0x7F : 0xFF
            let bytes = (0..<count).map { _ in UInt8.random(in: 0...top, using: &rng) }
            let got = Latin1.string(bytes)
            #expect(Array(got.unicodeScalars) == Array(Self.reference(bytes).unicodeScalars))
            #expect(Latin1.bytes(got) == bytes)
            // A sequence without contiguous storage takes the same path.
            #expect(Latin1.string(bytes.lazy.map { $0 }) == got)
            if Latin1.bytes(got) != bytes { return }
        }
    }

    @Test func everyByteValue() {
        let all = (0...255).map(UInt8.init)
        let s = Latin1.string(all)
        let values: [UInt32] = Array(0...255)
        #expect(s.unicodeScalars.map(\.value) == values)
        #expect(Latin1.bytes(s) == all)
        #expect(Latin1.bytes("a€b") == Array("a?b".utf8))
        #expect(Latin1.bytes("") == [])
    }
}
