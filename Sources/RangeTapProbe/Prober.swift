import RangeTapCore

/// Runs every conformance check against one URL and returns the report.
///
/// Phases: a HEAD and the player's `bytes=0-1` probe first (they give the length); then, all at
/// once on one multi handle, the plain GET (the reference the range bodies are compared with)
/// and every range request; beside them, each on its own multi handle and so its own connection,
/// the keep-alive sequences, whose requests go one after another.
///
/// With ``ProbeOptions/http2`` every request asks for HTTP/2 (the concurrent phase then runs as
/// streams of one connection), the probe stops with ``ProbeError/noHTTP2(url:answeredOver:message:)``
/// when the server does not speak it, and the HTTP/1.x-only requests (HTTP/1.0, keep-alive,
/// `Connection: close`) give way to the HTTP/2 connection sequence on a client of its own:
/// concurrent range streams, then a stream reset mid-body and the requests beside and after it.
public enum Prober {
    /// Requests of the concurrent phase in flight at once. Small servers drop a burst of
    /// connects (Python's http.server listens with a backlog of 5), and each drop costs a 1 s
    /// SYN retry; the limit is kept here rather than with `CURLMOPT_MAX_HOST_CONNECTIONS`,
    /// whose queue of waiting transfers stalls for up to a second in libcurl 7.88.
    static let concurrency = 3

    /// Probes `options.url`.
    ///
    /// Throws when the arguments are wrong or nothing can be probed (no response, an error
    /// status, an empty resource); a server that answers badly gives failed checks instead.
    public static func run(_ options: ProbeOptions) async throws(ProbeError) -> ProbeReport {
        try options.validate()
        let clock = MonotonicClock()
        let main = try ProbeClient(options: options, maxConnections: concurrency)
        defer { main.shutdown() }

        let headRequest = ProbeRequest(label: "HEAD", method: "HEAD", limits: .init(partial: 0, full: 0, other: 0))
        let probeRequest = ProbeRequest.range(
            "bytes=0-1", "bytes=0-1", expecting: 2, slices: [ByteRange(first: 0, last: 1)])
        let head: ProbeResponse
        let probe: ProbeResponse
        if options.http2 {
            // One after the other, so that the second request finds the connection open: libcurl
            // 7.88 fails (CURLE_HTTP2) an h2c transfer that waited for a connection still being set up.
            probe = await main.send(probeRequest)
            head = await main.send(headRequest)
        } else {
            async let headAnswer = main.send(headRequest)
            async let probeAnswer = main.send(probeRequest)
            (head, probe) = await (headAnswer, probeAnswer)
        }

        guard let status = probe.status else {
            if options.http2, !options.isHTTPS, let code = probe.errorCode, Self.notHTTP2Codes.contains(code) {
                throw .noHTTP2(url: options.url, answeredOver: nil, message: probe.error)
            }
            throw .unreachable(url: options.url, message: probe.error ?? head.error ?? "no response")
        }
        if options.http2, probe.httpVersion != "2" {
            throw .noHTTP2(
                url: options.url,
                answeredOver: probe.httpVersion ?? probe.version.map { String($0.dropFirst("HTTP/".count)) })
        }
        if status >= 400 && status != 416 {
            let line = probe.head.first.map { String($0.content) } ?? "\(status)"
            throw .httpError(url: options.url, statusLine: line)
        }
        var length: Int64?
        if status == 206, case .success(let cr)? = probe.contentRange, let total = cr.completeLength {
            length = total
        } else if status == 416, case .success(let cr)? = probe.contentRange, let total = cr.completeLength {
            length = total
        } else if status == 200, let cl = probe.contentLength {
            length = cl
        }
        if length == nil, head.status == 200, let cl = head.contentLength { length = cl }
        if length == 0 { throw .emptyResource(url: options.url) }

        var run = ProbeRun(options: options, head: head, probe: probe, length: length)
        let plan = length.map { ProbePlan(length: $0, referenceLimit: options.referenceLimit) }
        run.plan = plan
        let requests = Self.requests(plan: plan, run: run).filter { !(options.http2 && $0.1.http10) }

        if options.h2cNeedsFreshConnections {
            // No connection sequence: it needs a second request on one h2c connection.
            run.responses = await Self.concurrentPhase(requests, on: main)
        } else if options.http2 {
            // The connection sequence has its own multi handle, so its streams share one
            // connection and nothing else does.
            let streamClient = try ProbeClient(options: options, maxConnections: 1)
            defer { streamClient.shutdown() }
            async let sequences = Self.http2Sequences(plan: plan, client: streamClient)
            run.responses = await Self.concurrentPhase(requests, on: main)
            (run.streamOpener, run.streams, run.reset) = await sequences
        } else {
            // Each keep-alive sequence has its own multi handle, so its requests share one
            // connection and nothing else does.
            let reuseClient = try ProbeClient(options: options, maxConnections: 1)
            let closeClient = try ProbeClient(options: options, maxConnections: 1)
            let http10Client = try ProbeClient(options: options, maxConnections: 1)
            defer {
                reuseClient.shutdown()
                closeClient.shutdown()
                http10Client.shutdown()
            }
            async let sequences = Self.keepAliveSequences(
                plan: plan, reuse: reuseClient, close: closeClient, http10: http10Client)
            run.responses = await Self.concurrentPhase(requests, on: main)
            (run.keepAlive, run.close, run.http10) = await sequences
        }

        let connection = options.http2 ? HTTP2Checks.checks(run) : KeepAliveChecks.checks(run)
        let checks =
            ResourceChecks.checks(run) + SingleRangeChecks.checks(run) + UnsatisfiableChecks.checks(run)
            + InvalidRangeChecks.checks(run) + MultiRangeChecks.checks(run) + IfRangeChecks.checks(run)
            + MethodVersionChecks.checks(run)
            + connection + HeaderChecks.checks(run) + CompressionChecks.checks(run)
        return ProbeReport(
            url: options.url, httpProtocol: options.protocolName, length: length, durationMs: Double(clock.now()) / 1e6,
            checks: checks, verdicts: Verdicts.verdicts(checks))
    }

