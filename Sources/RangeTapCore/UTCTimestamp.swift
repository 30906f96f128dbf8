/// ISO 8601 UTC timestamps with milliseconds (`2026-11-22T18:16:45.839Z`), computed with integer
/// civil-calendar arithmetic.
///
/// The recording proxy stamps each capture's `startedAt` with it. Foundation's
/// `ISO8601DateFormatter` does the same through ICU's calendar and date-format data, which pulls
/// several MiB of ICU tables into the resident set of a process that otherwise never touches
/// them; this formatter needs none.
public enum UTCTimestamp {
    /// `micros` (microseconds since the Unix epoch, negative before it) as
    /// `YYYY-MM-DDTHH:MM:SS.mmmZ`, the fraction truncated to milliseconds.
    public static func iso8601(micros: Int64) -> String {
        let millis = floorDivide(micros, 1000)
        let seconds = floorDivide(millis, 1000)
        let days = floorDivide(seconds, 86_400)
        let secondOfDay = seconds - days * 86_400
        let (year, month, day) = civil(daysSinceEpoch: days)
        return pad(year, 4) + "-" + pad(month, 2) + "-" + pad(day, 2)
            + "T" + pad(secondOfDay / 3600, 2) + ":" + pad(secondOfDay / 60 % 60, 2) + ":" + pad(secondOfDay % 60, 2)
            + "." + pad(millis - seconds * 1000, 3) + "Z"
    }

    /// The proleptic Gregorian date of a day counted from 1970-01-01 (Howard Hinnant's
    /// `civil_from_days`).
    static func civil(daysSinceEpoch: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let z = daysSinceEpoch + 719_468
        let era = floorDivide(z, 146_097)
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }

    private static func floorDivide(_ a: Int64, _ b: Int64) -> Int64 {
        let q = a / b
        return (a % b != 0 && (a < 0) != (b < 0)) ? q - 1 : q
    }

    private static func pad(_ value: Int64, _ width: Int) -> String {
        let digits = String(value < 0 ? -value : value)
        let zeros = String(repeating: "0", count: max(0, width - digits.count))
        return (value < 0 ? "-" : "") + zeros + digits
    }
}
