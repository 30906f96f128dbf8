import Foundation
import RangeTapCore

/// A HAR 1.2 file (as Chrome's or Firefox's developer tools export it, or `rangetap export
/// --har`) turned into a capture directory, so it can be inspected, replayed and served.
///
/// A HAR has no chunk times, so each response becomes one chunk holding its whole body
/// (`content.text`, base64 or plain text) at the time the HAR gives for the response's end;
/// the capture header's `tool` says so. Times: the request at its `startedDateTime` (the
/// earliest entry is `t == 0`), the response head after `blocked`, `dns`, `connect` (or
/// `ssl` when `connect` is unknown), `send` and `wait`, the chunk and the end `receive` later.
/// Entries sharing a HAR `connection` share a client connection; HTTP/2 entries (`h2`,
/// `HTTP/2.0`) become HTTP/2 streams with the status line `HTTP/2 206` as rangetap records
/// HTTP/2 responses. An entry without `content.text` gets no chunk: its end event counts 0
/// bytes (the capture has none of its body), while its head keeps the HAR's headers
/// (`Content-Length` included). A `_cancelled` entry (from `rangetap export`), or one Chrome
/// marks `net::ERR_ABORTED`, ends with a cancel event, an `_error` one with an error event; a
/// response of status 0 (the browser got none) is an error event. Browsers store bodies after
/// undoing `Content-Encoding`, so the bytes of a compressed response are the decoded ones.
public enum HARImport {
    /// What an import wrote.
    public struct Summary: Sendable, Equatable {
        /// Exchanges written.
        public var exchanges: Int
        /// Exchanges whose HAR entry had no body text (no chunk was written for them).
        public var withoutBody: Int
        /// Client connections written.
        public var connections: Int
    }

    /// Reads the HAR at `harPath` and writes a capture to `capturePath`, which must not exist
    /// (or be an empty directory). `tool` names the importing program (`rangetap 0.1.0`). On
    /// an error nothing is left at `capturePath`.
    public static func convert(harPath: String, to capturePath: String, tool: String) throws(HARImportError) -> Summary
    {
        let data: Data
        do { data = try Data(contentsOf: URL(fileURLWithPath: harPath)) } catch {
            throw HARImportError("cannot read \(harPath): \((error as NSError).localizedDescription)")
        }
        let entries = try parse(data, name: harPath)
        return try write(entries, to: capturePath, tool: tool)
    }

    // MARK: Reading

    /// One HAR entry, checked.
    struct Entry {
        var index: Int
        var started: Date
        var method: String
        var url: String
        var requestVersion: String
        var requestHeaders: [(name: String, value: String)]
        var status: Int
        var statusText: String
        var responseVersion: String
        var responseHeaders: [(name: String, value: String)]
        var body: Data?
        /// `content.size`: the body's length as the HAR says, known or not with `body`.
        var contentSize: Int64
        var connection: String?
        /// Nanoseconds from the request to the response head, and from the head to the end.
        var headAfter: Int64
        var receive: Int64
        var cancelled: Bool
        var error: String?
    }

    /// The entries of a HAR document, in `startedDateTime` order.
    static func parse(_ data: Data, name: String) throws(HARImportError) -> [Entry] {
        let root: Any
        do { root = try JSONSerialization.jsonObject(with: data) } catch {
            throw .notJSON(name, reason: (error as NSError).localizedDescription)
        }
        let log = try object(try object(root, "the document")["log"], "log")
        guard let list = log["entries"] else { throw .field("log.entries", "is missing") }
        guard let items = list as? [Any] else { throw .field("log.entries", "is not a list") }
        var entries: [Entry] = []
        for (i, item) in items.enumerated() {
            entries.append(try entry(item, index: i))
        }
        return entries.sorted { ($0.started, $0.index) < ($1.started, $1.index) }
    }

