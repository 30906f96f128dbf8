import RangeTapCore

/// One rendition of one capture in media terms, from the exchanges the media mapping tied to a
/// segment (docs/media.md): the figures `rangetap diff` compares per rendition.
public struct RenditionFigures: Sendable, Equatable, Codable {
    /// Media segments fetched (each exchange once, a refetch too).
    public var segments = 0
    /// Of them, cancelled by the client part-way.
    public var cancelled = 0
    /// Seconds of media the segments hold (end minus start, summed).
    public var mediaSeconds = 0.0
    /// Body bytes of the segments that reached the client (*delivered*).
    public var bytes: Int64 = 0
    /// Times the player switched to this rendition (`rendition-switch` findings on its segments).
    public var switchesTo = 0

    /// Figures per rendition name (`mp4` for a progressive file), of the segments in `analysis`;
    /// empty when the mapping tied no exchange to a segment.
    public static func of(_ analysis: CaptureAnalysis) -> [String: RenditionFigures] {
        var out: [String: RenditionFigures] = [:]
        for e in analysis.exchanges {
            guard let m = e.media, m.kind == .segment else { continue }
            let name = m.rendition ?? m.format
            var f = out[name] ?? RenditionFigures()
            f.segments += 1
            if e.record.outcome == .cancelled { f.cancelled += 1 }
            if let start = m.start, let end = m.end, end > start { f.mediaSeconds += end - start }
            f.bytes += e.record.bytesToClient
            f.switchesTo += e.findings.filter { $0.code == "rendition-switch" }.count
            out[name] = f
        }
        return out
    }
}
