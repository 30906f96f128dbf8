/// Appends one flat JSON object to a byte buffer, key by key, without Foundation.
///
/// Used on the capture writer's thread, where one object is written per body chunk.
struct JSONLineBuilder {
    private(set) var bytes: [UInt8]
    private var needsComma = false

    init(into bytes: [UInt8] = []) {
        self.bytes = bytes
        self.bytes.append(UInt8(ascii: "{"))
    }

    mutating func finish() -> [UInt8] {
        bytes.append(UInt8(ascii: "}"))
        bytes.append(UInt8(ascii: "\n"))
        return bytes
    }

    private mutating func key(_ k: StaticString) {
        if needsComma { bytes.append(UInt8(ascii: ",")) }
        needsComma = true
        bytes.append(UInt8(ascii: "\""))
        k.withUTF8Buffer { bytes.append(contentsOf: $0) }
        bytes.append(UInt8(ascii: "\""))
        bytes.append(UInt8(ascii: ":"))
    }

    mutating func add(_ k: StaticString, _ v: String) {
        key(k)
        appendString(v)
    }

    mutating func add(_ k: StaticString, _ v: String?) {
        guard let v else { return }
        add(k, v)
    }

    mutating func add<I: BinaryInteger>(_ k: StaticString, _ v: I) {
        key(k)
        bytes.append(contentsOf: String(v).utf8)
    }

    mutating func add<I: BinaryInteger>(_ k: StaticString, _ v: I?) {
        guard let v else { return }
        add(k, v)
    }

    mutating func add(_ k: StaticString, _ v: Bool) {
        key(k)
        bytes.append(contentsOf: (v ? "true" : "false").utf8)
    }

    mutating func add(_ k: StaticString, _ v: Bool?) {
        guard let v else { return }
        add(k, v)
    }

    mutating func add(_ k: StaticString, _ lines: [HeaderLine]) {
        key(k)
        bytes.append(UInt8(ascii: "["))
        for (i, line) in lines.enumerated() {
            if i > 0 { bytes.append(UInt8(ascii: ",")) }
            appendString(line.raw)
        }
        bytes.append(UInt8(ascii: "]"))
    }

    private mutating func appendString(_ s: String) {
        bytes.append(UInt8(ascii: "\""))
        for scalar in s.unicodeScalars {
            switch scalar.value {
            case 0x22: bytes.append(contentsOf: [0x5C, 0x22])
            case 0x5C: bytes.append(contentsOf: [0x5C, 0x5C])
            case 0x0A: bytes.append(contentsOf: [0x5C, UInt8(ascii: "n")])
            case 0x0D: bytes.append(contentsOf: [0x5C, UInt8(ascii: "r")])
            case 0x09: bytes.append(contentsOf: [0x5C, UInt8(ascii: "t")])
            case 0..<0x20, 0x7F:
                let hex = Array("0123456789abcdef".utf8)
                bytes.append(contentsOf: [0x5C, UInt8(ascii: "u"), 0x30, 0x30, hex[Int(scalar.value >> 4)], hex[Int(scalar.value & 0xF)]])
            case 0x20..<0x80:
                bytes.append(UInt8(scalar.value))
            default:
                bytes.append(contentsOf: Character(scalar).utf8)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }
}
