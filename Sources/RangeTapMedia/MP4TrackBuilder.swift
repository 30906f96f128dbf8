import RangeTapCore

/// A track while its samples are being gathered from the `moov` and the `moof` fragments;
/// ``build()`` turns it into an ``MP4Track``.
struct MP4TrackBuilder {
    var id: UInt32 = 0
    var handler = ""
    var timescale: UInt32 = 0
    /// Added to decode time + composition offset to give the presentation time: the empty edit
    /// (in this track's units) minus the first media edit's `media_time`.
    var presentationShift: Int64 = 0
    /// `trex` defaults for fragments.
    var defaultDuration: UInt32 = 0
    var defaultSize: UInt32 = 0
    /// Decode time the next fragment sample gets when its `traf` has no `tfdt`.
    var nextDecodeTime: Int64 = 0

    private(set) var offsets: [Int64] = []
    private(set) var sizes: [UInt32] = []
    private(set) var decodeTimes: [Int64] = []
    private(set) var presentationTimes: [Int64] = []
    private(set) var durations: [UInt32] = []

    /// Makes room for `n` more samples (callers check `n` against the bytes or the budget first).
    mutating func reserve(_ n: Int) {
        let total = offsets.count + n
        offsets.reserveCapacity(total)
        sizes.reserveCapacity(total)
        decodeTimes.reserveCapacity(total)
        presentationTimes.reserveCapacity(total)
        durations.reserveCapacity(total)
    }

    /// Adds one sample.
    mutating func append(offset: Int64, size: UInt32, decodeTime: Int64, compositionOffset: Int32, duration: UInt32) {
        offsets.append(offset)
        sizes.append(size)
        decodeTimes.append(decodeTime)
        presentationTimes.append(
            decodeTime.addingSaturating(Int64(compositionOffset)).addingSaturating(presentationShift))
        durations.append(duration)
    }

    /// Sets ``presentationShift`` from the first edits of an `elst`: an empty edit
    /// (`media_time` -1) of `emptyDuration` movie units delays presentation, and the first
    /// media edit's `mediaTime` is where presentation starts in the media.
    mutating func applyEdit(emptyDuration: UInt64, mediaTime: Int64, movieTimescale: UInt32) {
        var shift = -Double(mediaTime)
        if emptyDuration > 0, movieTimescale > 0 {
            shift += Double(emptyDuration) * Double(timescale) / Double(movieTimescale)
        }
        let limit = Double(Int64(1) << 62)
        presentationShift = shift.isFinite && abs(shift) < limit ? Int64(shift.rounded()) : 0
    }

    /// The finished track.
    func build() -> MP4Track {
        MP4Track(
            id: id, handler: handler, timescale: timescale, offsets: offsets, sizes: sizes, decodeTimes: decodeTimes,
            presentationTimes: presentationTimes, durations: durations)
    }
}
