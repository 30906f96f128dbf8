import RangeTapCore

/// ISO 8601 durations as MPDs write them (`PT1H2M3.5S`, `P1DT12H`).
enum ISO8601Duration {
    /// Seconds in `text`, nil when it is not a duration. Years count 365 days and months 30,
    /// as DASH players do; only the seconds may have a fraction.
    static func seconds(_ text: String) -> Double? {
        var rest = Substring(text.trimmingSpacesAndNewlines())
        guard rest.first == "P" else { return nil }
        rest = rest.dropFirst()
        var total = 0.0
        var inTime = false
        var number = ""
        var sawField = false
        for c in rest {
            if c == "T" {
                guard !inTime, number.isEmpty else { return nil }
                inTime = true
                continue
            }
            if c.isNumber || c == "." || c == "," {
                number.append(c == "," ? "." : c)
                continue
            }
            guard let value = Double(number), value.isFinite, value >= 0 else { return nil }
            number = ""
            switch (c, inTime) {
            case ("Y", false): total += value * 365 * 86_400
            case ("M", false): total += value * 30 * 86_400
            case ("W", false): total += value * 7 * 86_400
            case ("D", false): total += value * 86_400
            case ("H", true): total += value * 3_600
            case ("M", true): total += value * 60
            case ("S", true): total += value
            default: return nil
            }
            sawField = true
        }
        guard number.isEmpty, sawField, total.isFinite else { return nil }
        return total
    }
}

extension String {
    /// The text without leading and trailing white space.
    fileprivate func trimmingSpacesAndNewlines() -> Substring {
        var s = Substring(self)
        while let f = s.first, f.isWhitespace { s = s.dropFirst() }
        while let l = s.last, l.isWhitespace { s = s.dropLast() }
        return s
    }
}
