import RangeTapCore

/// The ranges a probe asks for, chosen from the resource's length so that every one is cheap
/// (a few KB at most) whatever the size of the file.
struct ProbePlan: Sendable {
    /// The resource's length.
    let length: Int64
    /// Most bytes of the plain GET read as the reference.
    let referenceLimit: Int64

    /// The first byte of the middle range.
    var middleFirst: Int64 { min(length / 2, referenceLimit / 2) }
    /// The middle range.
    var middle: ByteRange { ByteRange(first: middleFirst, last: middleFirst + min(1000, length - middleFirst) - 1) }
    /// The start of the open-ended range: 4 KiB before the end (half the file when it is small).
    var openFirst: Int64 { length > 8192 ? length - 4096 : length / 2 }
    /// The suffix length.
    var suffixLength: Int64 { min(500, max(1, length / 2)) }
    /// The first byte of the range whose end is past the length.
    var clampedFirst: Int64 { max(0, length - 100) }
    /// The end of that range as sent.
    var clampedLast: Int64 { length + 999 }
    /// Bytes read from the full response that the keep-alive sequence hangs up on.
    var cancelAfter: Int64 { max(1, min(16 * 1024, length / 2)) }
    /// Bytes of a 200 read where a 200 is the right answer (If-Range with a stale validator).
    var fullPrefix: Int64 { min(length, 64 * 1024) }
    /// Bytes of `bytes=0-` read.
    var fromZeroRead: Int64 { min(length, referenceLimit) }

    /// How many range requests the HTTP/2 check sends at once.
    static let streamCount = 8
    /// Bytes inside the reference read, where the HTTP/2 streams ask their ranges.
    private var streamSpan: Int64 { min(length, referenceLimit) }
    /// The ranges of the concurrent HTTP/2 streams: ``streamCount`` ranges of up to 16 KiB
    /// spread from the first byte to the end of the reference read.
    var streamRanges: [ByteRange] {
        let size = max(1, min(16 * 1024, streamSpan / Int64(Self.streamCount)))
        return (0..<Int64(Self.streamCount)).map { i in
            let first = (streamSpan - size) * i / Int64(Self.streamCount - 1)
            return ByteRange(first: first, last: first + size - 1)
        }
    }
    /// The range requested beside the HTTP/2 stream that is reset: up to 64 KiB from the middle.
    var resetCompanion: ByteRange {
        ByteRange(first: middleFirst, last: middleFirst + min(64 * 1024, streamSpan - middleFirst) - 1)
    }

    /// The Range value and expected bytes of each single-range slot.
    func single(_ slot: ProbeSlot) -> (value: String, expected: ByteRange)? {
        let spec: RangeSpec
        switch slot {
        case .middle: spec = .closed(first: middle.first, last: middle.last)
        case .open: spec = .from(first: openFirst)
        case .suffix: spec = .suffix(length: suffixLength)
        case .lastByte: spec = .closed(first: length - 1, last: length - 1)
        case .fromZero: spec = .from(first: 0)
        case .clamped: spec = .closed(first: clampedFirst, last: clampedLast)
        default: return nil
        }
        guard let expected = spec.resolved(length: length) else { return nil }
        return (RangeRequest(specs: [spec]).headerValue, expected)
    }

    /// The specs of the multi-range slots.
    static let multiValue = "bytes=0-0,200-299"
    /// Overlapping ranges.
    static let overlapValue = "bytes=0-9,5-14"

    /// The satisfiable ranges of a multi-range value, in request order.
    func expectedParts(_ value: String) -> [ByteRange] {
        guard let request = try? RangeRequest.parse(value) else { return [] }
        return request.specs.compactMap { $0.resolved(length: length) }
    }

    /// Slices the reference GET hashes as it streams.
    var referenceSlices: [ByteRange] {
        var s: Set<ByteRange> = [
            ByteRange(first: 0, last: min(1, length - 1)), ByteRange(first: 0, last: fromZeroRead - 1),
            ByteRange(first: 0, last: fullPrefix - 1),
        ]
        for slot in [ProbeSlot.middle, .open, .suffix, .lastByte, .clamped] {
            if let e = single(slot)?.expected { s.insert(e) }
        }
        s.formUnion(streamRanges)
        s.insert(resetCompanion)
        return s.filter { $0.upperBound <= referenceLimit }.sorted { ($0.first, $0.last) < ($1.first, $1.last) }
    }

    /// Tail slices the open-ended range hashes, for resources longer than the reference read.
    var tailSlices: [ByteRange] {
        [ProbeSlot.suffix, .lastByte, .clamped].compactMap { single($0)?.expected }.filter { $0.first >= openFirst }
    }
}
