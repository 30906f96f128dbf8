import Foundation
import Testing
@testable import RangeTapCore

/// The live log's duration is formatted from the integer now; it must read as
/// `String(format: "%.1f", ms)` did, ties and their neighbours included.
@Suite("Summary line duration")
struct SummaryLineDurationTests {
    @Test func durationsReadAsTheFormatterWroteThem() {
        var generator = SeededGenerator(seed: 0xD0_2A)
        var values: [Int64] = [
            0, 1, 49_999, 50_000, 50_001, 99_999, 100_000, 149_999, 150_000, 150_001, 250_000, 950_000, 999_999,
            1_000_000,
            1_250_000, 1_350_000, 9_950_000, 99_950_000, -1, -50_000, -150_000, 1 << 50, (1 << 50) - 1, (1 << 53) + 1,
            Int64.max,
        ]
        for _ in 0..<50_000 {
            let magnitude = Int64(1) << Int64.random(in: 0...50, using: &generator)
            let n = Int64.random(in: 0...magnitude, using: &generator)
            let tie = n / 100_000 * 100_000 + 50_000
            values += [n, tie, tie - 1, tie + 1]
        }
        for ns in values {
            #expect(
                ExchangeRecord.milliseconds(ns) == String(format: "%.1f", Double(ns) / 1e6),
                Comment(rawValue: String(ns)))
        }
    }
}
