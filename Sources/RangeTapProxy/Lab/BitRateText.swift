import RangeTapCore

/// Link rates as users write them in `--shape rate=…`: `64000bit`, `500kbit`, `1.5mbit`, `2mbit`,
/// `1gbit` — bits per second in powers of 1000, as `tc` writes them.
///
/// Byte spellings (`bps`, `kbps`, `mbps`, `MB/s`, …) are refused: whether they mean bits or bytes
/// differs between tools, and mixing them up is the classic mistake (a factor of 8). A bare
/// number is refused for the same reason.
enum BitRateText {
    /// What a rate may be, for messages.
    static let expected =
        "write bits per second with a unit: 64000bit, 500kbit, 1.5mbit, 2mbit or 1gbit (powers of 1000, as tc writes them)"

    /// The highest rate accepted: 1 Tbit/s.
    static let maximum: Int64 = 1_000_000_000_000

    private static let units: [(suffix: String, factor: Int64)] = [
        ("gbit", 1_000_000_000), ("mbit", 1_000_000), ("kbit", 1000), ("bit", 1),
    ]

    /// Why a rate did not parse.
    enum Problem: Error {
        /// Not a rate at all.
        case notARate
        /// A byte spelling (`mbps`, `MB/s`).
        case bytes
        /// Zero.
        case zero
        /// More than ``maximum``.
        case tooFast

        /// The message after the quoted item.
        var message: String {
            switch self {
            case .notARate: BitRateText.expected
            case .bytes:
                "rates are written in bits, not bytes (bps, kbps, mbps and B/s are refused because tools disagree on them): write kbit, mbit or gbit, e.g. 2mbit; 1 byte is 8 bits, so 2 MB/s is 16mbit"
            case .zero:
                "a rate of 0 would carry nothing: leave rate out for an unlimited link, or write a rate such as 500kbit"
            case .tooFast: "at most 1000gbit: leave rate out for an unlimited link"
            }
        }
    }

    /// Bits per second in `text`.
    static func bitsPerSecond(_ text: String) throws(Problem) -> Int64 {
        let t = text.trimmingLabBlanks().lowercased()
        if t.hasSuffix("bps") || t.hasSuffix("b/s") || t.hasSuffix("byte") || t.hasSuffix("bytes") { throw .bytes }
        guard let unit = units.first(where: { t.hasSuffix($0.suffix) }) else {
            if !t.isEmpty, t.allSatisfy({ $0 == "0" || $0 == "." }) { throw .zero }
            throw .notARate
        }
        let number = t.dropLast(unit.suffix.count).trimmingLabBlanks()
        guard !number.isEmpty, number.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }),
            number.filter({ $0 == "." }).count <= 1, number != ".", let value = Double(number), value.isFinite
        else { throw .notARate }
        let bits = (value * Double(unit.factor)).rounded()
        if bits < 1 { throw .zero }
        if bits > Double(maximum) { throw .tooFast }
        return Int64(bits)
    }

    /// `bits` per second the way ``bitsPerSecond(_:)`` reads it back: the largest unit that
    /// writes it with at most three decimals (`2mbit`, `1.5mbit`, `64kbit`, `1234bit`).
    static func format(_ bits: Int64) -> String {
        for unit in units where unit.factor >= 1000 && bits >= unit.factor && bits % (unit.factor / 1000) == 0 {
            let whole = bits / unit.factor
            let thousandths = (bits % unit.factor) / (unit.factor / 1000)
            guard thousandths != 0 else { return "\(whole)\(unit.suffix)" }
            var fraction = String(thousandths)
            fraction = String(repeating: "0", count: 3 - fraction.count) + fraction
            while fraction.hasSuffix("0") { fraction.removeLast() }
            return "\(whole).\(fraction)\(unit.suffix)"
        }
        return "\(bits)bit"
    }
}
