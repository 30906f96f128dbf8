/// Durations as users write them on the command line: `500ms`, `2s`, `1.5s`, `1m`, or `0` (off).
public enum DurationText {
    /// Why a duration did not parse.
    public struct ParseError: Error, CustomStringConvertible, Equatable {
        /// What was given.
        public let text: String
        public var description: String {
            "\"\(text)\" is not a duration: write it like 500ms, 2s, 1.5s or 1m (0 turns the limit off)"
        }
    }

    /// Milliseconds in `text`.
    public static func milliseconds(_ text: String) throws(ParseError) -> Int {
        let t = text.trimmingHTTPWhitespace().lowercased()
        if t == "0" { return 0 }
        let units: [(String, Double)] = [("ms", 1), ("s", 1000), ("m", 60_000), ("h", 3_600_000)]
        for (suffix, factor) in units where t.hasSuffix(suffix) {
            let number = t.dropLast(suffix.count)
            guard !number.isEmpty, number.allSatisfy({ $0.isNumber || $0 == "." }),
                  let value = Double(number), value.isFinite, value >= 0, value * factor <= Double(Int32.max)
            else { break }
            return Int((value * factor).rounded())
        }
        throw ParseError(text: text)
    }
}
