import RangeTapCore

/// Two playbacks of the same content side by side: totals, per-resource bytes and findings of
/// capture A against capture B (`rangetap diff A B`, docs/diff.md).
///
/// Resources are matched by URL path (with query): two recordings usually reach the content
/// through different hosts and ports, so those are not compared. The JSON form is this value
/// encoded with `JSONEncoder` (keys in docs/diff.md).
public struct CaptureDiff: Sendable, Equatable, Codable {
    /// One figure of both captures.
    public struct Metric: Sendable, Equatable, Codable {
        /// Stable name (`requests`, `bytesFetched`, …; docs/diff.md lists them).
        public var name: String
        /// Unit: `count`, `bytes`, `ratio` or `ms`.
        public var unit: String
        /// The figure in A; nil when A has none (no media byte, no request).
        public var a: Double?
        /// The figure in B; nil when B has none.
        public var b: Double?

        /// `b - a`, when both are known.
        public var change: Double? { a.flatMap { a in b.map { $0 - a } } }
        /// The change as a percentage of `a`; nil when either is unknown or `a` is 0.
        public var percent: Double? {
            guard let a, let change, a != 0 else { return nil }
            return change / a * 100
        }
        /// Whether A and B differ.
        public var differs: Bool { a != b }

        private enum CodingKeys: String, CodingKey { case name, unit, a, b, change, percent }

        /// A figure of both captures.
        public init(name: String, unit: String, a: Double?, b: Double?) {
            self.name = name
            self.unit = unit
            self.a = a
            self.b = b
        }

        public init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            self.init(
                name: try c.decode(String.self, forKey: .name), unit: try c.decode(String.self, forKey: .unit),
                a: try c.decodeIfPresent(Double.self, forKey: .a), b: try c.decodeIfPresent(Double.self, forKey: .b))
        }

