import Foundation
import RangeTapCore

/// The findings that need the media mapping: a segment fetched twice, a segment cancelled
/// part-way, a rendition switch (with the throughput before it), segments out of order, and
/// how far ahead of the playhead the player buffered.
enum MediaFindings {
    /// Findings about `exchanges` (already carrying their ``MediaSpan``s), in exchange order,
    /// then the capture-wide buffer finding.
    static func findings(_ exchanges: [CaptureAnalysis.Exchange], map: MediaMap) -> [Finding] {
        var out: [Finding] = []
        let ordered = exchanges.filter { $0.media != nil }.sorted { $0.record.start < $1.record.start }
        out += refetches(ordered)
        out += cancels(ordered)
        out += switchesAndOrder(ordered, map: map)
        out += bufferAhead(ordered, map: map)
        return out
    }

    /// `segment 14 of 1280x720 2.1 Mb/s (28.00-30.00 s)`.
    static func describe(_ m: MediaSpan) -> String {
        var s: String
        switch m.kind {
        case .manifest: s = "the manifest"
        case .initialization: s = "the init segment"
        case .index: s = m.note.map { "the index (\($0))" } ?? "the index"
        case .part: s = "part of segment \(m.sequence.map(String.init) ?? "?")"
        case .segment: s = m.sequence.map { "segment \($0)" } ?? "the media"
        }
        if let r = m.rendition { s += " of \(r)" }
        if let a = m.start, let b = m.end { s += String(format: " (%.2f-%.2f s)", a, b) }
        return s
    }

    /// What identifies one media object across fetches; nil for progressive MP4 bytes, whose
    /// refetches the byte-level `refetched` finding already reports.
    private static func identity(_ e: CaptureAnalysis.Exchange) -> String? {
        guard let m = e.media, m.kind != .manifest else { return nil }
        if m.format == "mp4" { return m.kind == .index ? "mp4 index \(e.record.url ?? "")" : nil }
        return "\(m.format) \(m.rendition ?? "") \(m.kind.rawValue) \(m.sequence ?? -1) \(m.start ?? -1)"
    }

    private static func refetches(_ ordered: [CaptureAnalysis.Exchange]) -> [Finding] {
        var whole: [String: Int] = [:]
        var out: [Finding] = []
        for e in ordered {
            guard let id = identity(e) else { continue }
            if let first = whole[id] {
                out.append(
                    Finding(
                        .segmentRefetched, "\(describe(e.media!)) fetched again: #\(first) had already got it whole",
                        evidence: ["\(e.record.bytesSent) bytes again"], exchange: e.record.id))
            } else if e.record.outcome == .complete {
                whole[id] = e.record.id
            }
        }
        return out
    }

    private static func cancels(_ ordered: [CaptureAnalysis.Exchange]) -> [Finding] {
        ordered.compactMap { e in
            // Progressive MP4 bytes are not segments: their cancels are the `cancelled` finding.
            guard let m = e.media, m.format != "mp4", m.kind == .segment || m.kind == .part,
                e.record.outcome == .cancelled
            else { return nil }
            let r = e.record
            // Delivered when it was measured; else only what rangetap received (or served) is known.
            let got = r.bytesDelivered ?? r.bytesSent
            let of =
                e.expectedBytes.map {
                    " of \($0)" + ($0 > 0 ? String(format: " (%.0f %%)", Double(got) * 100 / Double($0)) : "")
                } ?? ""
            let what =
                r.bytesDelivered != nil
                ? "the client got \(got)\(of) bytes (\(r.bytesSent) \(r.sentWord))"
                : "\(got)\(of) bytes were \(r.sentWord) before it (delivery to the client was not measured)"
            return Finding(
                .segmentCancelled, "\(describe(m)) cancelled part-way: \(what)",
                evidence: [
                    "delivered=\(r.bytesDelivered.map(String.init) ?? "unknown")", "\(r.sentWord)=\(r.bytesSent)",
                ],
                exchange: r.id)
        }
    }

