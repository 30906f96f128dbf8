import Foundation
import RangeTapCore
import RangeTapTestSupport
import Synchronization
import Testing

/// Collects the events a writer's observer sees.
final class EventSink: Sendable {
    let events = Mutex<[CaptureEvent]>([])
}

/// SHA-256 of a file, lowercase hex, computed by coreutils (independent of the writer's hashing).
func sha256sum(file: String) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/sha256sum")
    process.arguments = [file]
    let pipe = Pipe()
    process.standardOutput = pipe
    try process.run()
    let output = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    try #require(process.terminationStatus == 0)
    let hex = String(decoding: output.prefix(64), as: UTF8.self)
    try #require(hex.count == 64)
    return hex
}

/// SHA-256 of `bytes`, via a temporary file and `sha256sum`.
func sha256sum(_ bytes: [UInt8], in dir: TemporaryDirectory) throws -> String {
    let file = dir.path + "/hash-input-" + UUID().uuidString
    try Data(bytes).write(to: URL(fileURLWithPath: file))
    defer { try? FileManager.default.removeItem(atPath: file) }
    return try sha256sum(file: file)
}

/// Deterministic, non-repeating-looking bytes.
func patternBytes(count: Int, seed: UInt8) -> [UInt8] {
    (0..<count).map { i in UInt8(truncatingIfNeeded: i &* 31 &+ Int(seed) &+ (i >> 8)) }
}

private let emptySHA256 = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"

private func header(bodies: Bool = true, version: Int = CaptureHeader.currentVersion) -> CaptureHeader {
    CaptureHeader(
        version: version, tool: "rangetap test", startedAt: "2026-01-02T03:04:05.678Z", bodies: bodies, redacted: true,
        listen: "127.0.0.1:8080", upstream: nil)
}

private func responseLines(_ status: String, _ fields: [String]) -> [HeaderLine] {
    [HeaderLine(raw: "HTTP/1.1 \(status)\r\n")] + fields.map { HeaderLine(raw: $0 + "\r\n") } + [
        HeaderLine(raw: "\r\n")
    ]
}

/// The error a throwing closure throws, as a CaptureError (nil if none or another type).
private func captureError(_ body: () throws -> Void) -> CaptureError? {
    do {
        try body()
        return nil
    } catch let e as CaptureError {
        return e
    } catch {
        Issue.record("unexpected error type: \(error)")
        return nil
    }
}

/// Two exchanges with interleaved chunks: #1 ends normally, #2 is cancelled, #3 fails without a body.
private struct Scenario {
    let ex1Chunks: [[UInt8]] = [
        patternBytes(count: 10, seed: 1), patternBytes(count: 4096, seed: 2), patternBytes(count: 1, seed: 3),
    ]
    let ex2Chunks: [[UInt8]] = [patternBytes(count: 300, seed: 4), patternBytes(count: 16384, seed: 5)]

