/// The preferred HTTP date format, IMF-fixdate (RFC 9110 §5.6.7): `Sun, 06 Nov 1994 08:49:37 GMT`.
enum HTTPDate {
    private static let days = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// Seconds since 1970 of an IMF-fixdate, or `nil` when `text` is not one (the obsolete
    /// RFC 850 and asctime forms included: senders must not generate them).
    static func parse(_ text: some StringProtocol) -> Int64? {
        let parts = text.split(separator: " ", omittingEmptySubsequences: false)
        guard parts.count == 6, parts[0].count == 4, parts[0].hasSuffix(","), days.contains(String(parts[0].dropLast())),
              parts[1].count == 2, let day = Int(parts[1]),
              let month = months.firstIndex(of: String(parts[2])),
              parts[3].count == 4, let year = Int(parts[3]),
              parts[5] == "GMT"
        else { return nil }
        let hms = parts[4].split(separator: ":", omittingEmptySubsequences: false)
        guard hms.count == 3, hms.allSatisfy({ $0.count == 2 }), let h = Int(hms[0]), let m = Int(hms[1]), let s = Int(hms[2]),
              (1...31).contains(day), h < 24, m < 60, s < 61
        else { return nil }
        let seconds = daysFromCivil(year: year, month: month + 1, day: day) * 86_400 + Int64(h * 3600 + m * 60 + s)
        // The weekday must agree with the date.
        guard days[Int(((seconds / 86_400) % 7 + 7 + 3) % 7)] == String(parts[0].dropLast()) else { return nil }
        return seconds
    }

    /// The IMF-fixdate of `seconds` since 1970.
    static func format(_ seconds: Int64) -> String {
        let dayNumber = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let rest = seconds - dayNumber * 86_400
        let (y, m, d) = civilFromDays(dayNumber)
        func two(_ n: Int64) -> String { n < 10 ? "0\(n)" : "\(n)" }
        let weekday = days[Int(((dayNumber % 7) + 7 + 3) % 7)]
        return "\(weekday), \(two(d)) \(months[Int(m) - 1]) \(y) \(two(rest / 3600)):\(two(rest / 60 % 60)):\(two(rest % 60)) GMT"
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's algorithm).
    static func daysFromCivil(year: Int, month: Int, day: Int) -> Int64 {
        let y = Int64(month <= 2 ? year - 1 : year)
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let mp = Int64(month > 2 ? month - 3 : month + 9)
        let doy = (153 * mp + 2) / 5 + Int64(day) - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    /// The date of a day number since 1970-01-01.
    static func civilFromDays(_ z0: Int64) -> (Int64, Int64, Int64) {
        let z = z0 + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (yoe + era * 400 + (m <= 2 ? 1 : 0), m, d)
    }
}