    static func entry(_ item: Any, index i: Int) throws(HARImportError) -> Entry {
        let at = "log.entries[\(i)]"
        let e = try object(item, at)
        let request = try object(e["request"], at + ".request")
        let response = try object(e["response"], at + ".response")
        let startedText = try string(e, "startedDateTime", at)
        guard let started = date(startedText) else {
            throw .field(at + ".startedDateTime", "is not an ISO 8601 date: \"\(startedText)\"")
        }
        let method = try string(request, "method", at + ".request")
        guard !method.isEmpty, !method.contains(where: { $0 == " " || $0.isNewline }) else {
            throw .field(at + ".request.method", "is not a method: \"\(method)\"")
        }
        let url = try string(request, "url", at + ".request")
        guard URLParts(url).isAbsolute else { throw .field(at + ".request.url", "is not an absolute URL: \"\(url)\"") }
        let status = try int(response, "status", at + ".response")
        guard (0...999).contains(status) else {
            throw .field(at + ".response.status", "is not an HTTP status: \(status)")
        }

        var body: Data?
        var contentSize: Int64 = 0
        if let contentValue = response["content"] {
            let content = try object(contentValue, at + ".response.content")
            if let n = content["size"] as? NSNumber, n.doubleValue.isFinite, n.doubleValue > 0, n.doubleValue < 1e15 {
                contentSize = n.int64Value
            }
            if let textValue = content["text"], !(textValue is NSNull) {
                guard let text = textValue as? String else {
                    throw .field(at + ".response.content.text", "is not a string")
                }
                let encoding = content["encoding"] as? String
                if encoding?.lowercased() == "base64" {
                    guard let bytes = Data(base64Encoded: text, options: .ignoreUnknownCharacters) else {
                        throw .field(
                            at + ".response.content.text", "is not valid base64 (content.encoding says base64)")
                    }
                    body = bytes
                } else {
                    body = Data(text.utf8)
                }
            }
        }

        // Timings: -1 (or absent) is unknown. ssl is part of connect (HAR 1.2).
        var headAfter: Double = 0
        var receive: Double = 0
        if let timingsValue = e["timings"] {
            let timings = try object(timingsValue, at + ".timings")
            func ms(_ key: String) throws(HARImportError) -> Double {
                guard let v = timings[key], !(v is NSNull) else { return 0 }
                guard let n = v as? NSNumber, n.doubleValue.isFinite else {
                    throw .field(at + ".timings.\(key)", "is not a number")
                }
                return max(0, n.doubleValue)
            }
            let connect = try ms("connect")
            headAfter = try ms("blocked") + ms("dns") + (connect > 0 ? connect : ms("ssl")) + ms("send") + ms("wait")
            receive = try ms("receive")
        } else if let time = (e["time"] as? NSNumber)?.doubleValue, time.isFinite {
            receive = max(0, time)
        }
        let limit = 1e12  // ms: keeps nanoseconds within Int64
        guard headAfter < limit, receive < limit else {
            throw .field(at + ".timings", "holds a time too large to be real")
        }

        var cancelled = e["_cancelled"] is [String: Any]
        var error = e["_error"] as? String
        if error == nil, let responseError = response["_error"] as? String, !responseError.isEmpty {
            // Chrome's net::ERR_ABORTED: the page cancelled the request (a player seeking away).
            if responseError == "net::ERR_ABORTED" && status != 0 { cancelled = true } else { error = responseError }
        }
        return Entry(
            index: i, started: started, method: method, url: url,
            requestVersion: (request["httpVersion"] as? String) ?? "",
            requestHeaders: try headers(request, at + ".request"),
            status: status,
            statusText: (response["statusText"] as? String) ?? "",
            responseVersion: (response["httpVersion"] as? String) ?? "",
            responseHeaders: try headers(response, at + ".response"),
            body: body,
            contentSize: contentSize,
            connection: (e["connection"] as? String).flatMap { $0.isEmpty ? nil : $0 },
            headAfter: Int64((headAfter * 1e6).rounded()),
            receive: Int64((receive * 1e6).rounded()),
            cancelled: cancelled,
            error: error)
    }

    static func object(_ value: Any?, _ at: String) throws(HARImportError) -> [String: Any] {
        guard let value else { throw .field(at, "is missing") }
        guard let o = value as? [String: Any] else { throw .field(at, "is not an object") }
        return o
    }

    static func string(_ o: [String: Any], _ key: String, _ at: String) throws(HARImportError) -> String {
        guard let v = o[key] else { throw .field("\(at).\(key)", "is missing") }
        guard let s = v as? String else { throw .field("\(at).\(key)", "is not a string") }
        return s
    }

    static func int(_ o: [String: Any], _ key: String, _ at: String) throws(HARImportError) -> Int {
        guard let v = o[key] else { throw .field("\(at).\(key)", "is missing") }
        guard let n = v as? NSNumber, n.doubleValue.rounded() == n.doubleValue, abs(n.doubleValue) < 1e15 else {
            throw .field("\(at).\(key)", "is not a whole number")
        }
        return n.intValue
    }

