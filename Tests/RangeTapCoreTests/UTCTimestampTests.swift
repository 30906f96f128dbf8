import Foundation
import Testing
@testable import RangeTapCore

@Suite struct UTCTimestampTests {
    @Test func knownInstants() {
        #expect(UTCTimestamp.iso8601(micros: 0) == "1970-01-01T00:00:00.000Z")
        #expect(UTCTimestamp.iso8601(micros: 1_795_889_805_839_123) == "2026-11-28T18:16:45.839Z")
        #expect(UTCTimestamp.iso8601(micros: 951_782_400_000_000) == "2000-02-29T00:00:00.000Z")
        #expect(UTCTimestamp.iso8601(micros: -1) == "1969-12-31T23:59:59.999Z")
        #expect(UTCTimestamp.iso8601(micros: 4_107_542_399_999_999) == "2100-02-28T23:59:59.999Z")
    }

    /// Agrees with Foundation's formatter (milliseconds, UTC) from 1780 to 2191, leap days and
    /// the instants either side of midnight.
    @Test func agreesWithFoundationsFormatter() {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        var generator = SeededGenerator(seed: 0x15_08_601)
        var instants: [Int64] = [0, 86_399_999_000, 86_400_000_000, 68_169_600_000_000, 946_684_799_999_000]
        for _ in 0..<2000 {
            instants.append(
                Int64.random(in: -6_000_000_000_000_000...7_000_000_000_000_000, using: &generator) / 1000 * 1000)
        }
        for micros in instants {
            let expected = formatter.string(from: Date(timeIntervalSince1970: Double(micros / 1000) / 1e3))
            #expect(UTCTimestamp.iso8601(micros: micros) == expected, "\(micros)")
        }
    }
}
