/// Byte counts as users write them on the command line: `262144`, `256k`, `1m`, `1.5g`, `64KiB`.
///
/// Units are powers of 1024, as buffer and cache sizes are: `k`/`kb`/`kib` (1024), `m`/`mb`/`mib`,
/// `g`/`gb`/`gib`, `t`/`tb`/`tib`, and `b` for bytes; case does not matter. Every flag that takes a
/// size parses it here, so they all accept the same spellings and fail with the same message.
public enum SizeText {
    /// Why a size did not parse.
    public struct ParseError: Error, CustomStringConvertible, Equatable {
        /// What was given.
        public let text: String

        /// A parse error for `text`.
        public init(text: String) { self.text = text }

        public var description: String {
            "\"\(text)\" is not a size: write a number of bytes (262144) or one with k, m or g (256k, 1m, 1.5g; powers of 1024)"
        }
    }

    private static let units: [(suffix: String, factor: Int64)] = [
        ("kib", 1 << 10), ("mib", 1 << 20), ("gib", 1 << 30), ("tib", 1 << 40),
        ("kb", 1 << 10), ("mb", 1 << 20), ("gb", 1 << 30), ("tb", 1 << 40),
        ("k", 1 << 10), ("m", 1 << 20), ("g", 1 << 30), ("t", 1 << 40), ("b", 1),
    ]

    /// Bytes in `text`; a fraction of a unit is rounded to the nearest byte.
    public static func bytes(_ text: String) throws(ParseError) -> Int64 {
        let t = text.trimmingHTTPWhitespace().lowercased()
        var number = Substring(t)
        var factor: Int64 = 1
        if let unit = units.first(where: { t.hasSuffix($0.suffix) }) {
            number = number.dropLast(unit.suffix.count)
            factor = unit.factor
        }
        number = number.drop { $0 == " " }
        guard !number.isEmpty, number.allSatisfy({ $0.isASCII && ($0.isNumber || $0 == ".") }) else {
            throw ParseError(text: text)
        }
        if let whole = Int64(number) {
            let (bytes, overflow) = whole.multipliedReportingOverflow(by: factor)
            guard !overflow else { throw ParseError(text: text) }
            return bytes
        }
        // A fraction: exact enough below 2⁵³ bytes, refused above.
        guard factor > 1, let value = Double(number), value.isFinite else { throw ParseError(text: text) }
        let bytes = (value * Double(factor)).rounded()
        guard bytes < 0x1p53 else { throw ParseError(text: text) }
        return Int64(bytes)
    }
}
