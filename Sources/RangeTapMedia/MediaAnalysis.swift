import RangeTapCore

/// A capture's analysis with media time: ``CaptureAnalysis/analyze(path:keepChunks:)``, then,
/// when bodies were recorded, the playlists, manifests and MP4 indexes it holds read into a
/// ``MediaMap`` that says what each exchange fetched (segment, rendition, media time) and what
/// looks wrong in media terms. What `inspect`, `export` and `diff` show.
public enum MediaAnalysis {
    /// Analyses the capture at `path`, media included.
    public static func analyze(path: String, keepChunks: Bool = false) throws -> CaptureAnalysis {
        var analysis = try CaptureAnalysis.analyze(path: path, keepChunks: keepChunks)
        addMedia(to: &analysis, reader: try CaptureReader(path: path))
        return analysis
    }

    /// Adds media time and the media findings to `analysis` of the capture `reader` reads (nothing
    /// when it was recorded without bodies). The live web view calls it on a growing capture.
    public static func addMedia(to analysis: inout CaptureAnalysis, reader: CaptureReader) {
        guard reader.header.bodies else { return }
        let media = MediaMap.build(analysis, reader: reader)
        guard !media.spans.isEmpty || !media.findings.isEmpty else { return }
        analysis.setMedia(media.spans)
        // MediaFindings reads the spans just set.
        analysis.addBodyFindings(media.findings + MediaFindings.findings(analysis.exchanges, map: media))
    }
}
