/// ISO 8601 UTC timestamps with milliseconds (`2026-11-22T18:16:45.839Z`), computed with integer
/// civil-calendar arithmetic (``CivilCalendar``).
///
/// The recording proxy stamps each capture's `startedAt` with it. Foundation's
/// `ISO8601DateFormatter` does the same through ICU's calendar and date-format data, which pulls
/// several MiB of ICU tables into the resident set of a process that otherwise never touches
/// them; this formatter needs none.
public enum UTCTimestamp {
    /// `micros` (microseconds since the Unix epoch, negative before it) as
    /// `YYYY-MM-DDTHH:MM:SS.mmmZ`, the fraction truncated to milliseconds.
    public static func iso8601(micros: Int64) -> String {
        let millis = CivilCalendar.floorDivide(micros, 1000)
        let seconds = CivilCalendar.floorDivide(millis, 1000)
        let days = CivilCalendar.floorDivide(seconds, 86_400)
        let secondOfDay = seconds - days * 86_400
        let (year, month, day) = CivilCalendar.date(days: days)
        return pad(year, 4) + "-" + pad(month, 2) + "-" + pad(day, 2)
            + "T" + pad(secondOfDay / 3600, 2) + ":" + pad(secondOfDay / 60 % 60, 2) + ":" + pad(secondOfDay % 60, 2)
            + "." + pad(millis - seconds * 1000, 3) + "Z"
    }

    private static func pad(_ value: Int64, _ width: Int) -> String {
        let digits = String(value < 0 ? -value : value)
        let zeros = String(repeating: "0", count: max(0, width - digits.count))
        return (value < 0 ? "-" : "") + zeros + digits
    }
}