    /// libcurl results that mean a server did not speak HTTP/2 with prior knowledge: it
    /// answered the connection preface with something that is no HTTP/2 frame, or closed.
    /// (`CURLE_UNSUPPORTED_PROTOCOL` for an HTTP/0.9-looking reply, `CURLE_WEIRD_SERVER_REPLY`,
    /// `CURLE_HTTP2`, `CURLE_GOT_NOTHING`, `CURLE_RECV_ERROR`, `CURLE_HTTP2_STREAM`.)
    static let notHTTP2Codes: Set<Int> = [1, 8, 16, 52, 56, 92]

    /// Sends `requests` on `client`, at most ``concurrency`` at a time, and files each answer
    /// under its slot.
    static func concurrentPhase(
        _ requests: [(ProbeSlot, ProbeRequest)], on client: ProbeClient
    ) async -> [ProbeSlot: ProbeResponse] {
        await withTaskGroup(of: (ProbeSlot, ProbeResponse).self) { group in
            var pending = requests[...]
            var out: [ProbeSlot: ProbeResponse] = [:]
            func startNext() {
                guard let (slot, request) = pending.popFirst() else { return }
                group.addTask { (slot, await client.send(request)) }
            }
            for _ in 0..<concurrency { startNext() }
            while let (slot, response) = await group.next() {
                out[slot] = response
                startNext()
            }
            return out
        }
    }

