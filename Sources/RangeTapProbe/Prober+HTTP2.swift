import RangeTapCore

extension Prober {
    /// The HTTP/2 connection sequence, on a client of its own (one connection): `bytes=0-1` to
    /// open the connection, the ``ProbePlan/streamRanges`` all at once on it, then a GET whose
    /// stream rangetap resets after ``ProbePlan/cancelAfter`` bytes together with a range beside
    /// it, then the middle range.
    ///
    /// The connection is opened first because libcurl 7.88 fails (`CURLE_HTTP2`) an h2c transfer
    /// that waited for a connection still being set up; a player's connection is open anyway.
    static func http2Sequences(
        plan: ProbePlan?, client: ProbeClient
    ) async -> (opener: ProbeResponse?, streams: [ProbeResponse], reset: [ProbeResponse]) {
        guard let plan else { return (nil, [], []) }
        let opener = await client.send(
            ProbeRequest(
                label: "bytes=0-1, opening the connection", range: "bytes=0-1",
                limits: .init(partial: 64 * 1024, full: 64 * 1024)))
        let ranges = plan.streamRanges
        let requests = ranges.enumerated().map { i, range in
            let value = RangeRequest(specs: [.closed(first: range.first, last: range.last)]).headerValue
            return ProbeRequest.range(
                "stream \(i + 1) of \(ranges.count): \(value)", value, expecting: range.count, slices: [range])
        }
        // Started together: libcurl sends them as streams of the open connection.
        let streams = await withTaskGroup(of: (Int, ProbeResponse).self) { group in
            for (i, request) in requests.enumerated() {
                group.addTask { (i, await client.send(request)) }
            }
            var out = [ProbeResponse?](repeating: nil, count: requests.count)
            for await (i, response) in group { out[i] = response }
            return out.compactMap { $0 }
        }

        let cancel = ProbeRequest(
            label: "GET, stream reset after \(plan.cancelAfter) bytes",
            limits: .init(partial: plan.cancelAfter, full: plan.cancelAfter, other: plan.cancelAfter))
        let companionValue = RangeRequest(specs: [
            .closed(first: plan.resetCompanion.first, last: plan.resetCompanion.last)
        ]).headerValue
        let companion = ProbeRequest.range(
            "\(companionValue) beside the reset stream", companionValue, expecting: plan.resetCompanion.count,
            slices: [plan.resetCompanion])
        async let cancelled = client.send(cancel)
        async let beside = client.send(companion)
        let (a, b) = await (cancelled, beside)
        let middleValue = RangeRequest(specs: [.closed(first: plan.middle.first, last: plan.middle.last)]).headerValue
        let after = await client.send(
            .range("\(middleValue) after the reset", middleValue, expecting: plan.middle.count, slices: [plan.middle]))
        return (opener, streams, [a, b, after])
    }
}
