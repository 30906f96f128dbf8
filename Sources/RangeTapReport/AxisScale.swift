/// A linear map from data values to pixels, with tick values a person can read.
struct AxisScale: Sendable {
    /// Data value at `pixelStart`.
    var lower: Double
    /// Data value at `pixelEnd`.
    var upper: Double
    /// Pixel of `lower`.
    var pixelStart: Double
    /// Pixel of `upper` (may be below `pixelStart`, for a y axis growing upwards).
    var pixelEnd: Double

    /// The pixel of `value`.
    func pixel(_ value: Double) -> Double {
        guard upper > lower else { return pixelStart }
        return pixelStart + (value - lower) / (upper - lower) * (pixelEnd - pixelStart)
    }

    /// Ticks for a time axis in milliseconds: steps of 1, 2 or 5 × 10ⁿ, about `count` of them,
    /// each with its label (as many decimals as the step needs).
    func decimalTicks(count: Int = 10) -> [(value: Double, label: String)] {
        let span = upper - lower
        guard span > 0, span.isFinite else { return [(lower, ReportFormat.number(lower))] }
        let raw = span / Double(max(count, 1))
        var magnitude = 1.0
        while magnitude * 10 <= raw { magnitude *= 10 }
        while magnitude > raw { magnitude /= 10 }
        let step = [1.0, 2, 5, 10].map { $0 * magnitude }.first { $0 >= raw } ?? magnitude * 10
        var decimals = 0
        var s = step
        while s < 1 && decimals < 6 {
            s *= 10
            decimals += 1
        }
        if (s - s.rounded()).magnitude > 1e-9 && decimals < 6 { decimals += 1 }  // a step of 2.5
        var ticks: [(Double, String)] = []
        var v = (lower / step).rounded(.up) * step
        // Bounded, and stopped where the step is below the precision of the values (times
        // near the top of Int64's range): never loops forever.
        while v <= upper + step * 1e-9, ticks.count <= 4 * count + 2 {
            ticks.append((v, ReportFormat.number(v, decimals: decimals)))
            guard v + step > v else { break }
            v += step
        }
        return ticks
    }

    /// Ticks for a byte axis starting at 0: steps of a power of two (so 256 KiB, 1 MiB…), about
    /// `count` of them, labelled in binary units.
    func byteTicks(count: Int = 6) -> [(value: Double, label: String)] {
        let span = upper - lower
        guard span > 0, span.isFinite else { return [(0, "0")] }
        var step = 1.0
        while step * Double(count) < span { step *= 2 }
        if span / step < Double(count) / 2, step >= 2 { step /= 2 }
        var ticks: [(Double, String)] = []
        var v = (lower / step).rounded(.up) * step
        while v <= upper + 0.5, ticks.count <= 4 * count + 2 {
            ticks.append((v, v == 0 ? "0" : ReportFormat.bytes(ReportFormat.clamped(v))))
            guard v + step > v else { break }
            v += step
        }
        return ticks
    }
}
