import Foundation

/// The findings that put the player's account (CMCD, CTA-5004) beside the wire's, over a
/// session's requests in request order. A session is the requests with the same `sid`; the
/// requests with CMCD but no `sid` are one session.
///
/// - `cmcd-throughput-differs`: the `mtp` a request states is more than ``throughputFactor``
///   times above or below the rate at which the session's last ``recentRequests`` finished
///   requests reached the client (their bytes over the time they were in flight together).
/// - `cmcd-starved-while-arriving`: `bs` (the buffer ran empty since the previous request)
///   while body bytes were arriving for the session between that request and this one; a
///   warning when they arrived at the object's encoded bitrate (`br`) or faster.
/// - `cmcd-next-not-fetched`: `nor`/`nrr` announced an object or range that none of the later
///   requests fetched, although the session went on requesting (a capture that stops right
///   after the announcement says nothing).
enum CMCDPass {
    /// How many finished requests make the rate `mtp` is compared with.
    static let recentRequests = 3
    /// How far `mtp` may be from that rate, either way, before it is a finding.
    static let throughputFactor = 2.0
    /// Requests with fewer body bytes are too small to measure a rate by.
    static let measurableBytes: Int64 = 16 * 1024

    static func apply(to exchanges: inout [CaptureAnalysis.Exchange], latest: CaptureTime) {
        var sessions: [String: [Int]] = [:]  // indices into exchanges, by sid
        for i in exchanges.indices {
            guard let cmcd = exchanges[i].cmcd else { continue }
            sessions[cmcd.sessionID ?? "", default: []].append(i)
        }
        for (_, members) in sessions {
            for (n, i) in members.enumerated() {
                guard let cmcd = exchanges[i].cmcd else { continue }
                let earlier = members[..<n].map { exchanges[$0] }
                let later = members[(n + 1)...].map { exchanges[$0] }
                let r = exchanges[i].record
                if let mtp = cmcd.measuredThroughputKbps,
                    let f = throughput(mtp: mtp, at: r, earlier: earlier)
                {
                    exchanges[i].findings.append(f)
                }
                if cmcd.starved, let previous = earlier.last,
                    let f = starvation(cmcd, at: r, since: previous.record, session: earlier, latest: latest)
                {
                    exchanges[i].findings.append(f)
                }
                if !later.isEmpty, cmcd.nextObject != nil || cmcd.nextRange != nil,
                    let f = nextNotFetched(cmcd, at: r, later: exchanges[(i + 1)...], session: later)
                {
                    exchanges[i].findings.append(f)
                }
            }
        }
    }

    // MARK: mtp

    private static func throughput(
        mtp: Int64, at r: ExchangeRecord, earlier: [CaptureAnalysis.Exchange]
    )
        -> Finding?
    {
        let recent = earlier.filter {
            $0.record.outcome == .complete && ($0.record.end ?? .max) <= r.start
                && $0.record.bytesToClient >= measurableBytes
        }.suffix(recentRequests).map(\.record)
        guard !recent.isEmpty, mtp > 0 else { return nil }
        let bytes = recent.reduce(Int64(0)) { $0.addingSaturating($1.bytesToClient) }
        let busy = busyNanoseconds(recent.map { ($0.start, $0.end ?? $0.start) })
        guard busy > 0 else { return nil }
        let kbps = Double(bytes) * 8 / (Double(busy) / 1e9) / 1000
        let ratio = Double(mtp) / kbps
        guard ratio > throughputFactor || ratio < 1 / throughputFactor else { return nil }
        let ids = recent.map { "#\($0.id)" }.joined(separator: " ")
        let how = ratio > 1 ? String(format: "%.1f× more", ratio) : String(format: "%.1f× less", 1 / ratio)
        return Finding(
            .cmcdThroughputDiffers,
            "the player says it measured \(mtp) kbit/s (mtp), \(how) than its last \(recent.count) finished request\(recent.count == 1 ? "" : "s") reached it at: \(Int64(kbps.rounded())) kbit/s (\(ids): \(bytes) B in \(String(format: "%.0f", Double(busy) / 1e6)) ms from request to last byte)",
            evidence: ["mtp=\(mtp)"]
                + recent.map { "#\($0.id): \($0.bytesToClient) B in \(String(format: "%.1f", $0.durationMs ?? 0)) ms" },
            exchange: r.id)
    }

