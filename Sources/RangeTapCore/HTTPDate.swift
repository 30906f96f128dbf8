/// The preferred HTTP date format, IMF-fixdate (RFC 9110 §5.6.7): `Sun, 06 Nov 1994 08:49:37 GMT`.
public enum HTTPDate {
    private static let days = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    /// Seconds since 1970 of an IMF-fixdate, or `nil` when `text` is not one (the obsolete
    /// RFC 850 and asctime forms included: senders must not generate them).
    public static func parse(_ text: some StringProtocol) -> Int64? {
        let parts = text.split(separator: " ", omittingEmptySubsequences: false)
        guard parts.count == 6, parts[0].count == 4, parts[0].hasSuffix(","),
            days.contains(String(parts[0].dropLast())),
            parts[1].count == 2, let day = Int(parts[1]),
            let month = months.firstIndex(of: String(parts[2])),
            parts[3].count == 4, let year = Int(parts[3]),
            parts[5] == "GMT"
        else { return nil }
        let hms = parts[4].split(separator: ":", omittingEmptySubsequences: false)
        guard hms.count == 3, hms.allSatisfy({ $0.count == 2 }), let h = Int(hms[0]), let m = Int(hms[1]),
            let s = Int(hms[2]),
            (1...31).contains(day), h < 24, m < 60, s < 61
        else { return nil }
        let seconds = CivilCalendar.days(year: year, month: month + 1, day: day) * 86_400 + Int64(h * 3600 + m * 60 + s)
        // The weekday must agree with the date.
        guard days[Int(((seconds / 86_400) % 7 + 7 + 3) % 7)] == String(parts[0].dropLast()) else { return nil }
        return seconds
    }

    /// The IMF-fixdate of `seconds` since 1970.
    public static func format(_ seconds: Int64) -> String {
        let dayNumber = CivilCalendar.floorDivide(seconds, 86_400)
        let rest = seconds - dayNumber * 86_400
        let (y, m, d) = CivilCalendar.date(days: dayNumber)
        func two(_ n: Int64) -> String { n < 10 ? "0\(n)" : "\(n)" }
        let weekday = days[Int(((dayNumber % 7) + 7 + 3) % 7)]
        return
            "\(weekday), \(two(d)) \(months[Int(m) - 1]) \(y) \(two(rest / 3600)):\(two(rest / 60 % 60)):\(two(rest % 60)) GMT"
    }
}
