import Foundation
import RangeTapCore

/// A capture as a HAR 1.2 file (the format browser developer tools import and export).
///
/// One entry per exchange, in request order. Times come from the proxy's clock: `wait` is
/// request → response head, `receive` head → end (or cancel, or failure); `blocked`, `dns`,
/// `connect` and `ssl` are -1 (the proxy does not see them for the client). Headers are the
/// recorded lines (Latin-1 text, secrets as recorded). rangetap's own fields start with `_`:
/// `_rangetapExchange`, `_connection` (client connection id), `_chunks` (`t` in ms after the
/// request, `size`, `offset` in the body, `resourceOffset`), `_chunkCount`, `_cancelled`
/// (`delivered`, `received`), `_error`, `_findings` (codes), `_upstreamReused`, `_upstreamPort`,
/// `_stream` (the HTTP/2 stream id), `_rangetapFaults` (what `--fault` rules changed: `rule`,
/// `action`, `detail`, `t` in ms after the request; only on exchanges a fault was injected into).
///
/// Response bodies: with `bodies` (``HARBody/read(_:from:maxBytes:)``, for a capture recorded
/// with bodies) `content.text` holds the bytes the client got, base64 (`content.encoding` is
/// `base64`); a body left out (over the size limit) has no `text` and a `content.comment`
/// saying why. `bodySize` is the bytes the client got: for a cancelled exchange the bytes
/// delivered before the cancel (`_cancelled.received` is what the proxy had from the origin);
/// `content.size` is the same: the size of what `content.text` holds.
///
/// Where a fault rewrote the response head (header-case, drop-header, off-by-one), the
/// response's status and headers are the head the client got, not the origin's.
///
/// `httpVersion` is `h2` for a message that went over HTTP/2, as Chrome's HAR export writes it
/// (the request's on the client side, the response's as the origin sent it), and then
/// `headersSize` is -1: HPACK-compressed heads have no text size. HTTP/1.x versions are
/// written as recorded (`HTTP/1.1`).
public enum HARExport {
    /// The HAR of `analysis` as UTF-8 JSON with sorted keys. `creatorVersion` is the exporting
    /// rangetap's version; by default the version in the capture's `tool`. `title` names the page.
    /// `bodies` (by exchange id) fills `content.text`; without it the HAR has no bodies.
    public static func render(
        _ analysis: CaptureAnalysis, creatorVersion: String? = nil, title: String? = nil, bodies: [Int: HARBody] = [:]
    ) -> Data {
        let document = self.document(analysis, creatorVersion: creatorVersion, title: title, bodies: bodies)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        do {
            return try encoder.encode(document)
        } catch {
            // Only non-finite numbers make JSONEncoder fail, and every number here comes from integers.
            preconditionFailure("HAR encoding failed: \(error)")
        }
    }

    /// Renders the HAR of `analysis` and writes it to `path` (replacing it atomically).
    public static func write(
        analysis: CaptureAnalysis, to path: String, creatorVersion: String? = nil, title: String? = nil,
        bodies: [Int: HARBody] = [:]
    ) throws {
        try ReportFile.write(render(analysis, creatorVersion: creatorVersion, title: title, bodies: bodies), to: path)
    }

    // MARK: Building

    static func document(
        _ analysis: CaptureAnalysis, creatorVersion: String?, title: String?, bodies: [Int: HARBody] = [:]
    ) -> HARDocument {
        let header = analysis.header
        let clock = WallClock(startedAt: header.startedAt, startedAtMicros: header.startedAtMicros)
        let version =
            creatorVersion
            ?? (header.tool.hasPrefix("rangetap ") ? String(header.tool.dropFirst("rangetap ".count)) : "unknown")
        let page = HARDocument.Page(
            startedDateTime: clock.iso8601(analysis.exchanges.first?.record.start ?? 0),
            id: "rangetap",
            title: title ?? "rangetap capture of \(header.startedAt)",
            pageTimings: .init())
        let entries = analysis.exchanges.map {
            entry($0, clock: clock, listen: header.listen, body: bodies[$0.record.id])
        }
        var comment = "Recorded by \(header.tool) listening on \(header.listen)"
        if let upstream = header.upstream {
            comment += " for \(URLRedaction.redactingUserinfo(upstream, if: header.redacted))"
        }
        comment += ". Times are the proxy's: blocked, dns, connect and ssl are unknown (-1)."
        if header.redacted { comment += " Secret header values are redacted." }
        return HARDocument(
            log: .init(
                creator: .init(name: "rangetap", version: version), pages: [page], entries: entries, comment: comment))
    }

