import RangeTapCore

/// A DASH representation addressed by `SegmentBase`: one file whose segments are listed by
/// the `sidx` box at ``indexRange``, which the capture holds rather than the MPD.
public struct DASHIndexedRepresentation: Sendable, Equatable {
    /// Absolute URL of the file: the representation's resolved `BaseURL`.
    public var url: String
    /// Bytes of the `sidx` box (`SegmentBase@indexRange`).
    public var indexRange: Range<Int64>
    /// Bytes of the initialization segment (`Initialization@range`).
    public var initializationRange: Range<Int64>?
    /// The representation's display name, the rendition of its segments.
    public var rendition: String
    /// `@timescale`: units per second of ``presentationTimeOffset`` (and of the `sidx` when it
    /// agrees).
    public var timescale: Int64
    /// `@presentationTimeOffset`, in ``timescale`` units: media time that plays at the
    /// period's start.
    public var presentationTimeOffset: Int64
    /// The period's start, seconds from the start of the presentation.
    public var periodStart: Double

    /// Creates one.
    public init(
        url: String, indexRange: Range<Int64>, initializationRange: Range<Int64>? = nil, rendition: String,
        timescale: Int64 = 1, presentationTimeOffset: Int64 = 0, periodStart: Double = 0
    ) {
        self.url = url
        self.indexRange = indexRange
        self.initializationRange = initializationRange
        self.rendition = rendition
        self.timescale = timescale
        self.presentationTimeOffset = presentationTimeOffset
        self.periodStart = periodStart
    }
}