    static func headers(
        _ message: [String: Any], _ at: String
    ) throws(HARImportError) -> [(name: String, value: String)] {
        guard let list = message["headers"] else { return [] }
        guard let items = list as? [Any] else { throw .field(at + ".headers", "is not a list") }
        var out: [(name: String, value: String)] = []
        for (i, item) in items.enumerated() {
            let h = try object(item, "\(at).headers[\(i)]")
            let name = try string(h, "name", "\(at).headers[\(i)]")
            let value = try string(h, "value", "\(at).headers[\(i)]")
            guard !name.isEmpty, !name.contains(where: { $0 == ":" && name.first != ":" || $0.isNewline || $0 == " " })
            else {
                throw .field("\(at).headers[\(i)].name", "is not a header name: \"\(name)\"")
            }
            // A line break would end the line early: values folded onto one line.
            out.append((name, value.split(whereSeparator: \.isNewline).joined(separator: " ")))
        }
        return out
    }

    static func date(_ text: String) -> Date? {
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let d = f.date(from: text) { return d }
        f.formatOptions = [.withInternetDateTime]
        return f.date(from: text)
    }

    // MARK: Writing

    /// Whether a HAR `httpVersion` names HTTP/2 (`h2`, `HTTP/2`, `http/2.0`).
    static func isHTTP2(_ version: String) -> Bool {
        ["h2", "http/2", "http/2.0"].contains(version.lowercased())
    }

    /// The version as a capture writes it on a status or request line: `HTTP/1.0`, `HTTP/1.1`
    /// (also for an empty or unknown one), `HTTP/2`, `HTTP/3`.
    static func lineVersion(_ version: String) -> String {
        switch version.lowercased() {
        case "http/1.0": "HTTP/1.0"
        case "h2", "http/2", "http/2.0": "HTTP/2"
        case "h3", "http/3", "http/3.0": "HTTP/3"
        default: "HTTP/1.1"
        }
    }

