import RangeTapCore

/// Parses a segment index box (`sidx`), as a DASH `SegmentBase@indexRange` fetch returns it
/// or as it sits at the top of a fragmented MP4.
public enum MP4SegmentIndex {
    /// Largest `sidx` accepted: 65,535 references of 12 bytes and the fields before them.
    static let maximumSize: Int64 = 65_535 * 12 + 64

    /// The references of the `sidx` box whose bytes (header included) are `sidx`, found at
    /// resource offset `offset`.
    ///
    /// Byte ranges are absolute: the first starts at the end of the box plus `first_offset`,
    /// each next one where the previous ends. Times come from `earliest_presentation_time`
    /// and the `subsegment_duration`s over the box's `timescale`.
    public static func parse(_ sidx: [UInt8], at offset: Int64) throws(MP4Error) -> [MP4SegmentReference] {
        try parseBox(sidx, at: offset).references
    }

    /// ``parse(_:at:)``, also giving the `reference_ID` (the track the times are of).
    static func parseBox(
        _ sidx: [UInt8], at offset: Int64
    ) throws(MP4Error) -> (referenceID: UInt32, references: [MP4SegmentReference]) {
        guard
            let h = try MP4Box.header(
                in: sidx, at: 0, position: offset, limit: offset.addingSaturating(Int64(sidx.count)))
        else {
            throw .truncated(box: "sidx", offset: offset, needed: 8, available: sidx.count)
        }
        guard h.type == "sidx" else {
            throw .inconsistent(box: h.type, offset: offset, reason: "a segment index must be a 'sidx' box")
        }
        var r = MP4ByteReader(sidx, base: offset, header: h)
        let (version, _) = try r.versionAndFlags()
        let referenceID = try r.u32()
        let timescale = try r.u32()
        guard timescale > 0 else { throw r.inconsistent("its timescale is 0") }
        let earliest: Int64
        let firstOffset: Int64
        if version == 0 {
            earliest = Int64(try r.u32())
            firstOffset = Int64(try r.u32())
        } else {
            earliest = try r.u64AsInt64("earliest_presentation_time")
            firstOffset = try r.u64AsInt64("first_offset")
        }
        try r.discard(2)
        let count = try r.u16()
        try r.checkCount(UInt64(count), entrySize: 12)
        guard var position = h.range.upperBound.addingChecked(firstOffset) else {
            throw r.inconsistent("first_offset \(firstOffset) points past the largest file offset")
        }
        var time = earliest
        var references: [MP4SegmentReference] = []
        references.reserveCapacity(Int(count))
        for _ in 0..<count {
            let typeAndSize = try r.u32()
            let duration = try r.u32()
            let sap = try r.u32()
            guard let end = position.addingChecked(Int64(typeAndSize & 0x7FFF_FFFF)) else {
                throw r.inconsistent("a reference runs past the largest file offset")
            }
            let next = time.addingSaturating(Int64(duration))
            references.append(
                MP4SegmentReference(
                    byteRange: position..<end,
                    start: Double(time) / Double(timescale),
                    end: Double(next) / Double(timescale),
                    startsWithSAP: sap & 0x8000_0000 != 0,
                    referencesIndex: typeAndSize & 0x8000_0000 != 0
                ))
            position = end
            time = next
        }
        return (referenceID, references)
    }
}
