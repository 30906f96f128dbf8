/// The client-side checks, run over exchanges in request order: refetched bytes, seeks,
/// inclusive-end off-by-one, ranges beyond the length, and per-resource coverage.
///
/// What a player *got* is what its socket accepted: for a cancelled exchange that is the bytes
/// delivered, not the proxy's read-ahead from upstream.
struct ClientPass {
    let lengths: [String: Int64]
    private var fetched: [String: ByteRangeSet] = [:]
    private var order: [String] = []
    private var stats: [String: CaptureAnalysis.Resource] = [:]
    private var lastEnd: [String: Int64] = [:]
    private var lastClosedRequest: [String: (exchange: Int, first: Int64, last: Int64)] = [:]

    /// Refetching less than this is an observation (`info`), more is a cost (`warn`).
    static let costlyRefetch: Int64 = 64 * 1024

    init(lengths: [String: Int64]) {
        self.lengths = lengths
    }

    mutating func apply(_ e: inout CaptureAnalysis.Exchange) {
        let r = e.record
        guard r.method != "CONNECT" else { return }
        let id = r.id
        let url = r.resource
        if stats[url] == nil {
            order.append(url)
            stats[url] = .init(url: url, length: nil, bytesFetched: 0, uniqueBytes: 0, requests: 0)
        }
        // What the client got: delivered bytes when it left early (cancel, or an end it did not wait for).
        let got = r.bytesDelivered.map { min($0, r.bytesSent) } ?? (r.outcome == .cancelled ? 0 : r.bytesSent)
        stats[url]!.requests += 1
        stats[url]!.bytesFetched = stats[url]!.bytesFetched.addingSaturating(got)
        let rangeLine = r.requestHeaders.first { $0.name?.lowercased() == "range" }?.raw
        let single: RangeSpec? = r.requestRange.flatMap { try? RangeRequest.parse($0) }.flatMap {
            $0.isBytes && $0.specs.count == 1 ? $0.specs[0] : nil
        }
        var start: Int64?
        if let first = r.chunks.first?.resourceOffset {
            start = first
        } else if r.status == 206, let cr = r.contentRange.flatMap({ try? ContentRange.parse($0) }) {
            start = cr.range?.first
        } else if r.status == 200 {
            start = 0
        }
        let length = lengths[url]
        var span: Range<Int64>?
        if let start {
            if let end = start.addingChecked(got) {
                span = start..<end
            } else {
                // A hostile Content-Range (`bytes 9223372036854775806-…`): the bytes cannot be placed.
                e.findings.append(
                    Finding(
                        .contentRangeInvalid,
                        "the \(got) bytes the client got here would start at offset \(start) and end past \(Int64.max), the largest offset a capture can place; they are left out of coverage, refetch and seek checks",
                        evidence: [r.contentRange.map { "Content-Range: \($0)" } ?? ""], exchange: id))
            }
        }
        var refetched: Int64 = 0
        if let span, !span.isEmpty {
            refetched = fetched[url, default: ByteRangeSet()].insert(span)
            if refetched > 0 {
                e.findings.append(
                    Finding(
                        .refetched,
                        "\(refetched) of the \(span.count) bytes the client got here (\(span.lowerBound)-\(span.upperBound - 1)) it had already fetched",
                        evidence: ["bytes \(span.lowerBound)-\(span.upperBound - 1)", "already fetched: \(refetched)"],
                        exchange: id, severity: refetched >= Self.costlyRefetch ? .warn : .info))
            }
        }
        if let first = single?.knownFirst ?? (single == nil ? nil : span?.lowerBound) {
            if let length, first >= length {
                e.findings.append(
                    Finding(
                        .rangeBeyondLength, "asked for bytes from \(first), but the resource has \(length) bytes",
                        evidence: [rangeLine ?? ""], exchange: id))
            }
            if let previous = lastEnd[url], first != previous,
                first.subtractingSaturating(previous).magnitude > 64 * 1024
            {
                e.findings.append(
                    Finding(
                        .seek,
                        "the previous read ended at \(previous), this request starts at \(first) (\(first > previous ? "+" : "")\(first.subtractingSaturating(previous)) bytes)",
                        evidence: [rangeLine ?? ""], exchange: id))
            }
            if let prev = lastClosedRequest[url], first == prev.last, prev.last > prev.first {
                e.findings.append(
                    Finding(
                        .inclusiveEndOffByOne,
                        "exchange \(prev.exchange) asked bytes=\(prev.first)-\(prev.last) (\((prev.last - prev.first).addingSaturating(1)) bytes) and this one starts at \(first): byte \(first) is fetched twice. The end of a Range is inclusive, so \(prev.first)-\(prev.last - 1) was meant",
                        evidence: [rangeLine ?? ""], exchange: prev.exchange))
            }
        }
        if case .closed(let f, let l)? = single {
            lastClosedRequest[url] = (id, f, l)
        } else {
            lastClosedRequest[url] = nil
        }
        if let span, !span.isEmpty { lastEnd[url] = span.upperBound }
        e.resourceSpan = span
        e.refetchedBytes = refetched
    }

    /// Per-resource figures, in order of first request.
    func resources() -> [CaptureAnalysis.Resource] {
        order.compactMap { url in
            guard var r = stats[url] else { return nil }
            r.length = lengths[url]
            r.uniqueBytes = fetched[url]?.count ?? 0
            return r
        }
    }
}
