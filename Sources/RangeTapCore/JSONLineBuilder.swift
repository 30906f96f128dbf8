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
        if let n = Int64(exactly: v) {
            appendDecimal(n)
        } else {
            bytes.append(contentsOf: String(v).utf8)
        }
    }

    /// `n` in decimal, as `String(n)` spells it. `String(_:)` of a generic integer went through
    /// the generic radix conversion and a new string for every number of every event (a tenth of
    /// the time the writer spent encoding events, measured in the history of docs/performance.md).
    mutating func appendDecimal(_ n: Int64) {
        if n < 0 { bytes.append(UInt8(ascii: "-")) }
        var m = n.magnitude
        if m < 10 {
            bytes.append(0x30 + UInt8(m))
            return
        }
        // At most 20 digits (UInt64.max), written backwards into a fixed tuple.
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)
        withUnsafeMutableBytes(of: &digits) { raw in
            var i = raw.count
            while m > 0 {
                i -= 1
                raw[i] = 0x30 + UInt8(m % 10)
                m /= 10
            }
            bytes.append(contentsOf: UnsafeRawBufferPointer(rebasing: raw[i...]))
        }
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

    /// `s` as a JSON string: runs of bytes that need no escape are copied whole, and
    /// non-ASCII UTF-8 passes through as it is (JSON text is UTF-8).
    private mutating func appendString(_ s: String) {
        bytes.append(UInt8(ascii: "\""))
        var s = s
        s.withUTF8 { u in
            var run = 0
            for i in 0..<u.count {
                let b = u[i]
                guard b < 0x20 || b == 0x22 || b == 0x5C || b == 0x7F else { continue }
                if run < i { bytes.append(contentsOf: UnsafeBufferPointer(rebasing: u[run..<i])) }
                appendEscaped(b)
                run = i + 1
            }
            if run < u.count { bytes.append(contentsOf: UnsafeBufferPointer(rebasing: u[run...])) }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    private mutating func appendEscaped(_ b: UInt8) {
        bytes.append(0x5C)
        switch b {
        case 0x22, 0x5C: bytes.append(b)
        case 0x0A: bytes.append(UInt8(ascii: "n"))
        case 0x0D: bytes.append(UInt8(ascii: "r"))
        case 0x09: bytes.append(UInt8(ascii: "t"))
        default:
            let hex: StaticString = "0123456789abcdef"
            bytes.append(UInt8(ascii: "u"))
            bytes.append(0x30)
            bytes.append(0x30)
            bytes.append(hex.utf8Start[Int(b >> 4)])
            bytes.append(hex.utf8Start[Int(b & 0xF)])
        }
    }
}