    static func write(_ entries: [Entry], to path: String, tool: String) throws(HARImportError) -> Summary {
        let t0 = entries.first?.started ?? Date()
        let micros = Int64((t0.timeIntervalSince1970 * 1e6).rounded())
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let header = CaptureHeader(
            tool: "\(tool) (imported from a HAR: chunk times unknown, one chunk per response at its end)",
            startedAt: f.string(from: t0), startedAtMicros: micros,
            bodies: true, redacted: false, listen: "none (imported from a HAR)", upstream: nil)

        // Every event with its time; sorted by time (stable) before writing.
        enum Item {
            case event(CaptureEvent)
            case chunk(ChunkEvent, [UInt8])
        }
        var items: [(t: CaptureTime, item: Item)] = []
        var connections: [String: (id: Int, nextStream: Int)] = [:]
        var connectionCount = 0
        var withoutBody = 0
        for (n, e) in entries.enumerated() {
            let exchange = n + 1
            let seconds = e.started.timeIntervalSince(t0)
            guard seconds < 1e8 else {
                throw .field(
                    "log.entries[\(e.index)].startedDateTime", "is more than three years after the first entry's")
            }
            // Rounded to the µs: HAR dates have ms, and Date's double carries less than ns.
            let start = Int64((seconds * 1e6).rounded()) * 1000
            let h2 = isHTTP2(e.requestVersion) || (e.requestVersion.isEmpty && isHTTP2(e.responseVersion))
            let connection: Int
            let stream: Int?
            if let key = e.connection, let known = connections[key] {
                connection = known.id
                stream = h2 ? known.nextStream : nil
                connections[key]!.nextStream += 2
            } else {
                connectionCount += 1
                connection = connectionCount
                stream = h2 ? 1 : nil
                if let key = e.connection { connections[key] = (connection, 3) }
                items.append(
                    (
                        start,
                        .event(
                            .connectionOpen(
                                ConnectionOpenEvent(
                                    t: start, connection: connection, peer: "unknown (imported from a HAR)",
                                    sendBuffer: nil)))
                    ))
            }

            var requestLines: [HeaderLine] = []
            if h2 { requestLines += e.requestHeaders.filter { $0.name.hasPrefix(":") }.map(line) }
            requestLines += e.requestHeaders.filter { !$0.name.hasPrefix(":") }.map(line)
            // HTTP/2 requests carry their path (and query) as the target, as rangetap records them.
            let target = h2 ? String(URLParts(e.url).rest.prefix { $0 != "#" }) : e.url
            items.append(
                (
                    start,
                    .event(
                        .request(
                            RequestEvent(
                                t: start, exchange: exchange, connection: connection, method: e.method,
                                target: target.isEmpty ? "/" : target,
                                version: h2 ? "HTTP/2" : lineVersion(e.requestVersion),
                                url: e.url, headers: requestLines, stream: stream)))
                ))

            let headAt = start + e.headAfter
            let endAt = headAt + e.receive
            if e.status == 0 {
                let why = e.error.map { ": \($0)" } ?? ""
                items.append(
                    (
                        endAt,
                        .event(
                            .error(
                                ErrorEvent(
                                    t: endAt, exchange: exchange, connection: connection, kind: .upstream,
                                    message: "the HAR records no response (status 0)\(why)")))
                    ))
                continue
            }
            let responseH2 = isHTTP2(e.responseVersion) || (e.responseVersion.isEmpty && h2)
            let statusLine =
                responseH2
                ? "HTTP/2 \(e.status)\r\n"
                : "\(lineVersion(e.responseVersion)) \(e.status)\(e.statusText.isEmpty ? "" : " " + e.statusText.split(whereSeparator: \.isNewline).joined(separator: " "))\r\n"
            let responseLines =
                [HeaderLine(raw: statusLine)] + e.responseHeaders.filter { !$0.name.hasPrefix(":") }.map(line) + [
                    HeaderLine(raw: "\r\n")
                ]
            items.append(
                (
                    headAt,
                    .event(
                        .response(
                            ResponseEvent(
                                t: headAt, exchange: exchange, status: e.status, lines: responseLines, reused: nil,
                                upstreamPort: nil)))
                ))

            let size = Int64(e.body?.count ?? 0)
            if let body = e.body, !body.isEmpty {
                var resourceOffset: Int64?
                if e.status == 206, let cr = responseLines.first(named: "Content-Range"),
                    let parsed = try? ContentRange.parse(cr)
                {
                    resourceOffset = parsed.range?.first
                } else if e.status == 200 {
                    resourceOffset = 0
                }
                items.append(
                    (
                        endAt,
                        .chunk(
                            ChunkEvent(
                                t: endAt, exchange: exchange, size: body.count, offset: 0,
                                resourceOffset: resourceOffset, bodyOffset: nil), [UInt8](body))
                    ))
            } else if e.body == nil, e.contentSize > 0 {
                withoutBody += 1
            }
            if e.cancelled {
                items.append(
                    (
                        endAt,
                        .event(
                            .cancel(
                                CancelEvent(
                                    t: endAt, exchange: exchange, delivered: size, received: size, sendBuffer: nil,
                                    sha256: "")))
                    ))
            } else if let error = e.error {
                items.append(
                    (
                        endAt,
                        .event(
                            .error(
                                ErrorEvent(
                                    t: endAt, exchange: exchange, connection: connection, kind: .upstream,
                                    message: error, received: size)))
                    ))
            } else {
                items.append((endAt, .event(.end(EndEvent(t: endAt, exchange: exchange, bytes: size, sha256: "")))))
            }
        }

        let order = items.indices.sorted { (items[$0].t, $0) < (items[$1].t, $1) }
        let existed = FileManager.default.fileExists(atPath: path)
        let writer: CaptureWriter
        do {
            writer = try CaptureWriter(path: path, header: header, clock: MonotonicClock())
        } catch {
            throw .cannotWrite(error.description)
        }
        for i in order {
            switch items[i].item {
            case .event(let event): writer.record(event)
            case .chunk(let chunk, let bytes): writer.recordChunk(chunk, bytes: bytes)
            }
        }
        writer.close()
        if let failure = writer.writeError {
            let files = FileManager.default
            if existed {
                for name in (try? files.contentsOfDirectory(atPath: path)) ?? [] {
                    try? files.removeItem(atPath: path + "/" + name)
                }
            } else {
                try? files.removeItem(atPath: path)
            }
            throw .cannotWrite(failure.description)
        }
        return Summary(exchanges: entries.count, withoutBody: withoutBody, connections: connectionCount)
    }

    static func line(_ h: (name: String, value: String)) -> HeaderLine {
        HeaderLine(raw: "\(h.name): \(h.value)\r\n")
    }
}
