/// What an exchange fetched, in the player's terms: which kind of media object, of which
/// rendition, which segment, and the media time it covers.
///
/// Built by ``MediaMap`` from the playlists, manifests and MP4 indexes found in the capture;
/// `inspect` shows it as a column and `inspect --json` as `media`.
public struct MediaSpan: Sendable, Equatable, Codable {
    /// The kind of media object.
    public enum Kind: String, Sendable, Codable, CaseIterable {
        /// An HLS playlist (master or media) or a DASH MPD.
        case manifest
        /// An initialization segment (`EXT-X-MAP`, DASH `Initialization`, or an MP4's `moov`
        /// when it is read apart from the samples).
        case initialization = "init"
        /// An index: a `sidx` box (DASH `indexRange`) or the `moov` of a progressive MP4.
        case index
        /// A media segment (HLS segment, DASH segment) or the samples of a progressive MP4.
        case segment
        /// An LL-HLS partial segment (`EXT-X-PART`).
        case part
    }

    /// The kind of object fetched.
    public var kind: Kind
    /// The format the mapping came from: `hls`, `dash` or `mp4`.
    public var format: String
    /// The rendition (an HLS variant or rendition, a DASH representation), named as a person
    /// reads it, e.g. `1280x720 2.1 Mb/s`; nil when the capture does not tell.
    public var rendition: String?
    /// The segment's number: the HLS media sequence number or the DASH segment number.
    public var sequence: Int?
    /// Media time the fetched bytes start at, in seconds.
    public var start: Double?
    /// Media time the fetched bytes end at, in seconds.
    public var end: Double?
    /// Extra fact worth a column, e.g. `moov at end`.
    public var note: String?

    /// Creates a span.
    public init(
        kind: Kind, format: String, rendition: String? = nil, sequence: Int? = nil, start: Double? = nil,
        end: Double? = nil, note: String? = nil
    ) {
        self.kind = kind
        self.format = format
        self.rendition = rendition
        self.sequence = sequence
        self.start = start
        self.end = end
        self.note = note
    }
}
