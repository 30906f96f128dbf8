import RangeTapCore

/// One representation of a DASH MPD: an encoding of one adaptation set's content.
public struct DASHRepresentation: Sendable, Equatable {
    /// `Representation@id`.
    public var id: String
    /// `@bandwidth`, bits per second.
    public var bandwidth: Int?
    /// `@width` of the representation or its adaptation set, pixels.
    public var width: Int?
    /// `@height` of the representation or its adaptation set, pixels.
    public var height: Int?
    /// `@mimeType` of the representation or its adaptation set, e.g. `video/mp4`.
    public var mimeType: String?
    /// `@contentType` of the representation or its adaptation set (`video`, `audio`, `text`),
    /// else the type part of ``mimeType``.
    public var contentType: String?
    /// `@codecs` of the representation or its adaptation set.
    public var codecs: String?
    /// Display name, e.g. `1280x720 2.1 Mb/s` or `audio 128 kb/s`; the rendition of its
    /// segments.
    public var name: String

    /// Creates a representation.
    public init(
        id: String, bandwidth: Int? = nil, width: Int? = nil, height: Int? = nil, mimeType: String? = nil,
        contentType: String? = nil, codecs: String? = nil, name: String
    ) {
        self.id = id
        self.bandwidth = bandwidth
        self.width = width
        self.height = height
        self.mimeType = mimeType
        self.contentType = contentType
        self.codecs = codecs
        self.name = name
    }
}