    /// Records the scenario; returns the chunk events in recording order with the bytes each carried.
    func record(into writer: CaptureWriter) -> [(ChunkEvent, [UInt8])] {
        var recorded: [(ChunkEvent, [UInt8])] = []
        writer.record(
            .connectionOpen(ConnectionOpenEvent(t: 10, connection: 1, peer: "127.0.0.1:5000", sendBuffer: 2_626_560)))
        writer.record(
            .request(
                RequestEvent(
                    t: 20, exchange: 1, connection: 1, method: "GET", target: "http://127.0.0.1:8081/a.mp4",
                    version: "HTTP/1.1", url: "http://127.0.0.1:8081/a.mp4",
                    headers: [HeaderLine(raw: "Host: 127.0.0.1:8081\r\n"), HeaderLine(raw: "Range: bytes=100-\r\n")])))
        writer.record(
            .request(
                RequestEvent(
                    t: 30, exchange: 2, connection: 1, method: "GET", target: "http://127.0.0.1:8081/b.mp4",
                    version: "HTTP/1.1", url: "http://127.0.0.1:8081/b.mp4", headers: [])))
        writer.record(
            .response(
                ResponseEvent(
                    t: 40, exchange: 1, status: 206,
                    lines: responseLines(
                        "206 Partial Content", ["content-range: bytes 100-4206/10000", "Content-Length: 4107"]),
                    reused: false, upstreamPort: 40000)))
        writer.record(
            .response(
                ResponseEvent(
                    t: 50, exchange: 2, status: 200, lines: responseLines("200 OK", ["Content-Length: 100000"]),
                    reused: true, upstreamPort: 40000)))
        var off1: Int64 = 0, off2: Int64 = 0
        var t: Int64 = 60
        func chunk(_ ex: Int, _ bytes: [UInt8], offset: inout Int64, base: Int64, bogusAt: Int64? = nil) {
            let c = ChunkEvent(
                t: t, exchange: ex, size: bytes.count, offset: offset, resourceOffset: base + offset,
                bodyOffset: bogusAt)
            writer.recordChunk(c, bytes: bytes)
            recorded.append((c, bytes))
            offset += Int64(bytes.count)
            t += 10
        }
        // A producer-supplied bodyOffset must be replaced by the writer's.
        chunk(1, ex1Chunks[0], offset: &off1, base: 100, bogusAt: 999_999)
        chunk(2, ex2Chunks[0], offset: &off2, base: 0)
        chunk(1, ex1Chunks[1], offset: &off1, base: 100)
        chunk(2, ex2Chunks[1], offset: &off2, base: 0)
        chunk(1, ex1Chunks[2], offset: &off1, base: 100)
        writer.record(.end(EndEvent(t: 200, exchange: 1, bytes: off1, sha256: "")))
        writer.record(
            .cancel(CancelEvent(t: 210, exchange: 2, delivered: 300, received: off2, sendBuffer: 131_072, sha256: "")))
        writer.record(
            .request(
                RequestEvent(
                    t: 220, exchange: 3, connection: 1, method: "GET", target: "http://127.0.0.1:9/x",
                    version: "HTTP/1.1", url: "http://127.0.0.1:9/x", headers: [])))
        writer.record(
            .error(
                ErrorEvent(
                    t: 230, exchange: 3, connection: 1, kind: .upstream,
                    message: "upstream failed: refused (curl error 7)", curlCode: 7, received: 0, sha256: nil,
                    status: 502)))
        writer.record(.connectionClose(ConnectionCloseEvent(t: 240, connection: 1, by: .client, requests: 3)))
        return recorded
    }
}

@Suite("CaptureWriter and CaptureReader")
struct CaptureWriterReaderTests {
    @Test(.timeLimit(.minutes(1)))
    func writesAndReadsBackTwoInterleavedExchanges() throws {
        let tmp = try TemporaryDirectory()
        let path = tmp.path + "/nested/a.rtap"
        let observed = EventSink()
        let writer = try CaptureWriter(path: path, header: header(), clock: MonotonicClock()) { batch in
            observed.events.withLock { $0.append(contentsOf: batch) }
        }
        let scenario = Scenario()
        let recorded = scenario.record(into: writer)
        writer.close()
        writer.close()  // idempotent
        #expect(writer.writeError == nil)

        let reader = try CaptureReader(path: path)
        #expect(reader.header == header())
        let events = try reader.events()
        #expect(!reader.truncatedTail)
        #expect(
            events.map(\.type) == [
                "conn.open", "request", "request", "response", "response",
                "chunk", "chunk", "chunk", "chunk", "chunk", "end", "cancel", "request", "error", "conn.close",
            ])
        // The observer saw the same events, after hashing.
        #expect(observed.events.withLock { $0 } == events)

