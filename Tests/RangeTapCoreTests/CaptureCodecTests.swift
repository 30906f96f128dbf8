import Foundation
import RangeTapCore
import Testing

/// Decodes one JSON line given as text.
private func decode(_ text: String, line: Int = 1) throws(CaptureError) -> CaptureEvent? {
    try CaptureEvent.decode(jsonLine: Data(text.utf8), lineNumber: line)
}

/// The error decoding `text` throws, or nil.
private func decodeError(_ text: String, line: Int) -> CaptureError? {
    do {
        _ = try decode(text, line: line)
        return nil
    } catch {
        return error
    }
}

/// Every byte value 0...255 in one header line (Latin-1 mapped), with a bare LF terminator.
private let everyByteLine: HeaderLine = {
    let bytes = Array("X-All: ".utf8) + (0...255).map { UInt8($0) }.filter { $0 != 0x0A } + [0x0A]
    return HeaderLine(raw: Latin1.string(bytes))
}()

/// Header lines that stress escaping: quotes, backslashes, control bytes, high bytes, bare LF.
private let awkwardLines: [HeaderLine] = [
    HeaderLine(raw: "HTTP/1.1 206 Partial Content\r\n"),
    HeaderLine(raw: "X-Quote: say \"hi\"\n"),
    HeaderLine(raw: "X-Backslash: C:\\path\\to\\\r\n"),
    HeaderLine(
        raw: Latin1.string(
            Array("X-Ctl: ".utf8) + [0x00, 0x01, 0x08, 0x09, 0x0B, 0x0C, 0x1B, 0x1F, 0x7F] + [0x0D, 0x0A])),
    HeaderLine(raw: Latin1.string(Array("X-High: ".utf8) + [0x80, 0x9F, 0xA0, 0xE9, 0xFE, 0xFF] + [0x0A])),
    HeaderLine(raw: "X-Lone-CR: a\rb\r\n"),
    everyByteLine,
    HeaderLine(raw: "\n"),
]

/// One instance of every event case, with optional fields both present and absent.
private let sampleEvents: [CaptureEvent] = [
    .header(
        CaptureHeader(
            tool: "rangetap 0.1.0", startedAt: "2026-11-22T18:16:44.846Z", bodies: true, redacted: true,
            listen: "127.0.0.1:8080", upstream: nil)),
    .header(
        CaptureHeader(
            version: 1, tool: "rangetap \"dev\"", startedAt: "2026-11-22T18:16:44.846Z", bodies: false, redacted: false,
            listen: "[::1]:0", upstream: "https://cdn.example.com/base")),
    .connectionOpen(ConnectionOpenEvent(t: 993_162_917, connection: 1, peer: "127.0.0.1:34156", sendBuffer: 3_939_840)),
    .connectionOpen(ConnectionOpenEvent(t: 0, connection: 2, peer: "[::1]:1", sendBuffer: nil)),
    .connectionClose(ConnectionCloseEvent(t: 1_502_000_000, connection: 1, by: .client, requests: 3)),
    .request(
        RequestEvent(
            t: 993_560_176, exchange: 1, connection: 1, method: "GET", target: "http://127.0.0.1:8081/a b\"c\\d.mp4",
            version: "HTTP/1.1", url: "http://127.0.0.1:8081/a.mp4", headers: awkwardLines)),
    .request(
        RequestEvent(
            t: 5, exchange: 2, connection: 1, method: "OPTIONS", target: "*", version: "HTTP/1.0", url: nil, headers: []
        )),
    .interim(
        ResponseEvent(
            t: 997_000_000, exchange: 1, status: 103,
            lines: [
                HeaderLine(raw: "HTTP/1.1 103 Early Hints\r\n"), HeaderLine(raw: "Link: </a.css>; rel=preload\r\n"),
                HeaderLine(raw: "\r\n"),
            ], reused: nil, upstreamPort: nil)),
    .response(
        ResponseEvent(t: 997_945_236, exchange: 1, status: 206, lines: awkwardLines, reused: false, upstreamPort: 42250)
    ),
    .response(ResponseEvent(t: 997_945_237, exchange: 2, status: 200, lines: [], reused: true, upstreamPort: nil)),
    .chunk(ChunkEvent(t: 998_467_250, exchange: 1, size: 16384, offset: 0, resourceOffset: 0, bodyOffset: 0)),
    .chunk(ChunkEvent(t: 998_467_251, exchange: 1, size: 1, offset: 16384, resourceOffset: nil, bodyOffset: nil)),
    // The largest numbers a reader accepts: `off + size` and `at + size` reach Int64.max, not past it.
    .chunk(
        ChunkEvent(
            t: Int64.max, exchange: Int.max, size: 7, offset: Int64.max - 7, resourceOffset: Int64.max - 1,
            bodyOffset: Int64.max - 7)),
    .end(
        EndEvent(
            t: 1_021_000_000, exchange: 1, bytes: 5_000_000, sha256: String(repeating: "ab", count: 32),
            trailers: [HeaderLine(raw: "X-Checksum: \"abc\"\\\n")])),
    .end(EndEvent(t: 1_021_000_001, exchange: 2, bytes: 0, sha256: "")),
    .cancel(
        CancelEvent(
            t: 1_002_412_429, exchange: 1, delivered: 486_912, received: 1_060_352, sendBuffer: 131_072, sha256: "7bd4")
    ),
    .cancel(CancelEvent(t: 1, exchange: 3, delivered: 0, received: 0, sendBuffer: nil, sha256: "")),
    .error(
        ErrorEvent(
            t: 5000, exchange: 4, connection: 2, kind: .upstream,
            message: "upstream failed: \"x\"\n\t\\ caf\u{E9} \u{1F3A5}", curlCode: 7, received: 10, sha256: "e3b0",
            status: 502)),
    .error(ErrorEvent(t: 6000, exchange: nil, connection: nil, kind: .badRequest, message: "malformed")),
    .tunnel(
        TunnelEvent(
            t: 2_000_000_000, opened: 1_000_000_000, exchange: 7, connection: 3, authority: "example.com:443", up: 517,
            down: 4821)),
    .fault(
        FaultEvent(
            t: 3_000, exchange: 8, rule: "path=*.ts,nth=2,status=503", action: "status",
            detail: "answered 503 without asking the origin")),
    .fault(
        FaultEvent(
            t: 3_001, exchange: 9, rule: "header-case=lower", action: "header-case", detail: "respelled 5 names",
            lines: awkwardLines)),
    .shape(ShapeEvent(t: 10, spec: "rate=2mbit,latency=80ms,scope=link")),
    .shape(ShapeEvent(t: 11, spec: "scope=link", trace: "tools/traces/cell.trace")),
    .delivered(DeliveredEvent(t: 4_000, exchange: 8, bytes: 1_234_567)),
]

