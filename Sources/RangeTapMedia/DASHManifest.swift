import RangeTapCore

/// A DASH MPD read into its representations and the references a player fetches.
///
/// `SegmentTemplate` (with `SegmentTimeline` or `@duration`) and `SegmentList` expand into
/// ``segments``; `SegmentBase` representations are listed in ``indexed`` (their segments are in
/// the `sidx` the capture holds) and add their initialization and index references.
public struct DASHManifest: Sendable, Equatable {
    /// Most segments one representation may list; a manifest asking for more is refused.
    public static let segmentLimit = 1_000_000
    /// Most segments a whole manifest may list.
    public static let totalSegmentLimit = 4_000_000

    /// The URL the MPD was fetched from, against which its URLs are resolved.
    public var url: String
    /// True for `MPD@type="dynamic"` (live).
    public var isDynamic: Bool = false
    /// `MPD@mediaPresentationDuration`, seconds.
    public var mediaPresentationDuration: Double?
    /// Representations of every period, in document order.
    public var representations: [DASHRepresentation] = []
    /// Initialization, index and media segment references, per representation in document
    /// order; `span.rendition` is the representation's name and `span.sequence` the segment
    /// number.
    public var segments: [MediaSegmentRef] = []
    /// Representations addressed by `SegmentBase`, whose segments the `sidx` lists.
    public var indexed: [DASHIndexedRepresentation] = []

    /// Creates an empty manifest.
    public init(url: String) {
        self.url = url
    }

    /// Reads an MPD fetched from `url`.
    ///
    /// - Throws: ``MediaParseError`` naming the line: malformed XML, a root that is not
    ///   `<MPD>`, an attribute that cannot be read, a template that cannot be expanded, or a
    ///   representation that would list more than ``segmentLimit`` segments.
    public static func parse(_ text: String, url: String) throws(MediaParseError) -> DASHManifest {
        let root = try MiniXML.parse(text, url: url)
        var parser = DASHManifestParser(url: url)
        return try parser.parse(root)
    }
}