    /// The requests of the concurrent phase.
    static func requests(plan: ProbePlan?, run: ProbeRun) -> [(ProbeSlot, ProbeRequest)] {
        var out: [(ProbeSlot, ProbeRequest)] = []
        let stopAt16K = ReadLimits(partial: 64 * 1024, full: 16 * 1024)
        // Headers that do not depend on the length.
        out.append(
            (
                .headRange,
                ProbeRequest(
                    label: "HEAD bytes=0-1", method: "HEAD", range: "bytes=0-1",
                    limits: .init(partial: 0, full: 0, other: 0))
            ))
        out.append(
            (
                .http10Range,
                ProbeRequest(
                    label: "HTTP/1.0 bytes=0-1", range: "bytes=0-1", http10: true, limits: .range(2),
                    slices: [ByteRange(first: 0, last: 1)])
            ))
        out.append((.reversed, ProbeRequest(label: "bytes=500-100", range: "bytes=500-100", limits: stopAt16K)))
        out.append((.unknownUnit, ProbeRequest(label: "pages=0-1", range: "pages=0-1", limits: stopAt16K)))
        out.append(
            (
                .unitCase,
                ProbeRequest(
                    label: "Bytes=0-1", range: "Bytes=0-1", limits: .range(2), slices: [ByteRange(first: 0, last: 1)])
            ))
        out.append(
            (
                .straySpaces,
                ProbeRequest(
                    label: "bytes = 0 - 1", range: "bytes = 0 - 1", limits: .range(2),
                    slices: [ByteRange(first: 0, last: 1)])
            ))
        out.append(
            (
                .multi,
                ProbeRequest(
                    label: ProbePlan.multiValue, range: ProbePlan.multiValue, limits: stopAt16K, keepBytes: 64 * 1024)
            ))
        out.append(
            (
                .overlap,
                ProbeRequest(
                    label: ProbePlan.overlapValue, range: ProbePlan.overlapValue, limits: stopAt16K,
                    keepBytes: 64 * 1024)
            ))
        let gzipLimits = ReadLimits(partial: 64 * 1024, full: 64 * 1024)
        out.append(
            (
                .gzipRange,
                ProbeRequest(
                    label: "bytes=0-99, Accept-Encoding: gzip", range: "bytes=0-99", acceptEncoding: "gzip",
                    limits: gzipLimits, keepBytes: 64 * 1024)
            ))
        out.append(
            (
                .gzipFull,
                ProbeRequest(
                    label: "GET, Accept-Encoding: gzip", acceptEncoding: "gzip", limits: gzipLimits,
                    keepBytes: 64 * 1024)
            ))
        guard let plan else {
            out.append(
                (
                    .get,
                    ProbeRequest(
                        label: "GET", limits: .init(partial: 0, full: run.options.referenceLimit), keepBytes: 64 * 1024)
                ))
            return out
        }
        out.append(
            (
                .get,
                ProbeRequest(
                    label: "GET", limits: .init(partial: 0, full: plan.referenceLimit), slices: plan.referenceSlices,
                    keepBytes: 64 * 1024)
            ))
        for slot in [ProbeSlot.middle, .open, .suffix, .lastByte, .fromZero, .clamped] {
            guard let (value, expected) = plan.single(slot) else { continue }
            var r = ProbeRequest.range(value, value, expecting: expected.count)
            switch slot {
            case .fromZero: r.limits.partial = plan.fromZeroRead
            case .open: r.slices = [expected] + plan.tailSlices
            default: r.slices = [expected]
            }
            out.append((slot, r))
        }
        let pastEnd = RangeRequest(specs: [.from(first: plan.length)]).headerValue
        out.append((.pastEnd, ProbeRequest(label: pastEnd, range: pastEnd, limits: stopAt16K)))
        out.append((.suffixZero, ProbeRequest(label: "bytes=-0", range: "bytes=-0", limits: stopAt16K)))
        let prefix = ByteRange(first: 0, last: plan.fullPrefix - 1)
        let conditional = ReadLimits(partial: 2 + 64 * 1024, full: plan.fullPrefix)
        if let etag = run.etag {
            out.append(
                (
                    .ifETagOwn,
                    ProbeRequest(
                        label: "If-Range: \(etag)", range: "bytes=0-1", headers: ["If-Range: \(etag)"],
                        limits: conditional, slices: [ByteRange(first: 0, last: 1), prefix])
                ))
            out.append(
                (
                    .ifETagWrong,
                    ProbeRequest(
                        label: "If-Range: \"rangetap-stale\"", range: "bytes=0-1",
                        headers: ["If-Range: \"rangetap-stale\""], limits: conditional,
                        slices: [ByteRange(first: 0, last: 1), prefix])
                ))
        }
        if let date = run.lastModified {
            let old = HTTPDate.parse(date).map { HTTPDate.format($0 - 86_400 * 365) } ?? "Thu, 01 Jan 1998 00:00:00 GMT"
            out.append(
                (
                    .ifDateOwn,
                    ProbeRequest(
                        label: "If-Range: \(date)", range: "bytes=0-1", headers: ["If-Range: \(date)"],
                        limits: conditional, slices: [ByteRange(first: 0, last: 1), prefix])
                ))
            out.append(
                (
                    .ifDateOld,
                    ProbeRequest(
                        label: "If-Range: \(old)", range: "bytes=0-1", headers: ["If-Range: \(old)"],
                        limits: conditional, slices: [ByteRange(first: 0, last: 1), prefix])
                ))
        }
        return out
    }

