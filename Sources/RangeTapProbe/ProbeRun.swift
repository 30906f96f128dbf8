import RangeTapCore

/// Everything one probe got back, and the facts derived from it that the checks share:
/// the resource's length, its validators, the reference bytes to compare range bodies with.
struct ProbeRun: Sendable {
    /// Options of the run.
    var options: ProbeOptions
    /// The HEAD without a Range.
    var head: ProbeResponse
    /// `bytes=0-1`, sent first.
    var probe: ProbeResponse
    /// The resource's length, when the server told it.
    var length: Int64?
    /// The range plan (when the length is known).
    var plan: ProbePlan?
    /// Answers of the concurrent phase.
    var responses: [ProbeSlot: ProbeResponse] = [:]
    /// The keep-alive sequence on one HTTP/1.1 connection.
    var keepAlive: [ProbeResponse] = []
    /// `Connection: close` on HTTP/1.1.
    var close: [ProbeResponse] = []
    /// HTTP/1.0 with `Connection: keep-alive` twice, then without twice.
    var http10: [ProbeResponse] = []
    /// With `--http2`: the request that opened the connection of the HTTP/2 sequence.
    var streamOpener: ProbeResponse?
    /// With `--http2`: the range requests then sent at once on it (``ProbePlan/streamRanges``).
    var streams: [ProbeResponse] = []
    /// With `--http2`, on that connection afterwards: the GET whose stream rangetap reset, the
    /// range requested beside it, and the request after both.
    var reset: [ProbeResponse] = []

    /// The answer in `slot`, if it was sent.
    subscript(_ slot: ProbeSlot) -> ProbeResponse? { responses[slot] }

    /// Whether the server answered the player's `bytes=0-1` probe with a 206.
    var rangesWork: Bool { probe.status == 206 }

    /// The reference SHA-256 of `range` and where it comes from: the plain GET, or for the tail
    /// of a file longer than the reference read, the open-ended range.
    func reference(_ range: ByteRange) -> (hash: String, source: String)? {
        if let get = self[.get], get.status == 200, let h = get.sliceHashes[range] {
            return (h, "the plain GET")
        }
        if let open = self[.open], open.status == 206, let h = open.sliceHashes[range] {
            return (h, "the open-ended range \(open.request.range ?? "")")
        }
        return nil
    }

    /// The reference bytes of `range` when the plain GET kept them in memory.
    func referenceBytes(_ range: ByteRange) -> ArraySlice<UInt8>? {
        guard let get = self[.get], get.status == 200, range.upperBound <= Int64(get.kept.count) else { return nil }
        return get.kept[Int(range.first)..<Int(range.upperBound)]
    }

    /// The strong ETag the server sent (from the 206/200 probe, the GET or the HEAD).
    var etag: String? {
        for r in [probe, self[.get], head].compactMap({ $0 }) where r.status == 200 || r.status == 206 {
            if let e = r.header("ETag") { return e }
        }
        return nil
    }

    /// The Last-Modified the server sent.
    var lastModified: String? {
        for r in [probe, self[.get], head].compactMap({ $0 }) where r.status == 200 || r.status == 206 {
            if let d = r.header("Last-Modified") { return d }
        }
        return nil
    }

    /// Every response the probe received, for the header checks.
    var allResponses: [ProbeResponse] {
        [head, probe] + ProbeSlot.allCases.compactMap { responses[$0] } + keepAlive + close + http10
            + [streamOpener].compactMap { $0 } + streams + reset
    }
}
