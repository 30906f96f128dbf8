/// Builds a ``CaptureAnalysis`` event by event (also usable on a capture still being written).
public struct CaptureAnalysisBuilder: Sendable {
    private var log: ExchangeLog
    private var analysis: CaptureAnalysis
    private var finished: [Int: CaptureAnalysis.Exchange] = [:]
    private var connectionOrder: [Int] = []
    private var connectionInfo: [Int: CaptureAnalysis.Connection] = [:]

    // Per resource, as responses finish.
    private var lengths: [String: Int64] = [:]
    private var acceptRangesSeen: [String: String?] = [:]
    private var partialSeen: Set<String> = []
    /// Chunks of multipart/byteranges responses, whose parts are checked once bodies can be read.
    private(set) var multipartChunks: [Int: [ChunkEvent]] = [:]
    /// Exchanges whose request was seen and which have not finished, in request order.
    private var open: [Int] = []
    /// Time of the latest event applied.
    public private(set) var latest: CaptureTime = 0

    /// Starts an analysis of a capture with `header`.
    public init(header: CaptureHeader, keepChunks: Bool) {
        log = ExchangeLog(keepChunks: keepChunks, redactsURLPasswords: header.redacted)
        analysis = CaptureAnalysis(header: header)
    }

    /// Applies one event; returns the exchange's analysis when this event finished it.
    @discardableResult
    public mutating func apply(_ event: CaptureEvent) -> CaptureAnalysis.Exchange? {
        switch event {
        case .connectionOpen(let e):
            connectionOrder.append(e.connection)
            connectionInfo[e.connection] = .init(id: e.connection, requests: 0, closedBy: nil)
        case .connectionClose(let e):
            connectionInfo[e.connection]?.closedBy = e.by
            connectionInfo[e.connection]?.requests = e.requests
        case .response(let r)
        where r.lines.first(named: "Content-Type")?.lowercased().hasPrefix("multipart/byteranges") == true:
            multipartChunks[r.exchange] = []
        case .chunk(let c) where multipartChunks[c.exchange] != nil:
            multipartChunks[c.exchange]!.append(c)
        case .tls(let e) where e.outcome != .established:
            let what =
                e.outcome == .rejected
                ? "the client refused rangetap's certificate for \(e.serverName ?? e.authority)"
                : "the TLS handshake for \(e.serverName ?? e.authority) failed"
            analysis.findings.append(
                Finding(
                    e.outcome == .rejected ? .tlsClientRejected : .tlsFailed,
                    "\(what) on connection \(e.connection): \(e.reason ?? "no reason given")",
                    evidence: [e.reason].compactMap { $0 }, exchange: e.exchange))
        case .error(let e) where e.exchange == nil:
            analysis.findings.append(
                Finding(
                    e.kind == .badRequest ? .badRequest : .upstreamError,
                    URLRedaction.redactingUserinfo(inText: e.message, if: analysis.header.redacted),
                    evidence: e.status.map { ["status \($0)"] } ?? [], exchange: nil))
        default:
            break
        }
        switch event {
        case .request(let r):
            open.append(r.exchange)
            latest = max(latest, r.t)
        case .response(let r): latest = max(latest, r.t)
        case .chunk(let c): latest = max(latest, c.t)
        case .end(let e): latest = max(latest, e.t)
        case .cancel(let e): latest = max(latest, e.t)
        default: break
        }
        guard let done = log.apply(event) else { return nil }
        if let i = open.firstIndex(of: done.id) { open.remove(at: i) }
        let analysed = analyze(done)
        finished[done.id] = analysed
        return analysed
    }

    /// The exchanges in flight: request seen, not finished yet, in request order, as they stand.
    public var inFlight: [ExchangeRecord] { open.compactMap { log.exchanges[$0] } }