    /// The keep-alive sequences: requests one after another on each client.
    static func keepAliveSequences(
        plan: ProbePlan?, reuse a: ProbeClient, close b: ProbeClient, http10 c: ProbeClient
    ) async -> ([ProbeResponse], [ProbeResponse], [ProbeResponse]) {
        // A range answered with a 200 is read up to 64 KiB (enough to keep a small file's
        // connection usable), then the probe hangs up.
        let small = ReadLimits(partial: 64 * 1024, full: 64 * 1024)
        var reuse = [ProbeRequest(label: "bytes=0-1", range: "bytes=0-1", limits: small)]
        if let plan {
            let middle = RangeRequest(specs: [.closed(first: plan.middle.first, last: plan.middle.last)]).headerValue
            let pastEnd = RangeRequest(specs: [.from(first: plan.length)]).headerValue
            reuse.append(ProbeRequest(label: middle, range: middle, limits: small))
            reuse.append(ProbeRequest(label: "\(pastEnd) (416)", range: pastEnd, limits: small))
            reuse.append(ProbeRequest(label: "bytes=0-1 again", range: "bytes=0-1", limits: small))
            reuse.append(
                ProbeRequest(
                    label: "GET, hung up after \(plan.cancelAfter) bytes",
                    limits: .init(partial: plan.cancelAfter, full: plan.cancelAfter, other: plan.cancelAfter)))
            reuse.append(ProbeRequest(label: "bytes=0-1 after the hang-up", range: "bytes=0-1", limits: small))
        }
        let closeSeq = [
            ProbeRequest(
                label: "bytes=0-1, Connection: close", range: "bytes=0-1", headers: ["Connection: close"], limits: small
            )
        ]
        let http10Seq = [
            ProbeRequest(
                label: "HTTP/1.0 keep-alive bytes=0-1", range: "bytes=0-1", headers: ["Connection: keep-alive"],
                http10: true, limits: small),
            ProbeRequest(
                label: "HTTP/1.0 keep-alive bytes=0-1 again", range: "bytes=0-1", headers: ["Connection: keep-alive"],
                http10: true, limits: small),
            ProbeRequest(label: "HTTP/1.0 bytes=0-1", range: "bytes=0-1", http10: true, limits: small),
            ProbeRequest(label: "HTTP/1.0 bytes=0-1 again", range: "bytes=0-1", http10: true, limits: small),
        ]
        async let r1 = a.sequence(reuse)
        async let r2 = b.sequence(closeSeq)
        async let r3 = c.sequence(http10Seq)
        return await (r1, r2, r3)
    }
}