@Suite("Capture event JSON codec")
struct CaptureCodecTests {
    @Test(arguments: sampleEvents)
    func everyEventRoundTrips(event: CaptureEvent) throws {
        let line = event.jsonLine()
        // Exactly one line: the only LF byte is the last one, and the line is valid UTF-8 JSON.
        #expect(line.last == 0x0A)
        #expect(line.dropLast().contains(0x0A) == false)
        #expect(line.dropLast().contains(0x0D) == false)
        #expect(String(validating: line, as: UTF8.self) != nil)
        let object = try JSONSerialization.jsonObject(with: Data(line.dropLast())) as? [String: Any]
        #expect(object?["type"] as? String == event.type)
        let decoded = try CaptureEvent.decode(jsonLine: Data(line), lineNumber: 3)
        #expect(decoded == event)
    }

    @Test func headerLinesSurviveByteForByte() throws {
        let event = CaptureEvent.response(
            ResponseEvent(t: 1, exchange: 1, status: 200, lines: awkwardLines, reused: nil, upstreamPort: nil))
        guard case .response(let r)? = try CaptureEvent.decode(jsonLine: Data(event.jsonLine()), lineNumber: 2) else {
            Issue.record("not a response")
            return
        }
        #expect(r.lines.map { Latin1.bytes($0.raw) } == awkwardLines.map { Latin1.bytes($0.raw) })
        let all = try #require(r.lines.first { $0.name == "X-All" })
        #expect(Latin1.bytes(all.raw).count == "X-All: ".utf8.count + 255 + 1)
        #expect(all.terminator == "\n")
    }