    /// The analysis of everything applied so far; open exchanges are included as they stand.
    public func finish() -> CaptureAnalysis {
        var a = analysis
        var b = self
        var pass = ClientPass(lengths: b.lengths)
        var rulesByExchange: [Int: [String]] = [:]
        for record in log.records {
            var e = finished[record.id] ?? b.analyze(record)
            // Faults and deliveries written after the exchange finished belong to it too.
            e.record.faults = record.faults
            e.record.deliveries = record.deliveries
            pass.apply(&e)
            if let rules = record.faultRules { rulesByExchange[record.id] = rules }
            a.exchanges.append(e)
        }
        a.shapes = log.shapes
        a.resources = pass.resources()
        for url in b.partialSeen.sorted() {
            guard let seen = b.acceptRangesSeen[url] else { continue }  // no 200 response to judge by
            let ar = seen
            if ar == nil || ar?.lowercased() == "none" {
                a.findings.append(
                    Finding(
                        .acceptRangesMissing,
                        "\(url) is served with 206 but its responses say \(ar == nil ? "no Accept-Ranges" : "Accept-Ranges: none"): clients that check Accept-Ranges before seeking will download from byte 0",
                        evidence: [url]))
            }
        }
        a.findings += HTTP2HeaderCaseNote.findings(a.exchanges.map(\.record))
        a.findings += AltSvcNote.findings(a.exchanges.map(\.record))
        CMCDPass.apply(to: &a.exchanges, latest: b.latest)
        // What the faults caused, and the clients' answers to them, is the user's doing.
        if !rulesByExchange.isEmpty { FaultAttribution.apply(to: &a) }
        var counts: [Int: Int] = [:]
        var streams: [Int: Int] = [:]
        var versions: [Int: String] = [:]
        for e in a.exchanges {
            let r = e.record
            counts[r.connection, default: 0] += 1
            if r.stream != nil { streams[r.connection, default: 0] += 1 }
            // An intercepted tunnel's CONNECT is HTTP/1.1; the streams inside it decide.
            if versions[r.connection] == nil || r.isHTTP2Client { versions[r.connection] = r.clientHTTPVersion }
        }
        a.connections = b.connectionOrder.map { id in
            var c = b.connectionInfo[id] ?? .init(id: id, requests: 0, closedBy: nil)
            c.requests = max(c.requests, counts[id] ?? 0)
            c.clientHTTPVersion = versions[id]
            c.streams = streams[id] ?? 0
            return c
        }
        a.summary = a.summarized()
        return a
    }

    // MARK: Per exchange

