import RangeTapCore

/// One alternative rendition of an HLS master playlist (`EXT-X-MEDIA`): an audio track, a
/// video angle, subtitles or closed captions.
public struct HLSRendition: Sendable, Equatable {
    /// The `TYPE` of a rendition.
    public enum MediaType: String, Sendable, Equatable, CaseIterable {
        /// `AUDIO`.
        case audio = "AUDIO"
        /// `VIDEO`.
        case video = "VIDEO"
        /// `SUBTITLES`.
        case subtitles = "SUBTITLES"
        /// `CLOSED-CAPTIONS` (carried in the video, never with a URI).
        case closedCaptions = "CLOSED-CAPTIONS"
    }

    /// What the rendition carries.
    public var type: MediaType
    /// The group it belongs to (`GROUP-ID`), named by variants' `AUDIO`, `VIDEO`, ... attributes.
    public var groupID: String
    /// Its `NAME`.
    public var name: String
    /// Its `LANGUAGE` (RFC 5646 tag).
    public var language: String?
    /// Absolute URL of its media playlist, without fragment; nil when the rendition is carried
    /// in the variant streams.
    public var uri: String?
    /// True when `DEFAULT=YES`.
    public var isDefault: Bool

    /// Creates a rendition.
    public init(
        type: MediaType, groupID: String, name: String, language: String? = nil, uri: String? = nil,
        isDefault: Bool = false
    ) {
        self.type = type
        self.groupID = groupID
        self.name = name
        self.language = language
        self.uri = uri
        self.isDefault = isDefault
    }
}