        // Chunks: in recording order, bodyOffset = running total of body.bin, bytes read back exactly.
        let chunks = events.compactMap { e -> ChunkEvent? in if case .chunk(let c) = e { c } else { nil } }
        try #require(chunks.count == recorded.count)
        var at: Int64 = 0
        for (chunk, (sent, bytes)) in zip(chunks, recorded) {
            var expected = sent
            expected.bodyOffset = at
            #expect(chunk == expected)
            #expect(Array(try reader.bytes(of: chunk)) == bytes)
            at += Int64(bytes.count)
        }
        let bodyAttributes = try FileManager.default.attributesOfItem(atPath: path + "/body.bin")
        #expect((bodyAttributes[.size] as? NSNumber)?.int64Value == at)

        // Hashes: filled by the writer, equal to sha256sum of each exchange's concatenated bytes.
        let ex1Hash = try sha256sum(scenario.ex1Chunks.flatMap { $0 }, in: tmp)
        let ex2Hash = try sha256sum(scenario.ex2Chunks.flatMap { $0 }, in: tmp)
        #expect(ex1Hash != ex2Hash)
        var sawEnd = false, sawCancel = false, sawError = false
        for event in events {
            switch event {
            case .end(let e):
                sawEnd = true
                #expect(e.exchange == 1)
                #expect(e.sha256 == ex1Hash)
                #expect(e.bytes == Int64(scenario.ex1Chunks.reduce(0) { $0 + $1.count }))
            case .cancel(let c):
                sawCancel = true
                #expect(c.sha256 == ex2Hash)
                #expect(c.delivered == 300)
            case .error(let e):
                sawError = true
                #expect(e.sha256 == emptySHA256)
            default:
                break
            }
        }
        #expect(sawEnd && sawCancel && sawError)

