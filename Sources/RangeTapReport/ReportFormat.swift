import RangeTapCore

/// Number formatting shared by the HTML report and the HAR export, without `String(format:)`
/// (locale-free and fast enough for captures with hundreds of thousands of chunks).
enum ReportFormat {
    /// `x` rounded to `decimals` places, trailing zeros dropped (`12.5`, `3`, `-0.25`) unless
    /// `keepZeros` (`3.0`).
    static func number(_ x: Double, decimals: Int = 1, keepZeros: Bool = false) -> String {
        guard x.isFinite else { return "0" }
        var scale = 1.0
        for _ in 0..<decimals { scale *= 10 }
        let scaled = (x * scale).rounded()
        guard abs(scaled) < 9e15 else { return String(clamped(x.rounded())) }
        let n = Int64(scaled)
        let negative = n < 0
        let magnitude = negative ? -n : n
        let whole = magnitude / Int64(scale)
        var frac = magnitude % Int64(scale)
        var s = (negative ? "-" : "") + String(whole)
        if keepZeros && decimals > 0 {
            let f = String(frac)
            s += "." + String(repeating: "0", count: decimals - f.count) + f
        } else if frac > 0 {
            var digits = decimals
            while frac % 10 == 0 {
                frac /= 10
                digits -= 1
            }
            let f = String(frac)
            s += "." + String(repeating: "0", count: digits - f.count) + f
        }
        return s
    }

    /// `x` as an Int64, clamped to `Int64.min...Int64.max` (NaN is 0): `Int64(x)` traps on
    /// values such as `Double(Int64.max)`, which is 2⁶³ and one past the largest Int64.
    static func clamped(_ x: Double) -> Int64 {
        guard !x.isNaN else { return 0 }
        if x >= 0x1p63 { return .max }
        if x < -0x1p63 { return .min }
        return Int64(x)
    }

    /// Milliseconds of a capture time: `t` ns → `"993.6"`.
    static func milliseconds(_ t: CaptureTime, decimals: Int = 1) -> String {
        number(Double(t) / 1e6, decimals: decimals, keepZeros: true)
    }

    /// A byte count for a person, binary units: `512 B`, `1.5 KiB`, `24 MiB`.
    static func bytes(_ n: Int64) -> String {
        let units = ["B", "KiB", "MiB", "GiB", "TiB"]
        var value = Double(n)
        var unit = 0
        while abs(value) >= 1024 && unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        return number(value, decimals: unit == 0 ? 0 : (abs(value) < 10 ? 2 : 1)) + " " + units[unit]
    }
}