    /// Segments of one kind of stream (video, audio), in request order: a change of rendition
    /// is a switch, a sequence number that goes back or jumps ahead is out of order.
    private static func switchesAndOrder(_ ordered: [CaptureAnalysis.Exchange], map: MediaMap) -> [Finding] {
        var out: [Finding] = []
        var last: [String: CaptureAnalysis.Exchange] = [:]
        var recent: [String: [CaptureAnalysis.Exchange]] = [:]
        for e in ordered {
            guard let m = e.media, m.kind == .segment, m.format != "mp4", let rendition = m.rendition else { continue }
            let group = map.groups[rendition] ?? "media"
            defer {
                last[group] = e
                recent[group, default: []].append(e)
                if recent[group]!.count > 3 { recent[group]!.removeFirst() }
            }
            guard let previous = last[group], let p = previous.media else { continue }
            if p.rendition != rendition {
                let before = throughput(recent[group] ?? [])
                let direction: String
                switch (map.bandwidths[p.rendition ?? ""], map.bandwidths[rendition]) {
                case let (a?, b?) where b > a: direction = "up"
                case let (a?, b?) where b < a: direction = "down"
                default: direction = "across"
                }
                let after =
                    before.map {
                        String(
                            format: "; the last %d segment%@ reached the client at %@", $0.count,
                            $0.count == 1 ? "" : "s",
                            bitRate($0.bitsPerSecond))
                    } ?? ""
                out.append(
                    Finding(
                        .renditionSwitch,
                        "switched \(direction) from \(p.rendition ?? "?") to \(rendition) at \(describe(m))\(after)",
                        exchange: e.record.id))
            }
            if let a = p.sequence, let b = m.sequence, b < a || b > a + 1 {
                let what = b < a ? "after segment \(a): back \(a - b)" : "after segment \(a): \(b - a - 1) skipped"
                out.append(
                    Finding(
                        .segmentOutOfOrder, "segment \(b) fetched \(what) (a seek, or a retry)", exchange: e.record.id))
            }
        }
        return out
    }

    /// The rate the complete exchanges among `recent` reached the client, response head to last
    /// byte: a player adapts to that, not to how fast the origin sent. Under `--shape` the
    /// `delivered` events give the client's timeline (the link's pace); otherwise the `end`,
    /// which is recorded once the client's TCP acknowledged every byte.
    private static func throughput(_ recent: [CaptureAnalysis.Exchange]) -> (count: Int, bitsPerSecond: Double)? {
        let done = recent.filter { $0.record.outcome == .complete }
        var bytes: Int64 = 0
        var ns: Int64 = 0
        for e in done {
            let r = e.record
            let last = r.deliveries.last
            guard let from = r.responseAt ?? r.firstChunkAt, let to = last?.t ?? r.end, to > from else { continue }
            bytes += last?.bytes ?? r.bytesToClient
            ns += to - from
        }
        guard ns > 0, bytes > 0 else { return nil }
        return (done.count, Double(bytes) * 8 / (Double(ns) / 1e9))
    }

    private static func bitRate(_ bps: Double) -> String {
        bps >= 1e6 ? String(format: "%.1f Mb/s", bps / 1e6) : String(format: "%.0f kb/s", bps / 1e3)
    }

    /// The furthest the player's buffered media ran ahead of the playhead, per kind of stream.
    /// The capture does not hold the playhead: it is estimated as starting when the first
    /// segment (or the first after a seek) arrived and advancing in real time without stalls.
    private static func bufferAhead(_ ordered: [CaptureAnalysis.Exchange], map: MediaMap) -> [Finding] {
        struct Clock {
            var wall: Int64
            var media: Double
            var buffered: Double
        }
        var clocks: [String: Clock] = [:]
        var best: [String: (ahead: Double, exchange: Int, at: Int64)] = [:]
        // What the player can play: whole segments, and the MP4 bytes a cancelled range delivered
        // (its span covers only those).
        let done = ordered.filter { e in
            e.record.end != nil
                && (e.record.outcome == .complete || (e.record.outcome == .cancelled && e.media?.format == "mp4"))
        }.sorted { $0.record.end! < $1.record.end! }
        for e in done {
            guard let m = e.media, m.kind == .segment, let start = m.start, let end = m.end else { continue }
            let group = m.rendition.flatMap { map.groups[$0] } ?? (m.format == "mp4" ? "mp4" : "media")
            let t = e.record.end!
            if var c = clocks[group] {
                let playhead = c.media + Double(t - c.wall) / 1e9
                if start > c.buffered + 0.5 || end < playhead {
                    // A jump past what was buffered, or back behind the playhead: a seek.
                    c = Clock(wall: t, media: start, buffered: end)
                } else {
                    c.buffered = max(c.buffered, end)
                }
                clocks[group] = c
                let ahead = c.buffered - (c.media + Double(t - c.wall) / 1e9)
                if ahead > (best[group]?.ahead ?? 0) { best[group] = (ahead, e.record.id, t) }
            } else {
                clocks[group] = Clock(wall: t, media: start, buffered: end)
                best[group] = (end - start, e.record.id, t)
            }
        }
        return best.keys.sorted().map { group in
            let b = best[group]!
            return Finding(
                .bufferAhead,
                String(
                    format:
                        "%@ buffered up to %.1f s ahead of the playhead, at %.1f s into the capture (the playhead is estimated: playing from the first segment's arrival, or a seek's, without stalls)",
                    group, b.ahead, Double(b.at) / 1e9), exchange: b.exchange)
        }
    }
}