    private mutating func analyze(_ r: ExchangeRecord) -> CaptureAnalysis.Exchange {
        var findings: [Finding] = []
        let id = r.id
        let url = r.resource

        // The checks judge the head the client got: the origin's, unless a `--fault` rule
        // rewrote it (header-case, drop-header, off-by-one).
        let rewritten = r.clientHeadRewritten
        let head = r.clientResponseLines
        let statusLine = head.first?.raw ?? ""
        let rangeLine = r.requestHeaders.first { $0.name?.lowercased() == "range" }?.raw
        // Lines with whitespace before the colon are read as the field a proxy would forward.
        let fields = head.map { $0.removingSpaceBeforeColon() }
        let contentLength = fields.first(named: "Content-Length").flatMap(ContentLength.parse)
        let contentRangeValue = fields.first(named: "Content-Range")
        var contentRange: ContentRange?
        if let v = contentRangeValue {
            do {
                contentRange = try ContentRange.parse(v)
            } catch {
                findings.append(
                    Finding(
                        .contentRangeInvalid, "Content-Range \"\(v)\" cannot be parsed: \(error)",
                        evidence: [rawLine(fields, "Content-Range")], exchange: id))
            }
        }
        var rangeRequest: RangeRequest?
        if let v = r.requestRange { rangeRequest = try? RangeRequest.parse(v) }
        let single = rangeRequest.flatMap { $0.isBytes && $0.specs.count == 1 ? $0.specs[0] : nil }

        // What the resource's length is known to be: the origin's word, even where a fault
        // changed what the client was told.
        let originFields = rewritten ? r.responseLines.map { $0.removingSpaceBeforeColon() } : fields
        let originContentRange =
            rewritten
            ? originFields.first(named: "Content-Range").flatMap { try? ContentRange.parse($0) } : contentRange
        let originContentLength =
            rewritten ? originFields.first(named: "Content-Length").flatMap(ContentLength.parse) : contentLength
        if let total = originContentRange?.completeLength {
            noteLength(url, total, exchange: id, evidence: rawLine(originFields, "Content-Range"), findings: &findings)
        }
        if r.status == 200, r.method == "GET", let cl = originContentLength {
            noteLength(url, cl, exchange: id, evidence: rawLine(originFields, "Content-Length"), findings: &findings)
        }
        let length = lengths[url]

        // Header spelling, both directions. A rewritten head is judged as the client got it,
        // over the client's protocol.
        findings += HeaderCaseCheck.findings(
            lines: head, exchange: id, side: "response", overHTTP2: rewritten ? r.isHTTP2Client : r.isHTTP2Upstream)
        findings += HeaderSyntaxCheck.findings(lines: head, exchange: id, side: "response")

        if let status = r.clientStatus, r.method != "CONNECT" {
            // Judge Accept-Ranges on full responses: servers such as nginx omit it on 206.
            // (on the origin's head: a resource-wide finding must not blame it for a dropped header).
            if status == 200 { acceptRangesSeen[url] = .some(originFields.first(named: "Accept-Ranges")) }
            if status == 206 { partialSeen.insert(url) }
            if statusLine.hasPrefix("HTTP/1.0") {
                findings.append(
                    Finding(
                        .http10,
                        "the server answered with HTTP/1.0: no chunked encoding, and keep-alive only if it says so",
                        evidence: [statusLine], exchange: id))
            } else if fields.values(named: "Connection").contains(where: { $0.lowercased().contains("close") }) {
                findings.append(
                    Finding(
                        .connectionClose,
                        "the server closes the connection after this response (Connection: close on HTTP/1.1): the next request pays a new connection",
                        evidence: [rawLine(fields, "Connection")], exchange: id))
            }
            checkRangeHandling(
                r, fields: fields, status: status, single: single, rangeRequest: rangeRequest,
                contentRange: contentRange, contentLength: contentLength, length: length, rangeLine: rangeLine,
                statusLine: statusLine, findings: &findings)
        }

        if r.pausedNs > 0 {
            let paused = Double(r.pausedNs) / 1e6
            let total = r.durationMs.map { String(format: " of %.1f ms", $0) } ?? ""
            findings.append(
                Finding(
                    .proxyPaused,
                    String(format: "rangetap paused reading the origin for %.1f ms", paused) + total
                        + " because the client read slowly: that time is the client's, not the origin's, and chunk times after each resume are when rangetap read the bytes",
                    exchange: id))
        }

        // How the body ended. What rangetap passed on came from the origin (received) or, for a
        // `--map` answer, from rangetap itself (served): the words say which.
        let source =
            r.bytesServed == nil
            ? (count: r.bytesReceived, words: "received from upstream", key: "received")
            : (count: r.bytesSent, words: "served by rangetap", key: "served")
        switch r.outcome {
        case .failed(let message) where r.failure == .fault:
            // rangetap cut the response itself (reset-after, truncate-after): what the client got
            // is what it passed on; the origin did not fail.
            let delivered = r.bytesDelivered ?? 0
            findings.append(
                Finding(
                    .truncated,
                    "the client got \(delivered) body bytes, then rangetap cut its connection (\(message)); \(source.count) \(source.words)",
                    evidence: ["delivered=\(delivered)", "\(source.key)=\(source.count)"], exchange: id))
        case .failed(let message):
            if let cl = contentLength, r.status != nil, source.count < cl {
                findings.append(
                    Finding(
                        .truncated,
                        "body shorter than declared: \(source.count) of \(cl) bytes arrived before the server closed the connection (not a client cancel)",
                        evidence: [rawLine(fields, "Content-Length"), message], exchange: id))
            } else if r.status != nil && r.status != 502 {
                findings.append(
                    Finding(
                        .closedMidResponse,
                        "the upstream connection failed mid-response after \(source.count) bytes: \(message)",
                        evidence: [message], exchange: id))
            } else {
                findings.append(Finding(.upstreamError, message, evidence: [message], exchange: id))
            }
        case .cancelled:
            let delivered = r.bytesDelivered ?? 0
            findings.append(
                Finding(
                    .cancelled,
                    "the client cancelled after \(delivered) bytes delivered (\(source.count) \(source.words)\(r.sendBuffer.map { ", up to \($0) of them possibly unread in the socket buffer" } ?? ""))",
                    evidence: ["delivered=\(delivered)", "\(source.key)=\(source.count)"], exchange: id))
            if case .from? = single, source.count < 1 << 20 {
                findings.append(
                    Finding(
                        .earlyCancel,
                        "open-ended request \(r.requestRange ?? "") cancelled after \(delivered) bytes delivered (\(source.count) \(source.key)): the player reads ahead a little and cancels (the AVPlayer pattern)",
                        evidence: [rangeLine ?? ""], exchange: id))
            }
        case .complete, .open:
            // The body the client was sent: rangetap's own when it answered (a fault's status),
            // else the origin's.
            let sent = r.bytesServed ?? r.bytesReceived
            if r.outcome == .complete, let cl = contentLength, r.method != "HEAD", r.status != 304, r.status != 204,
                cl != sent
            {
                findings.append(
                    Finding(
                        .contentLengthMismatch,
                        "Content-Length says \(cl) bytes but \(sent) \(r.bytesServed == nil ? "arrived" : "were served")",
                        evidence: [rawLine(fields, "Content-Length")], exchange: id))
            }
            // A fault (truncate-after) that closed the client's connection before the last byte.
            if r.outcome == .complete, r.injected, let delivered = r.bytesDelivered, delivered < source.count {
                findings.append(
                    Finding(
                        .truncated,
                        "the client got \(delivered) of the \(source.count) body bytes before its connection was closed",
                        evidence: ["delivered=\(delivered)", "\(source.key)=\(source.count)"], exchange: id))
            }
        }

        // The player's own account: its CMCD, read whatever it holds.
        let cmcd = r.cmcd
        if let cmcd, !cmcd.problems.isEmpty {
            findings.append(
                Finding(
                    .cmcdInvalid,
                    "the player's CMCD breaks CTA-5004: \(cmcd.problems.joined(separator: "; ")); the keys that could be read are kept",
                    evidence: cmcd.raw.map(\.line), exchange: id))
        }
        return .init(
            record: r, findings: findings, expectedBytes: contentLength, resourceSpan: nil, refetchedBytes: 0,
            cmcd: cmcd)
    }

