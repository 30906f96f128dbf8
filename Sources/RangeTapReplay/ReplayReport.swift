import Foundation

/// The outcome of a replay; its JSON form is `docs/replay-json.md`.
public struct ReplayReport: Sendable, Codable, Equatable {
    /// A byte the cache served that differs from what the origin sent.
    public struct Mismatch: Sendable, Codable, Equatable {
        /// The resource.
        public var resource: String
        /// Offset of the first differing byte in the resource.
        public var offset: Int64
        /// Up to 16 bytes from there, as the origin sent them (hex).
        public var expected: String
        /// The same bytes as the cache served them (hex).
        public var got: String
        /// The exchange of the second playback that read them.
        public var exchange: Int
        /// Which exchange stored the wrong byte (`"playback 1, exchange 4"`), if known.
        public var storedBy: String?
    }

    /// The strategy or command replayed into.
    public var cache: String
    /// Every byte served from the cache equals the origin's.
    public var verified: Bool
    /// Mismatches, the first per exchange.
    public var mismatches: [Mismatch]
    /// Exchanges of the second playback.
    public var requests: Int
    /// Bytes the second playback asked for.
    public var bytesRequested: Int64
    /// Of those, served by the cache.
    public var bytesFromCache: Int64
    /// Of those, fetched from the network (the capture) because the cache lacked them.
    public var bytesFromNetwork: Int64
    /// Evictions the cache made.
    public var evictions: Int
    /// Resources the cache refused to keep, wholly or in part, because that alone would exceed
    /// its capacity (`--capacity`): their bytes came from the network in the second playback.
    public var oversized: [String] = []
    /// Problems that stopped verification (a cache that crashed, hung or answered garbage).
    public var errors: [String]

    /// The report of a replay that could not run because the cache failed.
    public static func failed(cache: String, error: String) -> ReplayReport {
        ReplayReport(
            cache: cache, verified: false, mismatches: [], requests: 0, bytesRequested: 0, bytesFromCache: 0,
            bytesFromNetwork: 0, evictions: 0, errors: [error])
    }

    /// Share of the second playback served from the cache.
    public var savedRatio: Double { bytesRequested > 0 ? Double(bytesFromCache) / Double(bytesRequested) : 0 }

    /// ``savedRatio`` as a percentage with one decimal, rounded down: `100.0%` only when no byte
    /// came from the network, `0.0%` only when none came from the cache.
    public var savedPercentText: String {
        guard bytesRequested > 0 else { return "0.0%" }
        var tenths = Int64((savedRatio * 1000).rounded(.down))
        if bytesFromNetwork > 0 { tenths = min(tenths, 999) }
        if bytesFromCache > 0 { tenths = max(tenths, 1) }
        return "\(tenths / 10).\(tenths % 10)%"
    }

    /// Text for a person.
    public var text: String {
        var s = "cache: \(cache)\n"
        s += verified ? "VERIFIED: every byte served from the cache equals the origin's\n" : "NOT VERIFIED\n"
        for m in mismatches {
            s +=
                "  MISMATCH \(m.resource) at offset \(m.offset) (second playback, exchange \(m.exchange)): expected \(m.expected), got \(m.got)"
            if let by = m.storedBy { s += "; stored by \(by)" }
            s += "\n"
        }
        for e in errors { s += "  ERROR \(e)\n" }
        for r in oversized {
            s += "  NOT CACHED \(r): larger than the cache's capacity (--capacity), so it was refused\n"
        }
        s +=
            "second playback: \(requests) requests, \(bytesRequested) bytes: \(bytesFromCache) from cache, \(bytesFromNetwork) from network"
        s += " (\(savedPercentText) saved)"
        s += ", \(evictions) evictions\n"
        return s
    }
}