    @Test func eventTypeStrings() {
        #expect(
            sampleEvents.map(\.type) == [
                "capture", "capture", "conn.open", "conn.open", "conn.close", "request", "request", "interim",
                "response", "response", "chunk", "chunk", "chunk", "end", "end", "cancel", "cancel", "error", "error",
                "tunnel",
                "fault", "fault", "shape", "shape", "delivered",
            ])
        #expect(
            sampleEvents.map(\.exchange) == [
                nil, nil, nil, nil, nil, 1, 2, 1, 1, 2, 1, 1, Int.max, 1, 2, 1, 3, 4, nil, 7, 8, 9, nil, nil, 8,
            ])
    }

    @Test func chunkLineMatchesTheDocumentedForm() {
        let line = CaptureEvent.chunk(
            ChunkEvent(t: 998_467_250, exchange: 1, size: 16384, offset: 0, resourceOffset: 0, bodyOffset: 0)
        ).jsonLine()
        #expect(
            String(decoding: line, as: UTF8.self)
                == "{\"type\":\"chunk\",\"t\":998467250,\"ex\":1,\"size\":16384,\"off\":0,\"res\":0,\"at\":0}\n")
    }

    @Test func absentOptionalsAreOmittedNotNull() {
        let text = String(
            decoding: CaptureEvent.chunk(
                ChunkEvent(t: 1, exchange: 1, size: 1, offset: 0, resourceOffset: nil, bodyOffset: nil)
            ).jsonLine(), as: UTF8.self)
        #expect(text == "{\"type\":\"chunk\",\"t\":1,\"ex\":1,\"size\":1,\"off\":0}\n")
        #expect(!text.contains("null"))
        let end = String(
            decoding: CaptureEvent.end(EndEvent(t: 1, exchange: 1, bytes: 0, sha256: "")).jsonLine(), as: UTF8.self)
        #expect(!end.contains("trailers"))
    }

    @Test func controlBytesAreEscaped() {
        let line = CaptureEvent.request(
            RequestEvent(
                t: 0, exchange: 1, connection: 1, method: "GET", target: "/", version: "HTTP/1.1", url: nil,
                headers: [HeaderLine(raw: Latin1.string([0x41, 0x00, 0x1F, 0x7F, 0x22, 0x5C, 0x09, 0x0D, 0x0A]))])
        ).jsonLine()
        let text = String(decoding: line, as: UTF8.self)
        #expect(text.contains(#""headers":["A\u0000\u001f\u007f\"\\\t\r\n"]"#))
    }

    @Test func unknownTypeDecodesToNil() throws {
        #expect(try decode(#"{"type":"future.event","t":1,"ex":2,"whatever":[1,2,3]}"#) == nil)
        #expect(try decode(#"{"type":"future.event"}"#) == nil)
    }

    @Test func unknownKeysAreIgnored() throws {
        let event = try decode(#"{"type":"conn.close","t":9,"conn":4,"by":"proxy","requests":0,"newKey":{"a":1}}"#)
        #expect(event == .connectionClose(ConnectionCloseEvent(t: 9, connection: 4, by: .proxy, requests: 0)))
    }

    @Test func unknownTypeWhoseKeysHaveOtherTypesDecodesToNil() throws {
        // The format promises readers skip unknown event types; a future type may use a key name
        // (here "status", "t") with a different JSON type than today's events do.
        #expect(try decode(#"{"type":"future.event","status":"ok","t":"soon"}"#, line: 9) == nil)
    }

    @Test func missingRequiredKeyNamesLineAndKey() throws {
        let e = try #require(decodeError(#"{"type":"chunk","t":1,"size":2,"off":0}"#, line: 7))
        #expect(e == .malformedEvent(line: 7, reason: "field \"ex\" is missing"))
        #expect(e.description.contains("line 7"))
        #expect(e.description.contains("\"ex\""))
        #expect(e.description.contains("missing"))

        let h = try #require(
            decodeError(
                #"{"type":"capture","version":1,"tool":"x","startedAt":"y","bodies":true,"listen":"z"}"#, line: 1))
        #expect(h.description.contains("line 1"))
        #expect(h.description.contains("\"redacted\""))

        let r = try #require(
            decodeError(#"{"type":"request","t":1,"ex":1,"conn":1,"method":"GET","target":"/","headers":[]}"#, line: 12)
        )
        #expect(r.description.contains("line 12"))
        #expect(r.description.contains("\"version\""))
    }

    @Test func wrongTypeNamesLineAndKey() throws {
        let e = try #require(decodeError(#"{"type":"chunk","t":"one","ex":1,"size":2,"off":0}"#, line: 4))
        #expect(e.description.contains("line 4"))
        #expect(e.description.contains("\"t\""))
        #expect(e.description.contains("must be a whole number, found \"one\""))
    }

    @Test(arguments: ["not json", "[1,2]", "{\"t\":1}", "", "{\"type\":\"chunk\""])
    func garbageIsMalformed(text: String) throws {
        let e = try #require(decodeError(text, line: 5))
        #expect(e.description.contains("events.jsonl line 5 is not a valid event"))
    }
}
