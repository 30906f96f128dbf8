import Foundation
import Testing
@testable import RangeTapCore

/// `JSONLineBuilder` copies runs of plain bytes instead of appending scalar by scalar; its output
/// must stay byte for byte what the scalar loop wrote, and decode back to the same string.
@Suite("JSONLineBuilder strings")
struct JSONLineBuilderStringTests {
    @Test func randomStringsEncodeAsBeforeAndDecodeBack() throws {
        var generator = SeededGenerator(seed: 0x150A)
        let pieces = [
            "a", "Z", " ", "\"", "\\", "\n", "\r", "\t", "\u{0}", "\u{1F}", "\u{7F}", "\u{80}", "é", "ÿ", "\u{301}",
            "😀", "/", "\r\n", "Content-Range: bytes 0-1/2",
        ]
        var strings = ["", "\"", "\\\\", "plain", String(repeating: "x", count: 5000)]
        for _ in 0..<5000 {
            strings.append(
                (0..<Int.random(in: 0...12, using: &generator)).map { _ in pieces.randomElement(using: &generator)! }
                    .joined())
        }
        for s in strings {
            var builder = JSONLineBuilder()
            builder.add("k", s)
            let line = builder.finish()
            #expect(
                line == [UInt8]("{\"k\":".utf8) + scalarLoop(s) + [UInt8]("}\n".utf8),
                Comment(rawValue: String(reflecting: s)))
            let object = try JSONSerialization.jsonObject(with: Data(line)) as? [String: String]
            #expect(
                object?["k"].map { Array($0.unicodeScalars) } == Array(s.unicodeScalars),
                Comment(rawValue: String(reflecting: s)))
        }
    }

    /// Integers are written digit by digit now; the text must be `String(n)`'s, for every width
    /// the capture uses, the extremes and numbers around each power of ten.
    @Test func integersAreSpelledAsStringSpellsThem() {
        var generator = SeededGenerator(seed: 0x150B)
        var numbers: [Int64] = [0, 1, -1, 9, 10, -10, 99, 100, Int64.max, Int64.min, Int64.max - 1, Int64.min + 1]
        var p: Int64 = 1
        for _ in 0..<18 {
            p *= 10
            numbers += [p - 1, p, p + 1, -(p - 1), -p, -(p + 1)]
        }
        for _ in 0..<20000 {
            numbers.append(
                Int64.random(in: Int64.min...Int64.max, using: &generator)
                    >> Int64.random(in: 0...63, using: &generator))
        }
        for n in numbers {
            var builder = JSONLineBuilder()
            builder.add("n", n)
            builder.add("i", Int(truncatingIfNeeded: n))
            builder.add("u", UInt64(truncatingIfNeeded: n))
            builder.add("s", Int32(truncatingIfNeeded: n))
            let expected =
                "{\"n\":\(n),\"i\":\(Int(truncatingIfNeeded: n)),\"u\":\(UInt64(truncatingIfNeeded: n)),\"s\":\(Int32(truncatingIfNeeded: n))}\n"
            #expect(builder.finish() == Array(expected.utf8), Comment(rawValue: String(n)))
        }
    }

    /// The encoding as the scalar loop wrote it.
    private func scalarLoop(_ s: String) -> [UInt8] {
        var bytes: [UInt8] = [0x22]
        for scalar in s.unicodeScalars {
            switch scalar.value {
            case 0x22: bytes += [0x5C, 0x22]
            case 0x5C: bytes += [0x5C, 0x5C]
            case 0x0A: bytes += [0x5C, UInt8(ascii: "n")]
            case 0x0D: bytes += [0x5C, UInt8(ascii: "r")]
            case 0x09: bytes += [0x5C, UInt8(ascii: "t")]
            case 0..<0x20, 0x7F:
                let hex = Array("0123456789abcdef".utf8)
                bytes += [
                    0x5C, UInt8(ascii: "u"), 0x30, 0x30, hex[Int(scalar.value >> 4)], hex[Int(scalar.value & 0xF)],
                ]
            case 0x20..<0x80: bytes.append(UInt8(scalar.value))
            default: bytes += Array(Character(scalar).utf8)
            }
        }
        return bytes + [0x22]
    }
}