        // Reading the body back per exchange gives the hashed bytes.
        var ex1Back = Data()
        for c in chunks where c.exchange == 1 { ex1Back.append(try reader.bytes(of: c)) }
        #expect(Array(ex1Back) == scenario.ex1Chunks.flatMap { $0 })
    }

    @Test func readerAcceptsTheEventsFileAndTrailingSlashes() throws {
        let tmp = try TemporaryDirectory()
        let path = tmp.path + "/b.rtap"
        let writer = try CaptureWriter(path: path, header: header(), clock: MonotonicClock())
        writer.record(.connectionOpen(ConnectionOpenEvent(t: 1, connection: 1, peer: "p", sendBuffer: nil)))
        writer.close()
        for variant in [path, path + "/", path + "//", path + "/events.jsonl"] {
            let reader = try CaptureReader(path: variant)
            #expect(reader.path == path)
            #expect(try reader.events().count == 1)
        }
    }

    @Test func exchangeLogAndSummaryBuildTheRightRecords() throws {
        let tmp = try TemporaryDirectory()
        let path = tmp.path + "/c.rtap"
        let writer = try CaptureWriter(path: path, header: header(), clock: MonotonicClock())
        let scenario = Scenario()
        _ = scenario.record(into: writer)
        writer.close()

        let reader = try CaptureReader(path: path)
        var log = ExchangeLog()
        var finished: [Int] = []
        try reader.forEachEvent { event in
            if let rec = log.apply(event) { finished.append(rec.id) }
        }
        #expect(finished == [1, 2, 3])
        #expect(log.connections == 1)
        #expect(log.connectionErrors.isEmpty)
        let records = log.records
        try #require(records.count == 3)

        let ex1 = records[0]
        #expect(ex1.id == 1)
        #expect(ex1.status == 206)
        #expect(ex1.contentRange == "bytes 100-4206/10000")
        #expect(ex1.requestRange == "bytes=100-")
        #expect(ex1.bytesReceived == 4107)
        #expect(ex1.chunks.count == 3)
        #expect(ex1.outcome == .complete)
        #expect(ex1.upstreamReused == false)
        #expect(ex1.upstreamPort == 40000)
        #expect(ex1.path == "/a.mp4")
        #expect(ex1.start == 20)
        #expect(ex1.end == 200)
        #expect(ex1.sha256 == (try sha256sum(scenario.ex1Chunks.flatMap { $0 }, in: tmp)))

        let ex2 = records[1]
        #expect(ex2.status == 200)
        #expect(ex2.contentRange == nil)
        #expect(ex2.bytesReceived == 16684)
        #expect(ex2.outcome == .cancelled)
        #expect(ex2.bytesDelivered == 300)
        #expect(ex2.sendBuffer == 131_072)
        #expect(ex2.summaryLine.contains("CANCELLED delivered=300 (client sndbuf 131072)"))

        let ex3 = records[2]
        #expect(ex3.status == 502)
        #expect(ex3.outcome == .failed("upstream failed: refused (curl error 7)"))
        #expect(ex3.bytesReceived == 0)

        let report = try CaptureSummaryReport(path: path)
        #expect(
            report.exchanges
                == records.map {
                    var r = $0
                    r.chunks = []
                    return r
                })
        #expect(report.connections == 1)
        #expect(!report.truncatedTail)
        let lines = report.text.split(separator: "\n")
        #expect(lines.count == 5)
        #expect(lines.first == "capture started 2026-01-02T03:04:05.678Z by rangetap test")
        #expect(lines[1].hasPrefix("#1 GET /a.mp4 range=bytes=100- -> 206 [bytes 100-4206/10000] 4107 B"))
        #expect(lines.last == "3 exchanges on 1 connections, 20791 body bytes, 1 cancelled, 1 errors")
    }

    @Test func noBodiesModeKeepsHashesButNoBytes() throws {
        let tmp = try TemporaryDirectory()
        let path = tmp.path + "/d.rtap"
        let writer = try CaptureWriter(
            path: path, header: header(bodies: false), clock: MonotonicClock(), options: .init(bodies: false))
        let scenario = Scenario()
        let recorded = scenario.record(into: writer)
        writer.close()

        #expect(!FileManager.default.fileExists(atPath: path + "/body.bin"))
        let reader = try CaptureReader(path: path)
        #expect(reader.header.bodies == false)
        let events = try reader.events()
        let chunks = events.compactMap { e -> ChunkEvent? in if case .chunk(let c) = e { c } else { nil } }
        #expect(chunks.count == recorded.count)
        // The scenario's first chunk carries a producer-supplied offset; every other one must be nil.
        for (chunk, (sent, _)) in zip(chunks, recorded) where sent.bodyOffset == nil {
            #expect(chunk.bodyOffset == nil)
        }
        let ex1Hash = try sha256sum(scenario.ex1Chunks.flatMap { $0 }, in: tmp)
        let ex2Hash = try sha256sum(scenario.ex2Chunks.flatMap { $0 }, in: tmp)
        #expect(events.contains { if case .end(let e) = $0 { e.sha256 == ex1Hash } else { false } })
        #expect(events.contains { if case .cancel(let c) = $0 { c.sha256 == ex2Hash } else { false } })
        let plain = try #require(chunks.last)
        #expect(throws: CaptureError.bodiesNotRecorded(path: path)) { try reader.bytes(of: plain) }
        let e = captureError { _ = try reader.bytes(of: plain) }
        #expect(e?.description.contains("--no-bodies") == true)

        let report = try CaptureSummaryReport(path: path)
        #expect(report.text.hasPrefix("capture started 2026-01-02T03:04:05.678Z by rangetap test (no bodies)\n"))
    }

    @Test func partialLastLineIsLeftOutAndReported() throws {
        let tmp = try TemporaryDirectory()
        let path = tmp.path + "/e.rtap"
        let writer = try CaptureWriter(path: path, header: header(), clock: MonotonicClock())
        _ = Scenario().record(into: writer)
        writer.close()
        let complete = try CaptureReader(path: path).events()

        try appendBytes(Array(#"{"type":"chunk","t":999,"ex":1,"si"#.utf8), to: path + "/events.jsonl")
        let reader = try CaptureReader(path: path)
        #expect(try reader.events() == complete)
        #expect(reader.truncatedTail)
        let report = try CaptureSummaryReport(path: path)
        #expect(report.truncatedTail)
        #expect(report.text.contains("last event incomplete"))

        // Once the line is finished it is read.
        try appendBytes(Array(#"ze":5,"off":0}"#.utf8) + [0x0A], to: path + "/events.jsonl")
        let again = try reader.events()
        #expect(!reader.truncatedTail)
        #expect(again.count == complete.count + 1)
        #expect(
            again.last
                == .chunk(ChunkEvent(t: 999, exchange: 1, size: 5, offset: 0, resourceOffset: nil, bodyOffset: nil)))
    }

    @Test func garbageLineInTheMiddleNamesTheLine() throws {
        let tmp = try TemporaryDirectory()
        let path = tmp.path + "/f.rtap"
        let writer = try CaptureWriter(path: path, header: header(), clock: MonotonicClock())
        writer.record(.connectionOpen(ConnectionOpenEvent(t: 1, connection: 1, peer: "p", sendBuffer: nil)))
        writer.close()
        try appendBytes(Array("this is not json\n".utf8), to: path + "/events.jsonl")
        try appendBytes(
            CaptureEvent.connectionClose(ConnectionCloseEvent(t: 2, connection: 1, by: .client, requests: 0))
                .jsonLine(), to: path + "/events.jsonl")

        let reader = try CaptureReader(path: path)
        var seen: [CaptureEvent] = []
        let e = captureError { try reader.forEachEvent { seen.append($0) } }
        let error = try #require(e)
        #expect(error.description.contains("events.jsonl line 3 is not a valid event"))
        #expect(seen == [.connectionOpen(ConnectionOpenEvent(t: 1, connection: 1, peer: "p", sendBuffer: nil))])
    }

    @Test func newerVersionIsRefused() throws {
        let tmp = try TemporaryDirectory()
        let path = tmp.path + "/g.rtap"
        let writer = try CaptureWriter(path: path, header: header(version: 99), clock: MonotonicClock())
        writer.close()
        let e = captureError { _ = try CaptureReader(path: path) }
        #expect(e == .unsupportedVersion(found: 99))
        #expect(e?.description.contains("version 99") == true)
    }

    @Test func missingCaptureCannotBeOpened() throws {
        let tmp = try TemporaryDirectory()
        let missing = tmp.path + "/does-not-exist.rtap"
        let e = captureError { _ = try CaptureReader(path: missing) }
        #expect(e == .cannotOpen(path: missing, reason: "no such file or directory"))
        #expect(e?.description.contains(missing) == true)

        let emptyDir = tmp.path + "/empty.rtap"
        try FileManager.default.createDirectory(atPath: emptyDir, withIntermediateDirectories: false)
        #expect(
            captureError { _ = try CaptureReader(path: emptyDir) }
                == .cannotOpen(path: emptyDir, reason: "it has no readable events.jsonl"))
    }

    @Test func fileWithoutHeaderIsNotACapture() throws {
        let tmp = try TemporaryDirectory()
        let dir = tmp.path + "/h.rtap"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: false)
        let line = CaptureEvent.connectionOpen(ConnectionOpenEvent(t: 1, connection: 1, peer: "p", sendBuffer: nil))
            .jsonLine()
        try Data(line).write(to: URL(fileURLWithPath: dir + "/events.jsonl"))
        #expect(captureError { _ = try CaptureReader(path: dir) } == .noHeader(path: dir))
    }

    @Test func writerRefusesANonEmptyDirectoryOrAFile() throws {
        let tmp = try TemporaryDirectory()
        let dir = tmp.path + "/full.rtap"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: false)
        try Data("x".utf8).write(to: URL(fileURLWithPath: dir + "/something"))
        let e = captureError { _ = try CaptureWriter(path: dir, header: header(), clock: MonotonicClock()) }
        #expect(e == .cannotCreate(path: dir, reason: "it already exists and is not an empty directory"))
        #expect(e?.description.contains(dir) == true)
        // The existing file was left alone and nothing was added.
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir) == ["something"])

        let file = tmp.path + "/plain-file"
        try Data().write(to: URL(fileURLWithPath: file))
        #expect(
            captureError { _ = try CaptureWriter(path: file, header: header(), clock: MonotonicClock()) }
                == .cannotCreate(path: file, reason: "it already exists and is not an empty directory"))

        // An empty existing directory is fine.
        let empty = tmp.path + "/empty.rtap"
        try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: false)
        let writer = try CaptureWriter(path: empty, header: header(), clock: MonotonicClock())
        writer.close()
        #expect(try CaptureReader(path: empty).header == header())
    }

    @Test(.timeLimit(.minutes(1)))
    func smallPendingLimitStillRecordsEverything() throws {
        let tmp = try TemporaryDirectory()
        let path = tmp.path + "/big.rtap"
        let writer = try CaptureWriter(
            path: path, header: header(), clock: MonotonicClock(),
            options: .init(bodies: true, maxPendingBytes: 64 << 10))
        let total = 10 << 20
        let chunkSize = 16 << 10
        var offset: Int64 = 0
        var index = 0
        while offset < Int64(total) {
            let bytes = patternBytes(count: chunkSize, seed: UInt8(truncatingIfNeeded: index))
            writer.recordChunk(
                ChunkEvent(
                    t: Int64(index), exchange: 1, size: bytes.count, offset: offset, resourceOffset: offset,
                    bodyOffset: nil), bytes: bytes)
            offset += Int64(bytes.count)
            index += 1
        }
        writer.record(.end(EndEvent(t: Int64(index), exchange: 1, bytes: offset, sha256: "")))
        writer.close()
        #expect(writer.writeError == nil)

        let attributes = try FileManager.default.attributesOfItem(atPath: path + "/body.bin")
        #expect((attributes[.size] as? NSNumber)?.intValue == total)
        let reader = try CaptureReader(path: path)
        let events = try reader.events()
        #expect(events.count == total / chunkSize + 1)
        let chunks = events.compactMap { e -> ChunkEvent? in if case .chunk(let c) = e { c } else { nil } }
        #expect(chunks.map(\.bodyOffset) == (0..<(total / chunkSize)).map { Int64($0 * chunkSize) })
        #expect(Array(try reader.bytes(of: chunks[37])) == patternBytes(count: chunkSize, seed: 37))
        guard case .end(let end)? = events.last else {
            Issue.record("last event is not the end")
            return
        }
        #expect(end.sha256 == (try sha256sum(file: path + "/body.bin")))
    }

    @Test func eventsLargerThanTheReadBlockAreReadAcrossBlockBoundaries() throws {
        let tmp = try TemporaryDirectory()
        let path = tmp.path + "/many.rtap"
        let writer = try CaptureWriter(
            path: path, header: header(bodies: false), clock: MonotonicClock(), options: .init(bodies: false))
        let count = 2500
        for i in 0..<count {
            let target = "/" + String(repeating: Character(UnicodeScalar(UInt8(0x61 + i % 26))), count: 1000 + i % 7)
            writer.record(
                .request(
                    RequestEvent(
                        t: Int64(i), exchange: i + 1, connection: 1, method: "GET", target: target, version: "HTTP/1.1",
                        url: nil, headers: [])))
        }
        writer.close()
        let reader = try CaptureReader(path: path)
        var n = 0
        try reader.forEachEvent { event in
            guard case .request(let r) = event else {
                Issue.record("unexpected \(event.type)")
                return
            }
            #expect(r.exchange == n + 1)
            #expect(r.target.utf8.count == 1001 + n % 7)
            n += 1
        }
        #expect(n == count)
        #expect(!reader.truncatedTail)
    }
}
