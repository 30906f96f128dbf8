/// Where a cache files the body bytes of a response. A server that ignores `Range` or sends a
/// wrong `Content-Range` (or a `--fault` rule that makes it do so) tells the two apart.
public enum ChunkPlacement: Sendable, Equatable {
    /// At the offset the response states: its `Content-Range` start, or 0 for a `200` (what a
    /// correct cache does). A shifted `Content-Range` files the bytes at the wrong place.
    case response
    /// At the start of the range the player asked for, whatever came back: the seeds' caches
    /// do this (seed 001 saves `downloadedData` at `requestRange.start`; seed 004 names each
    /// fragment after its request's Range). A `200` with the whole body for a range that does
    /// not start at 0 then files byte 0 of the resource at the range's start; a shifted
    /// `Content-Range` does no harm, since it is never read.
    case request
}