    static func entry(
        _ e: CaptureAnalysis.Exchange, clock: WallClock, listen: String, body: HARBody? = nil
    ) -> HARDocument.Entry {
        let r = e.record
        let url = absoluteURL(r, listen: listen)

        // Timings, in ms, rounded to µs so their sum is exact.
        let last = r.end ?? r.lastChunkAt ?? r.responseAt ?? r.start
        let wait = ms((r.responseAt ?? last) - r.start)
        let receive = r.responseAt.map { ms(max(0, last - $0)) } ?? 0
        let timings = HARDocument.Timings(send: 0, wait: wait, receive: receive)

        let requestHead = "\(r.method) \(r.target) \(r.requestVersion)\r\n"
        let request = HARDocument.Request(
            method: r.method,
            url: url,
            httpVersion: r.isHTTP2Client ? http2Version : r.requestVersion,
            headers: fields(r.requestHeaders, pseudoHeaders: r.isHTTP2Client),
            queryString: queryString(url),
            headersSize: r.isHTTP2Client
                ? -1
                : requestHead.unicodeScalars.count + r.requestHeaders.reduce(0) { $0 + $1.raw.unicodeScalars.count }
                    + 2,
            bodySize: r.requestHeaders.first(named: "Content-Length").flatMap(ContentLength.parse) ?? 0)

        // The head the client got: the origin's unless a fault rewrote it.
        let head = r.clientResponseLines
        let status = r.clientStatus
        let statusLine = head.first.map { String($0.content) } ?? ""
        let statusParts = statusLine.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
        let overHTTP2 = r.clientHeadRewritten ? r.isHTTP2Client : r.isHTTP2Upstream
        // A fault's head has no blank line; the wire had one.
        let blank = r.clientHeadRewritten && head.last?.isBlank != true ? 2 : 0
        var content = HARDocument.Content(
            size: HARBody.clientBodySize(r), mimeType: head.first(named: "Content-Type") ?? "x-unknown")
        switch body {
        case .bytes(let data)?:
            content.text = data.base64EncodedString()
            content.encoding = "base64"
        case .leftOut(let why)?:
            content.comment = why
        case nil:
            break
        }
        let response = HARDocument.Response(
            status: status ?? 0,
            statusText: statusParts.count > 2 ? String(statusParts[2]) : "",
            httpVersion: overHTTP2 ? http2Version : statusParts.first.map(String.init) ?? "",
            headers: fields(head),
            content: content,
            redirectURL: (300..<400).contains(status ?? 0) ? (head.first(named: "Location") ?? "") : "",
            headersSize: head.isEmpty || overHTTP2 ? -1 : head.reduce(blank) { $0 + $1.raw.unicodeScalars.count },
            bodySize: HARBody.clientBodySize(r),
            interimStatuses: r.interimStatuses.isEmpty ? nil : r.interimStatuses)

        var cancelled: HARDocument.Cancelled?
        var error: String?
        switch r.outcome {
        case .cancelled:
            cancelled = .init(delivered: r.bytesDelivered ?? 0, received: r.bytesReceived, sendBuffer: r.sendBuffer)
        case .failed(let message): error = message
        case .complete, .open: break
        }
        let chunks: [HARDocument.Chunk]? =
            r.chunks.isEmpty && r.chunkCount > 0
            ? nil
            : r.chunks.map {
                HARDocument.Chunk(
                    t: ms($0.t - r.start), size: $0.size, offset: $0.offset, resourceOffset: $0.resourceOffset)
            }
        return HARDocument.Entry(
            pageref: "rangetap",
            startedDateTime: clock.iso8601(r.start),
            time: ((wait + receive) * 1000).rounded() / 1000,
            request: request,
            response: response,
            timings: timings,
            connection: String(r.connection),
            comment: r.outcome == .open ? "still open when the capture ended" : nil,
            rangetapExchange: r.id,
            clientConnection: r.connection,
            stream: r.stream,
            upstreamReused: r.upstreamReused,
            upstreamPort: r.upstreamPort,
            chunks: chunks,
            chunkCount: r.chunkCount,
            cancelled: cancelled,
            error: error,
            findings: e.findings.map(\.code),
            faults: r.faults.isEmpty
                ? nil
                : r.faults.map {
                    HARDocument.Fault(rule: $0.rule, action: $0.action, detail: $0.detail, t: ms($0.t - r.start))
                },
            cmcd: e.cmcd)
    }

    /// `httpVersion` of an HTTP/2 message, as Chrome's HAR export writes it.
    static let http2Version = "h2"

    /// Nanoseconds as milliseconds, rounded to the microsecond.
    static func ms(_ ns: Int64) -> Double { (Double(ns) / 1e3).rounded() / 1e3 }

    /// The field lines as name/value pairs (status line, blank line and garbage left out). With
    /// `pseudoHeaders`, HTTP/2 pseudo-header lines are pairs too (`:path`, as Chrome writes them).
    static func fields(_ lines: [HeaderLine], pseudoHeaders: Bool = false) -> [HARDocument.NameValue] {
        lines.compactMap { line in
            if pseudoHeaders, let pseudo = line.pseudoHeader {
                return .init(name: String(pseudo.name), value: String(pseudo.value))
            }
            guard let name = line.name, let value = line.value else { return nil }
            return .init(name: String(name), value: String(value))
        }
    }

    /// The URL fetched, or the best absolute form of the target when none was (a refused request).
    static func absoluteURL(_ r: ExchangeRecord, listen: String) -> String {
        if let url = r.url { return url }
        if r.method == "CONNECT" { return "https://\(r.target)/" }
        if URLParts(r.target).isAbsolute { return r.target }
        let authority = r.requestHeaders.lazy.compactMap(\.pseudoHeader).first { $0.name == ":authority" }.map {
            String($0.value)
        }
        let host = r.requestHeaders.first(named: "Host") ?? authority ?? listen
        return "http://\(host)\(r.target.hasPrefix("/") ? "" : "/")\(r.target)"
    }

    /// The query parameters of `url`, percent-decoded where valid.
    static func queryString(_ url: String) -> [HARDocument.NameValue] {
        guard let q = url.firstIndex(of: "?") else { return [] }
        var query = url[url.index(after: q)...]
        if let hash = query.firstIndex(of: "#") { query = query[..<hash] }
        return query.split(separator: "&", omittingEmptySubsequences: true).map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = String(parts[0])
            let value = parts.count > 1 ? String(parts[1]) : ""
            return .init(name: name.removingPercentEncoding ?? name, value: value.removingPercentEncoding ?? value)
        }
    }
}
