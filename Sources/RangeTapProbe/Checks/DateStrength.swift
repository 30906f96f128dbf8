import RangeTapCore

/// Whether a Last-Modified date can serve as a strong validator for If-Range (RFC 9110
/// §8.8.2.2). A date is implicitly weak: a file can change twice within the second it names.
/// rangetap judges it strong only when the server could know it did not, that is when the
/// response's Date lies at least ``minimumAge`` after Last-Modified (Apache treats younger dates
/// as weak, and RFC 9110 lets it).
struct DateStrength: Sendable, Equatable {
    /// Seconds between Last-Modified and Date from which a date counts as strong.
    static let minimumAge: Int64 = 60

    /// Seconds from Last-Modified to the response's Date, when both parse.
    var age: Int64?
    /// Why the date is weak, as the end of a sentence; `nil` when it is strong.
    var weakness: String?

    /// Judges `lastModified` against the `date` of the same response.
    init(lastModified: String, date: String?) {
        let lm = HTTPDate.parse(lastModified)
        let now = date.flatMap { HTTPDate.parse($0) }
        age = lm.flatMap { lm in now.map { $0 - lm } }
        if lm == nil {
            weakness = "Last-Modified \"\(lastModified)\" is not an IMF-fixdate"
        } else if let date, now == nil {
            weakness =
                "the response's Date \"\(date)\" is not an IMF-fixdate, so nothing shows Last-Modified lies in the past"
        } else if date == nil {
            weakness = "the response carries no Date, so nothing shows Last-Modified lies in the past"
        } else if let age, age < Self.minimumAge {
            weakness =
                "Last-Modified \(lastModified) is only \(age) s before the response's Date: the file changed less than \(Self.minimumAge) s earlier, so the server cannot tell it did not change twice within that second (Apache treats such dates as weak)"
        }
    }
}