    private func resourceStart(_ r: ExchangeRecord, contentRange: ContentRange?) -> Int64? {
        if r.status == 206 { return contentRange?.range?.first }
        if r.status == 200 { return 0 }
        return nil
    }

    private mutating func noteLength(
        _ url: String, _ total: Int64, exchange: Int, evidence: String, findings: inout [Finding]
    ) {
        if let known = lengths[url], known != total {
            findings.append(
                Finding(
                    .contentRangeMismatch,
                    "the resource's length changed from \(known) to \(total) bytes between responses",
                    evidence: [evidence], exchange: exchange))
        }
        lengths[url] = total
    }

    private func checkRangeHandling(
        _ r: ExchangeRecord, fields: [HeaderLine], status: Int, single: RangeSpec?, rangeRequest: RangeRequest?,
        contentRange: ContentRange?, contentLength: Int64?, length: Int64?, rangeLine: String?, statusLine: String,
        findings: inout [Finding]
    ) {
        let id = r.id
        let isMultipart = fields.first(named: "Content-Type")?.lowercased().hasPrefix("multipart/byteranges") == true
        if rangeRequest?.isBytes == true, status == 200, r.method == "GET" {
            let size = contentLength.map { "\($0) bytes" } ?? "a body of unknown length"
            findings.append(
                Finding(
                    .rangeIgnored,
                    "asked \(r.requestRange ?? "a range"), got 200: the server ignored the Range and sends the whole resource (\(size))\(r.outcome == .cancelled ? "; the client cancelled after \(r.bytesReceived) bytes received" : "")",
                    evidence: [rangeLine ?? "", statusLine], exchange: id))
        }
        if status == 206 && isMultipart {
            findings.append(
                Finding(
                    .multipart,
                    "multipart/byteranges response to \(r.requestRange ?? "a multi-range request") (no top-level Content-Range, which is correct)",
                    evidence: [rawLine(fields, "Content-Type")], exchange: id))
            if contentRange != nil {
                findings.append(
                    Finding(
                        .multipartPartInvalid,
                        "a multipart/byteranges response must not carry a top-level Content-Range",
                        evidence: [rawLine(fields, "Content-Range")], exchange: id))
            }
        } else if status == 206 && fields.first(named: "Content-Range") == nil {
            findings.append(
                Finding(
                    .partialWithoutContentRange, "206 without Content-Range: the client cannot know which bytes it got",
                    evidence: [statusLine], exchange: id))
        }
        if status == 206, let cr = contentRange, let got = cr.range {
            if let cl = contentLength, cl != got.count {
                findings.append(
                    Finding(
                        .contentLengthMismatch,
                        "Content-Length \(cl) disagrees with Content-Range \(got) (\(got.count) bytes)",
                        evidence: [rawLine(fields, "Content-Length"), rawLine(fields, "Content-Range")], exchange: id))
            }
            if !cr.isConsistent {
                findings.append(
                    Finding(
                        .contentRangeMismatch,
                        "Content-Range ends at \(got.last) but says the resource has \(cr.completeLength ?? 0) bytes",
                        evidence: [rawLine(fields, "Content-Range")], exchange: id))
            }
            if let single, let total = cr.completeLength ?? length, let expected = single.resolved(length: total),
                expected != got
            {
                var parts: [String] = []
                if expected.first != got.first { parts.append("starts at \(got.first) instead of \(expected.first)") }
                if expected.last != got.last { parts.append("ends at \(got.last) instead of \(expected.last)") }
                findings.append(
                    Finding(
                        .contentRangeMismatch,
                        "asked \(r.requestRange ?? ""), the server's Content-Range \(parts.joined(separator: " and "))",
                        evidence: [rangeLine ?? "", rawLine(fields, "Content-Range")], exchange: id))
            }
        }
        if status == 416 {
            if contentRange?.range != nil || contentRange?.completeLength == nil {
                findings.append(
                    Finding(
                        .unsatisfiableWithoutLength,
                        "416 without Content-Range: bytes */LENGTH: the client learns nothing about the resource's length (RFC 9110 §15.5.17)",
                        evidence: [fields.first(named: "Content-Range").map { "Content-Range: \($0)" } ?? statusLine],
                        exchange: id))
            }
        }
    }

    private func rawLine(_ lines: [HeaderLine], _ name: String) -> String {
        lines.first { $0.name?.lowercased() == name.lowercased() }?.raw ?? ""
    }
}
