import Foundation
import RangeTapCore

/// Wall-clock times of capture times: the header's `startedAt` plus `t`.
struct WallClock {
    /// The wall-clock time of `t == 0` (the Unix epoch when `startedAt` does not parse).
    let base: Date
    private let formatter: ISO8601DateFormatter

    /// A clock anchored at `startedAtMicros` when the capture has it, else at `startedAt`
    /// (ISO 8601, with or without fractional seconds).
    init(startedAt: String, startedAtMicros: Int64? = nil) {
        formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let us = startedAtMicros {
            base = Date(timeIntervalSince1970: Double(us) / 1e6)
        } else if let d = formatter.date(from: startedAt) {
            base = d
        } else {
            let plain = ISO8601DateFormatter()
            plain.formatOptions = [.withInternetDateTime]
            base = plain.date(from: startedAt) ?? Date(timeIntervalSince1970: 0)
        }
    }

    /// `t` as ISO 8601 UTC with milliseconds: `2026-11-22T18:16:45.839Z`.
    func iso8601(_ t: CaptureTime) -> String {
        formatter.string(from: base.addingTimeInterval(Double(t) / 1e9))
    }
}