        public func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(name, forKey: .name)
            try c.encode(unit, forKey: .unit)
            try c.encode(a, forKey: .a)
            try c.encode(b, forKey: .b)
            try c.encode(change, forKey: .change)
            try c.encode(percent, forKey: .percent)
        }
    }

    /// One resource (URL path) whose figures differ.
    public struct ResourceChange: Sendable, Equatable, Codable {
        /// Path with query.
        public var path: String
        /// Body bytes fetched for it in A (0 when A never asked for it).
        public var bytesFetchedA: Int64
        /// Body bytes fetched for it in B.
        public var bytesFetchedB: Int64
        /// Distinct bytes of it in A.
        public var uniqueBytesA: Int64
        /// Distinct bytes of it in B.
        public var uniqueBytesB: Int64
        /// Requests for it in A.
        public var requestsA: Int
        /// Requests for it in B.
        public var requestsB: Int
        /// `bytesFetchedB - bytesFetchedA`.
        public var bytesFetchedChange: Int64
    }

    /// One rendition's segments in both captures (``RenditionFigures``).
    public struct RenditionChange: Sendable, Equatable, Codable {
        /// The rendition, named as `inspect` names it (`mp4` for a progressive file).
        public var rendition: String
        /// Its figures in A (all zero when A fetched none of its segments).
        public var a: RenditionFigures
        /// Its figures in B.
        public var b: RenditionFigures
    }

    /// How often one finding code occurs on each side, when the counts differ.
    public struct FindingCount: Sendable, Equatable, Codable {
        /// The finding code (docs/inspect-json.md).
        public var code: String
        /// Occurrences in A.
        public var a: Int
        /// Occurrences in B.
        public var b: Int
    }

    /// A finding whose code occurs on one side only.
    public struct OneSidedFinding: Sendable, Equatable, Codable {
        /// The finding code.
        public var code: String
        /// Its severity (`info`, `warn`, `error`).
        public var severity: String
        /// The exchange it is about, if any.
        public var exchange: Int?
        /// The finding's sentence.
        public var message: String

        private enum CodingKeys: String, CodingKey { case code, severity, exchange, message }

        public func encode(to encoder: any Encoder) throws {
            var c = encoder.container(keyedBy: CodingKeys.self)
            try c.encode(code, forKey: .code)
            try c.encode(severity, forKey: .severity)
            try c.encode(exchange, forKey: .exchange)
            try c.encode(message, forKey: .message)
        }
    }

    /// Schema version of the JSON form.
    public var version = 1
    /// Capture A's path as given.
    public var a: String
    /// Capture B's path as given.
    public var b: String
    /// Whether nothing below differs.
    public var identical: Bool
    /// Every figure, in a fixed order, changed or not.
    public var metrics: [CaptureDiff.Metric]
    /// Names of the metrics that differ.
    public var changedMetrics: [String]
    /// Resources whose bytes fetched, unique bytes or requests differ, in order of first request
    /// in A, then those only in B.
    public var resources: [ResourceChange]
    /// Every rendition either capture fetched segments of, sorted by name; empty when the media
    /// mapping tied no exchange of either to a segment.
    public var renditions: [RenditionChange]
    /// Finding codes whose counts differ, sorted by code.
    public var findings: [FindingCount]
    /// Codes found in A only, sorted.
    public var onlyInA: [String]
    /// Codes found in B only, sorted.
    public var onlyInB: [String]
    /// The findings behind ``onlyInA``, in capture order.
    public var findingsOnlyInA: [OneSidedFinding]
    /// The findings behind ``onlyInB``, in capture order.
    public var findingsOnlyInB: [OneSidedFinding]

    /// Compares capture `a` (at `pathA`) with capture `b` (at `pathB`).
    public init(_ a: CaptureAnalysis, _ b: CaptureAnalysis, pathA: String, pathB: String) {
        self.a = pathA
        self.b = pathB
        metrics = Self.metrics(a, b)
        changedMetrics = metrics.filter(\.differs).map(\.name)
        resources = Self.resourceChanges(a, b)
        let ra = RenditionFigures.of(a), rb = RenditionFigures.of(b)
        renditions = Set(ra.keys).union(rb.keys).sorted().map {
            RenditionChange(rendition: $0, a: ra[$0] ?? RenditionFigures(), b: rb[$0] ?? RenditionFigures())
        }
        let countsA = Self.countsByCode(a), countsB = Self.countsByCode(b)
        findings = Set(countsA.keys).union(countsB.keys).sorted().compactMap { code in
            let ca = countsA[code, default: 0], cb = countsB[code, default: 0]
            return ca == cb ? nil : FindingCount(code: code, a: ca, b: cb)
        }
        onlyInA = countsA.keys.filter { countsB[$0] == nil }.sorted()
        onlyInB = countsB.keys.filter { countsA[$0] == nil }.sorted()
        findingsOnlyInA = Self.findings(of: a, codes: Set(onlyInA))
        findingsOnlyInB = Self.findings(of: b, codes: Set(onlyInB))
        identical =
            changedMetrics.isEmpty && resources.isEmpty && findings.isEmpty && renditions.allSatisfy { $0.a == $0.b }
    }

    /// The figure named `name`, if there is one.
    public func metric(_ name: String) -> CaptureDiff.Metric? { metrics.first { $0.name == name } }

    // MARK: - Building

    private static func metrics(_ a: CaptureAnalysis, _ b: CaptureAnalysis) -> [CaptureDiff.Metric] {
        func count(_ name: String, _ f: (CaptureAnalysis.Summary) -> Int) -> CaptureDiff.Metric {
            .init(name: name, unit: "count", a: Double(f(a.summary)), b: Double(f(b.summary)))
        }
        func bytes(_ name: String, _ f: (CaptureAnalysis.Summary) -> Int64) -> CaptureDiff.Metric {
            .init(name: name, unit: "bytes", a: Double(f(a.summary)), b: Double(f(b.summary)))
        }
        return [
            count("requests") { $0.requests },
            count("connections") { $0.connections },
            bytes("bytesFetched") { $0.bytesFetched },
            bytes("uniqueBytes") { $0.uniqueBytes },
            .init(name: "redundancy", unit: "ratio", a: redundancy(a.summary), b: redundancy(b.summary)),
            count("cancels") { $0.cancels },
            count("seeks") { $0.seeks },
            count("errors") { $0.errors },
            .init(
                name: "timeToFirstMediaByteMs", unit: "ms", a: timeToFirstMediaByteMs(a), b: timeToFirstMediaByteMs(b)),
            .init(name: "durationMs", unit: "ms", a: durationMs(a), b: durationMs(b)),
        ]
    }

    /// `bytesFetched / uniqueBytes`, 1 when nothing was fetched.
    static func redundancy(_ s: CaptureAnalysis.Summary) -> Double {
        s.uniqueBytes > 0 ? Double(s.bytesFetched) / Double(s.uniqueBytes) : 1
    }

    /// Milliseconds from the first request to the first body byte of the first media segment
    /// (in request order) when the media mapping tied any exchange to a segment: playlists,
    /// manifests, init segments and indexes come before media and do not count. Without a
    /// mapping, the first exchange with a 2xx status and a body. Nil when there is none.
    static func timeToFirstMediaByteMs(_ analysis: CaptureAnalysis) -> Double? {
        guard let start = analysis.exchanges.map(\.record.start).min() else { return nil }
        let mapped = analysis.exchanges.contains { $0.media?.kind == .segment }
        let first = analysis.exchanges.lazy.filter { !mapped || $0.media?.kind == .segment }.map(\.record).first {
            ($0.status ?? 0) / 100 == 2 && $0.bytesSent > 0 && $0.firstChunkAt != nil
        }
        return first?.firstChunkAt.map { Double($0.subtractingSaturating(start)) / 1e6 }
    }

    /// Milliseconds from the first request to the last end (or request) of any exchange; nil
    /// without exchanges.
    static func durationMs(_ analysis: CaptureAnalysis) -> Double? {
        let records = analysis.exchanges.map(\.record)
        guard let start = records.map(\.start).min() else { return nil }
        let last = records.map { max($0.end ?? $0.start, $0.lastChunkAt ?? $0.start) }.max() ?? start
        return Double(last.subtractingSaturating(start)) / 1e6
    }

    /// The path (with query) a resource URL names; the URL itself when it has no authority.
    static func path(of url: String) -> String {
        let parts = URLParts(url)
        guard parts.isAbsolute else { return url }
        return parts.rest.hasPrefix("/") ? String(parts.rest) : "/" + parts.rest
    }

    private struct Figures {
        var fetched: Int64 = 0
        var unique: Int64 = 0
        var requests = 0
    }

    /// Per-path figures, in order of first request (two URLs with one path are added up).
    private static func byPath(_ analysis: CaptureAnalysis) -> (order: [String], figures: [String: Figures]) {
        var order: [String] = []
        var figures: [String: Figures] = [:]
        for r in analysis.resources {
            let p = path(of: r.url)
            if figures[p] == nil { order.append(p) }
            figures[p, default: Figures()].fetched += r.bytesFetched
            figures[p, default: Figures()].unique += r.uniqueBytes
            figures[p, default: Figures()].requests += r.requests
        }
        return (order, figures)
    }

    private static func resourceChanges(_ a: CaptureAnalysis, _ b: CaptureAnalysis) -> [ResourceChange] {
        let ra = byPath(a), rb = byPath(b)
        let order = ra.order + rb.order.filter { ra.figures[$0] == nil }
        return order.compactMap { p in
            let fa = ra.figures[p] ?? Figures(), fb = rb.figures[p] ?? Figures()
            guard
                fa.fetched != fb.fetched || fa.unique != fb.unique || fa.requests != fb.requests
                    || (ra.figures[p] == nil) != (rb.figures[p] == nil)
            else { return nil }
            return ResourceChange(
                path: p, bytesFetchedA: fa.fetched, bytesFetchedB: fb.fetched,
                uniqueBytesA: fa.unique, uniqueBytesB: fb.unique,
                requestsA: fa.requests, requestsB: fb.requests,
                bytesFetchedChange: fb.fetched - fa.fetched)
        }
    }

    private static func countsByCode(_ analysis: CaptureAnalysis) -> [String: Int] {
        analysis.allFindings.reduce(into: [:]) { $0[$1.code, default: 0] += 1 }
    }

    private static func findings(of analysis: CaptureAnalysis, codes: Set<String>) -> [OneSidedFinding] {
        analysis.allFindings.filter { codes.contains($0.code) }.map {
            OneSidedFinding(code: $0.code, severity: $0.severity.rawValue, exchange: $0.exchange, message: $0.message)
        }
    }
}
