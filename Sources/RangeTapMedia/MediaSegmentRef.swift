import RangeTapCore

/// One object a playlist or manifest lists: where it is (URL, and byte range within it when
/// the list gives one) and what it is (``MediaSpan``).
///
/// HLS playlists and DASH MPDs are parsed into these; ``MediaMap`` ties each exchange of a
/// capture to the reference whose URL and bytes it fetched.
public struct MediaSegmentRef: Sendable, Equatable {
    /// Absolute URL, resolved against the playlist's or manifest's URL, without fragment.
    public var url: String
    /// Bytes of the resource the object occupies; nil when it is the whole resource.
    public var byteRange: Range<Int64>?
    /// What the object is.
    public var span: MediaSpan

    /// Creates a reference.
    public init(url: String, byteRange: Range<Int64>? = nil, span: MediaSpan) {
        self.url = url
        self.byteRange = byteRange
        self.span = span
    }
}
