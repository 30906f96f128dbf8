import RangeTapCore

/// The objects every parsed playlist and MPD lists, by URL, to find the one an exchange
/// fetched.
struct MediaRefIndex {
    private var byURL: [String: [MediaSegmentRef]] = [:]
    /// URL key, byte range, kind and sequence of every reference held, to keep each once.
    private var seen: Set<String> = []

    /// A URL as a lookup key: scheme and host lower-cased, the scheme's default port and any
    /// fragment dropped, the path and query as they are.
    static func key(_ url: String) -> String {
        var parts = URLParts(CMCDQuery.removed(from: url))
        parts.rest = parts.rest.prefix { $0 != "#" }
        guard let scheme = parts.scheme?.lowercased(), let authority = parts.authorityText else {
            return String(parts.rest)
        }
        var host = authority.lowercased()
        for (s, port) in [("http", ":80"), ("https", ":443")] where s == scheme && host.hasSuffix(port) {
            host.removeLast(port.count)
        }
        if let at = host.lastIndex(of: "@") { host = String(host[host.index(after: at)...]) }
        return scheme + "://" + host + parts.rest
    }

    /// Adds references (a playlist reloaded adds its segments again: kept once).
    mutating func add(_ refs: [MediaSegmentRef]) {
        for r in refs {
            let k = Self.key(r.url)
            let identity =
                "\(k) \(r.byteRange.map { "\($0.lowerBound)-\($0.upperBound)" } ?? "whole") \(r.span.kind.rawValue) \(r.span.sequence ?? -1)"
            guard seen.insert(identity).inserted else { continue }
            byURL[k, default: []].append(r)
        }
    }

    /// The span of what `bytes` of `url` hold: the objects whose byte ranges the bytes overlap
    /// (several merged into one span, from the first's start to the last's end), or the object
    /// listed for the whole resource. Nil when no listed object matches.
    func span(url: String, bytes: Range<Int64>?) -> MediaSpan? {
        guard let refs = byURL[Self.key(url)], !refs.isEmpty else { return nil }
        let whole = refs.first { $0.byteRange == nil }
        guard let bytes, !bytes.isEmpty else { return whole?.span }
        let hit = refs.filter { $0.byteRange?.overlaps(bytes) == true }.sorted {
            $0.byteRange!.lowerBound < $1.byteRange!.lowerBound
        }
        // The most specific object holding every fetched byte: an LL-HLS part fetched alone is
        // that part, not the segment whose range also holds it.
        if let within = hit.filter({
            $0.byteRange!.lowerBound <= bytes.lowerBound && bytes.upperBound <= $0.byteRange!.upperBound
        }).min(by: { $0.byteRange!.count < $1.byteRange!.count }) {
            return within.span
        }
        if let whole { return whole.span }
        guard var span = hit.first?.span else { return nil }
        guard hit.count > 1 else { return span }
        // One request over several objects (an init segment and the first media segment, or
        // several subsegments): one span from the first to the last, named after the media.
        // (An index inside a segment's range, as SegmentList's indexRange is, is part of it.)
        let segments = hit.filter { $0.span.kind == .segment }
        let media = segments.isEmpty ? hit.filter { $0.span.kind == .part } : segments
        let withInit = hit.contains { $0.span.kind == .initialization }
        if let first = media.first?.span {
            span = first
            span.start = media.compactMap(\.span.start).min()
            span.end = media.compactMap(\.span.end).max()
            if let last = media.last?.span.sequence, let firstSequence = first.sequence, last != firstSequence {
                span.note = "segments \(firstSequence)-\(last)" + (withInit ? " and the init segment" : "")
            } else if withInit {
                span.note = "with the init segment"
            }
        }
        return span
    }
}
