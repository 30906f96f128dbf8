import RangeTapCore

/// Durations in lab texts (`latency=`, `jitter=`, `for=`, `delay-head=`): ``DurationText``'s
/// spellings (`80ms`, `1.5s`, `2m`, `0`), held in nanoseconds.
enum LabDuration {
    /// What a duration may be, for messages.
    static let expected = "write a duration like 80ms, 1.5s or 2m"

    /// Nanoseconds in `text`, or nil when it is not a duration.
    static func nanoseconds(_ text: String) -> Int64? {
        guard let ms = try? DurationText.milliseconds(text) else { return nil }
        return Int64(ms) * 1_000_000
    }

    /// `ns` the way ``nanoseconds(_:)`` reads it back: whole milliseconds (`80ms`), or
    /// milliseconds with up to six decimals when set to a finer value in code.
    static func format(_ ns: Int64) -> String {
        let ms = ns / 1_000_000
        let rest = abs(ns % 1_000_000)
        guard rest != 0 else { return "\(ms)ms" }
        var fraction = String(rest)
        fraction = String(repeating: "0", count: 6 - fraction.count) + fraction
        while fraction.hasSuffix("0") { fraction.removeLast() }
        return "\(ns < 0 && ms == 0 ? "-" : "")\(ms).\(fraction)ms"
    }
}