    /// Nanoseconds covered by the union of `spans`.
    static func busyNanoseconds(_ spans: [(CaptureTime, CaptureTime)]) -> Int64 {
        var total: Int64 = 0
        var current: (CaptureTime, CaptureTime)?
        for s in spans.sorted(by: { $0.0 < $1.0 }) {
            if let c = current, s.0 <= c.1 {
                current = (c.0, max(c.1, s.1))
            } else {
                if let c = current { total = total.addingSaturating(c.1.subtractingSaturating(c.0)) }
                current = s
            }
        }
        if let c = current { total = total.addingSaturating(c.1.subtractingSaturating(c.0)) }
        return total
    }

    // MARK: bs

    private static func starvation(
        _ cmcd: CMCDData, at r: ExchangeRecord, since previous: ExchangeRecord, session: [CaptureAnalysis.Exchange],
        latest: CaptureTime
    ) -> Finding? {
        let window = (previous.start, r.start)
        guard window.1 > window.0 else { return nil }
        var bytes: Double = 0
        var carriers: [Int] = []
        for e in session {
            let x = e.record
            guard let first = x.firstChunkAt, x.bytesToClient > 0 else { continue }
            let last = x.end ?? x.lastChunkAt ?? latest
            let overlap = min(last, window.1) - max(first, window.0)
            if last <= first {
                if first >= window.0 && first <= window.1 {
                    bytes += Double(x.bytesToClient)
                    carriers.append(x.id)
                }
                continue
            }
            guard overlap > 0 else { continue }
            bytes += Double(x.bytesToClient) * Double(overlap) / Double(last - first)
            carriers.append(x.id)
        }
        guard bytes >= 1024 else { return nil }
        let seconds = Double(window.1 - window.0) / 1e9
        let kbps = bytes * 8 / seconds / 1000
        let span = seconds >= 1 ? String(format: "%.1f s", seconds) : String(format: "%.0f ms", seconds * 1000)
        var message =
            "the player reported buffer starvation (bs) since its request #\(previous.id), while about \(Int64(bytes.rounded())) B arrived for it in the \(span) between the two (\(Int64(kbps.rounded())) kbit/s, on \(carriers.map { "#\($0)" }.joined(separator: " ")))"
        var severity = Finding.Severity.info
        if let br = cmcd.bitrateKbps {
            message +=
                kbps >= Double(br)
                ? ", at or above the \(br) kbit/s the object is encoded at (br): the network kept up"
                : ", below the \(br) kbit/s the object is encoded at (br)"
            if kbps >= Double(br) { severity = .warn }
        }
        return Finding(
            .cmcdStarvedWhileArriving, message, evidence: cmcd.raw.map(\.line), exchange: r.id, severity: severity)
    }

    // MARK: nor, nrr

    private static func nextNotFetched(
        _ cmcd: CMCDData, at r: ExchangeRecord, later: ArraySlice<CaptureAnalysis.Exchange>,
        session: [CaptureAnalysis.Exchange]
    ) -> Finding? {
        let base = r.url ?? r.target
        var target = CMCDQuery.removed(from: base)
        if let nor = cmcd.nextObject {
            guard let resolved = resolve(nor, against: base) else { return nil }
            target = CMCDQuery.removed(from: resolved)
        }
        let range = cmcd.nextRange.flatMap(CMCDNextRange.init)
        let fetched = later.contains { e in
            let x = e.record
            guard x.resource == target else { return false }
            guard let first = range?.first else { return true }
            if let span = e.resourceSpan, span.contains(first) { return true }
            let spec = x.requestRange.flatMap { try? RangeRequest.parse($0) }.flatMap {
                $0.specs.count == 1 ? $0.specs[0] : nil
            }
            return spec?.knownFirst == first
        }
        guard !fetched, let next = session.first?.record else { return nil }
        var what = cmcd.nextObject.map { "\"\($0)\" (nor)" } ?? "more of the same object"
        if let nrr = cmcd.nextRange { what += " bytes \(nrr) (nrr)" }
        return Finding(
            .cmcdNextNotFetched,
            "the player announced \(what) as its next request, went on with #\(next.id) \(next.method) \(next.path)\(next.requestRange.map { " " + $0 } ?? ""), and never fetched it in this capture (\(session.count) later request\(session.count == 1 ? "" : "s") of the session)",
            evidence: cmcd.raw.map(\.line), exchange: r.id)
    }

    /// `nor` (a percent-encoded relative URL) resolved against the request's URL.
    static func resolve(_ nor: String, against base: String) -> String? {
        let decoded = PercentDecoding.decode(nor) ?? nor
        guard let baseURL = URL(string: base), let url = URL(string: decoded, relativeTo: baseURL) else { return nil }
        return url.absoluteURL.absoluteString
    }
}
