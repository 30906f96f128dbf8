/// Durations as users write them on the command line: `500ms`, `2s`, `1.5s`, `1m`, `1h`, or `0`.
///
/// Every flag that takes a duration parses it here, so they all accept the same spellings and
/// fail with the same message. A flag whose unit was always seconds (`probe --timeout 10`) passes
/// ``BareNumber/seconds`` to keep accepting a plain number.
public enum DurationText {
    /// What a number without a unit means.
    public enum BareNumber: Sendable, Equatable {
        /// Only `0` may go without a unit: `2` could be seconds or milliseconds.
        case rejected
        /// A plain number is seconds (`10` is `10s`).
        case seconds
    }

    /// Why a duration did not parse.
    public struct ParseError: Error, CustomStringConvertible, Equatable {
        /// What was given.
        public let text: String
        /// What a plain number would have meant.
        public let bareNumber: BareNumber

        /// A parse error for `text`.
        public init(text: String, bareNumber: BareNumber = .rejected) {
            self.text = text
            self.bareNumber = bareNumber
        }

        public var description: String {
            let plain = bareNumber == .seconds ? ", or a plain number of seconds" : ""
            return "\"\(text)\" is not a duration: write it like 500ms, 2s, 1.5s or 1m\(plain)"
        }
    }

    /// The largest duration accepted, in milliseconds (about 24 days).
    public static let largestMilliseconds = Int(Int32.max)

    /// Milliseconds in `text`.
    public static func milliseconds(_ text: String, bareNumber: BareNumber = .rejected) throws(ParseError) -> Int {
        let t = text.trimmingHTTPWhitespace().lowercased()
        if t == "0" { return 0 }
        let units: [(String, Double)] = [("ms", 1), ("s", 1000), ("m", 60_000), ("h", 3_600_000)]
        let bare: [(String, Double)] = bareNumber == .seconds ? [("", 1000)] : []
        for (suffix, factor) in units + bare where t.hasSuffix(suffix) {
            let number = t.dropLast(suffix.count)
            guard !number.isEmpty, number.allSatisfy({ $0.isNumber || $0 == "." }),
                let value = Double(number), value.isFinite, value >= 0, value * factor <= Double(largestMilliseconds)
            else { break }
            return Int((value * factor).rounded())
        }
        throw ParseError(text: text, bareNumber: bareNumber)
    }

    /// Seconds in `text` (milliseconds precision), for APIs that take a `Double` of seconds.
    public static func seconds(_ text: String, bareNumber: BareNumber = .rejected) throws(ParseError) -> Double {
        Double(try milliseconds(text, bareNumber: bareNumber)) / 1000
    }
}
