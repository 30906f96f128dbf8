import Foundation

/// Everything one probe found: the checks with their evidence, and the verdicts per client.
public struct ProbeReport: Sendable, Codable, Equatable {
    /// Counts of checks per result.
    public struct Summary: Sendable, Codable, Equatable {
        /// Checks that passed.
        public var pass: Int
        /// Checks that are informational.
        public var info: Int
        /// Checks with a warning.
        public var warn: Int
        /// Checks that failed.
        public var fail: Int
    }

    /// Version of this JSON layout (`docs/probe-json.md`).
    public var schemaVersion: Int
    /// The probed URL.
    public var url: String
    /// The protocol the checks ran over, by its ALPN identifier: `http/1.1` (with a few
    /// HTTP/1.0 requests), or with `--http2` `h2` (over TLS) or `h2c` (prior knowledge). JSON key
    /// `protocol`. Each evidence says the version its response actually came over.
    public var httpProtocol: String
    /// The resource's length as the server told it, or `nil` when it did not.
    public var length: Int64?
    /// How long the probe took, in milliseconds.
    public var durationMs: Double
    /// `fail` when a check failed, else `warn` when one warned, else `pass`.
    public var result: CheckResult
    /// Counts per result.
    public var summary: Summary
    /// Every check, in the order of ``ProbeCheckID``.
    public var checks: [ProbeCheck]
    /// What clients will experience.
    public var verdicts: [PlayerVerdict]

    private enum CodingKeys: String, CodingKey {
        case schemaVersion, url, length, durationMs, result, summary, checks, verdicts
        case httpProtocol = "protocol"
    }

    /// Assembles a report.
    public init(
        url: String, httpProtocol: String = "http/1.1", length: Int64?, durationMs: Double, checks: [ProbeCheck],
        verdicts: [PlayerVerdict]
    ) {
        schemaVersion = 1
        self.url = url
        self.httpProtocol = httpProtocol
        self.length = length
        self.durationMs = durationMs
        self.checks = checks
        self.verdicts = verdicts
        func n(_ r: CheckResult) -> Int { checks.filter { $0.result == r }.count }
        summary = Summary(pass: n(.pass), info: n(.info), warn: n(.warn), fail: n(.fail))
        result = summary.fail > 0 ? .fail : summary.warn > 0 ? .warn : .pass
    }

    /// Whether any check failed (the CLI then exits with status 1).
    public var hasFailures: Bool { summary.fail > 0 }

    /// The check with `id`.
    public func check(_ id: ProbeCheckID) -> ProbeCheck? { checks.first { $0.id == .check(id) } }

    /// The JSON ids of the checks with `result`, such as `range-probe`.
    public func ids(_ result: CheckResult) -> Set<String> {
        Set(checks.filter { $0.result == result }.map(\.id.rawValue))
    }

    /// The report as pretty-printed JSON with sorted keys.
    public func json() throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return String(decoding: try encoder.encode(self), as: UTF8.self)
    }
}
