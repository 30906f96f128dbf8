/// The requests of the concurrent phase of a probe, one per slot.
enum ProbeSlot: Hashable, Sendable, CaseIterable {
    case get, middle, open, suffix, lastByte, fromZero, clamped
    case pastEnd, suffixZero
    case reversed, unknownUnit, unitCase, straySpaces
    case multi, overlap
    case ifETagOwn, ifETagWrong, ifDateOwn, ifDateOld
    case headRange, http10Range
    case gzipRange, gzipFull
}
