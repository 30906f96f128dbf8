import Foundation

/// A fast path for the commonest line of a capture, a `chunk` event: a flat object of integer
/// fields. Anything it does not recognise exactly returns nil, and the full decoder takes over.
enum ChunkLineParser {
    private static let prefix = Array(#"{"type":"chunk","#.utf8)

    static func parse(_ line: Data) -> ChunkEvent? {
        line.withUnsafeBytes { raw -> ChunkEvent? in
            let b = raw.bindMemory(to: UInt8.self)
            guard b.count > prefix.count, b.count < 512 else { return nil }
            for i in 0..<prefix.count where b[i] != prefix[i] { return nil }
            var i = prefix.count
            var t: Int64?, ex: Int64?, size: Int64?, off: Int64?, res: Int64?, at: Int64?
            while i < b.count {
                guard b[i] == UInt8(ascii: "\"") else { return nil }
                i += 1
                let keyStart = i
                while i < b.count, b[i] != UInt8(ascii: "\"") { i += 1 }
                guard i < b.count else { return nil }
                let key = b[keyStart..<i]
                i += 1
                guard i < b.count, b[i] == UInt8(ascii: ":") else { return nil }
                i += 1
                var n: Int64 = 0
                var digits = 0
                let numberStart = i
                while i < b.count, b[i] >= 0x30, b[i] <= 0x39, digits < 18 {
                    n = n * 10 + Int64(b[i] - 0x30)
                    i += 1
                    digits += 1
                }
                guard digits > 0, i < b.count else { return nil }
                // JSON has no leading zeros (`05`): the full decoder refuses the line, so must this.
                guard digits == 1 || b[numberStart] != UInt8(ascii: "0") else { return nil }
                // A repeated key is left to the full decoder, which keeps the first value
                // (this parser kept the last: found while fuzzing, issue 10).
                switch Array(key) {
                case Array("t".utf8):
                    guard t == nil else { return nil }
                    t = n
                case Array("ex".utf8):
                    guard ex == nil else { return nil }
                    ex = n
                case Array("size".utf8):
                    guard size == nil else { return nil }
                    size = n
                case Array("off".utf8):
                    guard off == nil else { return nil }
                    off = n
                case Array("res".utf8):
                    guard res == nil else { return nil }
                    res = n
                case Array("at".utf8):
                    guard at == nil else { return nil }
                    at = n
                default: return nil
                }
                if b[i] == UInt8(ascii: "}") {
                    guard i == b.count - 1 else { return nil }
                    break
                }
                guard b[i] == UInt8(ascii: ",") else { return nil }
                i += 1
            }
            guard let t, let ex, let size, let off else { return nil }
            return ChunkEvent(
                t: t, exchange: Int(ex), size: Int(size), offset: off, resourceOffset: res, bodyOffset: at)
        }
    }
}
