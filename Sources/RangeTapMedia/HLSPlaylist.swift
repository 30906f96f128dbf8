import RangeTapCore

/// An HLS playlist (RFC 8216), master or media, read into the references a player fetches.
///
/// A master playlist lists ``variants`` and ``renditions``; a media playlist lists
/// ``segments``: initialization maps, segments and LL-HLS parts, each with its absolute URL,
/// byte range and media time.
public struct HLSPlaylist: Sendable, Equatable {
    /// Whether the playlist lists variants or segments.
    public enum Kind: String, Sendable, Equatable {
        /// A master (multivariant) playlist: variants and renditions.
        case master
        /// A media playlist: segments.
        case media
    }

    /// `EXT-X-PLAYLIST-TYPE`.
    public enum PlaylistType: String, Sendable, Equatable {
        /// `VOD`: the playlist never changes.
        case vod = "VOD"
        /// `EVENT`: segments are only appended.
        case event = "EVENT"
    }

    /// The URL the playlist was fetched from, against which its URIs are resolved.
    public var url: String
    /// Master or media.
    public var kind: Kind
    /// Variant streams of a master playlist, in playlist order.
    public var variants: [HLSVariant] = []
    /// `EXT-X-MEDIA` renditions of a master playlist, in playlist order.
    public var renditions: [HLSRendition] = []
    /// What a media playlist lists, in playlist order: `.initialization` for each distinct
    /// `EXT-X-MAP`, `.part` for each `EXT-X-PART`, `.segment` for each segment.
    public var segments: [MediaSegmentRef] = []
    /// `EXT-X-TARGETDURATION`, seconds.
    public var targetDuration: Double?
    /// `EXT-X-MEDIA-SEQUENCE`: the sequence number of the first segment (0 when absent).
    public var mediaSequence: Int = 0
    /// True when the playlist carries `EXT-X-ENDLIST` (no more segments will be added).
    public var endList: Bool = false
    /// `EXT-X-PLAYLIST-TYPE`.
    public var playlistType: PlaylistType?

    /// Creates an empty playlist of `kind`.
    public init(url: String, kind: Kind) {
        self.url = url
        self.kind = kind
    }

    /// Reads a playlist fetched from `url`.
    ///
    /// - Parameters:
    ///   - text: The playlist as fetched.
    ///   - url: Its URL; relative URIs are resolved against it.
    ///   - rendition: The rendition name its segments carry (e.g. the master's variant name);
    ///     the playlist file's name when nil.
    /// - Throws: ``MediaParseError`` naming the line, when the text is not a playlist, a
    ///   duration or byte range cannot be read, or a required attribute is missing.
    public static func parse(
        _ text: String, url: String, rendition: String? = nil
    ) throws(MediaParseError) -> HLSPlaylist {
        var parser = HLSPlaylistParser(url: url, rendition: rendition ?? MediaURL.lastPathComponent(url))
        return try parser.parse(text)
    }
}
