import RangeTapCore

/// One reference of a segment index (`sidx`): a subsegment's bytes and the media time it
/// covers.
public struct MP4SegmentReference: Sendable, Equatable {
    /// The bytes of the subsegment (its `moof` and `mdat`, or a further `sidx`).
    public var byteRange: Range<Int64>
    /// Presentation time the subsegment starts at, in seconds.
    public var start: Double
    /// Presentation time the subsegment ends at, in seconds.
    public var end: Double
    /// Whether the subsegment starts with a stream access point (a place a player can start).
    public var startsWithSAP: Bool
    /// Whether the reference points at another `sidx` (`reference_type` 1) rather than media.
    public var referencesIndex: Bool

    /// Creates a reference.
    public init(byteRange: Range<Int64>, start: Double, end: Double, startsWithSAP: Bool, referencesIndex: Bool = false)
    {
        self.byteRange = byteRange
        self.start = start
        self.end = end
        self.startsWithSAP = startsWithSAP
        self.referencesIndex = referencesIndex
    }
}
