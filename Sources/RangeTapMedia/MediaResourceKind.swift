import RangeTapCore

/// What a response's URL and Content-Type say it is, for the media mapping: a playlist, an
/// MPD, an MP4-family file whose own index can map its bytes, or something else.
enum MediaResourceKind: Equatable {
    case hls, dash, mp4, other

    /// File extensions of the ISO base media file format (MP4, fragmented MP4, CMAF, QuickTime).
    private static let mp4Extensions: Set<String> = [
        "mp4", "m4v", "m4a", "mov", "m4s", "cmfv", "cmfa", "mp4v", "3gp", "ismv", "isma",
    ]

    /// Reads an exchange's URL path and the Content-Type of its response.
    init(_ r: ExchangeRecord) {
        let type = r.responseLines.first(named: "Content-Type")?.lowercased() ?? ""
        let path = r.path.lowercased()
        let ext =
            path.split(separator: "/").last.flatMap { name in
                name.lastIndex(of: ".").map { String(name[name.index(after: $0)...]) }
            } ?? ""
        if ext == "m3u8" || ext == "m3u" || type.contains("mpegurl") {
            self = .hls
        } else if ext == "mpd" || type.contains("dash+xml") {
            self = .dash
        } else if Self.mp4Extensions.contains(ext) || type.hasPrefix("video/mp4") || type.hasPrefix("audio/mp4")
            || type.hasPrefix("video/quicktime") || type.hasPrefix("video/iso.segment")
        {
            self = .mp4
        } else {
            self = .other
        }
    }
}
