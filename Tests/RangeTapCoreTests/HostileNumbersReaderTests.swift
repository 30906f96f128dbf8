import Foundation
import RangeTapCore
import RangeTapTestSupport
import Testing

/// Captures edited by hand or damaged, and origins sending absurd numbers: the reader says what
/// is wrong (line and field) and range maths never traps (issue 10, items 1 and 9).
@Suite struct HostileNumbersReaderTests {
    static let header =
        #"{"type":"capture","version":1,"tool":"rangetap test","startedAt":"2026-11-22T18:16:44.846Z","bodies":true,"redacted":true,"listen":"127.0.0.1:8080"}"#
    static let request =
        #"{"type":"request","t":2000,"ex":1,"conn":1,"method":"GET","target":"/a","version":"HTTP/1.1","url":"http://127.0.0.1:8081/a","headers":[]}"#

    /// A capture directory holding `lines` (after the header) and `body` as body.bin.
    func capture(
        _ lines: [String], body: [UInt8] = Array(repeating: 7, count: 16), in dir: TemporaryDirectory
    ) throws -> String {
        let path = dir.path + "/c.rtap"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        let text = ([Self.header] + lines).map { $0 + "\n" }.joined()
        try Data(text.utf8).write(to: URL(fileURLWithPath: path + "/events.jsonl"))
        try Data(body).write(to: URL(fileURLWithPath: path + "/body.bin"))
        return path
    }

    /// The error reading the capture at `path` gives, if any.
    func readError(_ path: String) throws -> CaptureError? {
        let reader = try CaptureReader(path: path)
        do {
            try reader.forEachEvent { _ in }
            return nil
        } catch let e as CaptureError {
            return e
        }
    }

    @Test(arguments: [
        (#"{"type":"chunk","t":1,"ex":1,"size":-1,"off":0,"res":0,"at":0}"#, "\"size\"", "-1"),
        (#"{"type":"chunk","t":1,"ex":1,"size":2,"off":0,"res":0,"at":-5}"#, "\"at\"", "-5"),
        (#"{"type":"chunk","t":1,"ex":1,"size":2,"off":-3,"res":0,"at":0}"#, "\"off\"", "-3"),
        (#"{"type":"chunk","t":1,"ex":1,"size":2,"off":0,"res":-9,"at":0}"#, "\"res\"", "-9"),
        (#"{"type":"chunk","t":-1,"ex":1,"size":2,"off":0,"res":0,"at":0}"#, "\"t\"", "-1"),
        (#"{"type":"chunk","t":1,"ex":-2,"size":2,"off":0,"res":0,"at":0}"#, "\"ex\"", "-2"),
        (#"{"type":"end","t":1,"ex":1,"bytes":-2,"sha256":"x"}"#, "\"bytes\"", "-2"),
        (#"{"type":"cancel","t":1,"ex":1,"delivered":-1,"received":0,"sha256":"x"}"#, "\"delivered\"", "-1"),
        (
            #"{"type":"chunk","t":1,"ex":1,"size":100,"off":0,"res":0,"at":9223372036854775800}"#, "\"at\" + \"size\"",
            "9223372036854775800"
        ),
        (
            #"{"type":"chunk","t":1,"ex":1,"size":100,"off":9223372036854775800,"res":0}"#, "\"off\" + \"size\"",
            "9223372036854775800"
        ),
        (#"{"type":"response","t":1,"ex":1,"status":-206,"lines":[]}"#, "\"status\"", "-206"),
    ])
    func negativeOrOverflowingNumbersNameLineAndField(line: String, field: String, value: String) throws {
        let dir = try TemporaryDirectory()
        let e = try #require(try readError(try capture([Self.request, line], in: dir)))
        #expect(e.description.contains("line 3"), "\(e)")
        #expect(e.description.contains(field), "\(e)")
        #expect(e.description.contains(value), "\(e)")
    }

    @Test func chunkPastTheEndOfBodyBinIsAnErrorNotAnAllocation() throws {
        let dir = try TemporaryDirectory()
        let path = try capture(
            [Self.request, #"{"type":"chunk","t":1,"ex":1,"size":4000000000000000000,"off":0,"res":0,"at":0}"#],
            body: [1, 2, 3], in: dir)
        let e = try #require(try readError(path))
        #expect(e.description.contains("line 3"), "\(e)")
        #expect(e.description.contains("\"size\""), "\(e)")
        #expect(e.description.contains("body.bin (3 bytes)"), "\(e)")

        // A chunk made by hand (not read from a line) is refused when its bytes are read.
        let reader = try CaptureReader(path: path)
        for chunk in [
            ChunkEvent(t: 1, exchange: 1, size: Int.max, offset: 0, resourceOffset: 0, bodyOffset: 0),
            ChunkEvent(t: 1, exchange: 1, size: 2, offset: 0, resourceOffset: 0, bodyOffset: -1),
            ChunkEvent(t: 1, exchange: 1, size: -1, offset: 0, resourceOffset: 0, bodyOffset: 0),
        ] {
            #expect(throws: CaptureError.self) { try reader.bytes(of: chunk) }
        }
    }

    @Test func typeProblemsSayExactlyWhatIsWrong() throws {
        let cases: [(String, String)] = [
            (#"{"t":1,"ex":1}"#, "line 2 is not a valid event: field \"type\" is missing"),
            (
                #"{"type":"chunk","t":1,"ex":1.5,"size":2,"off":0}"#,
                "line 2 is not a valid event: field \"ex\" must be a whole number, found 1.5"
            ),
            (
                #"{"type":"end","t":1,"ex":1,"bytes":"2","sha256":"x"}"#,
                "field \"bytes\" must be a whole number, found \"2\""
            ),
            (
                #"{"type":"request","t":1,"ex":1,"conn":1,"method":"GET","target":"/","version":"HTTP/1.1","headers":[1]}"#,
                "field \"headers\" must be an array of strings, found an array"
            ),
            (#"{"type":7}"#, "field \"type\" must be a string, found 7"),
            ("[1,2]", "not a JSON object"),
            ("{nope", "not valid JSON"),
        ]
        for (line, expected) in cases {
            let dir = try TemporaryDirectory()
            let e = try #require(try readError(try capture([line], in: dir)))
            #expect(e.description.contains(expected), "\(e)")
        }
    }

    @Test func invalidUTF8IsNamed() throws {
        let dir = try TemporaryDirectory()
        let path = try capture([], in: dir)
        try appendBytes(
            Array(#"{"type":"request","t":1,"target":"/"#.utf8) + [0xFF, 0xFE] + Array("\"}\n".utf8),
            to: path + "/events.jsonl")
        let e = try #require(try readError(path))
        #expect(e.description.contains("line 2"), "\(e)")
        #expect(e.description.contains("not valid UTF-8"), "\(e)")
        #expect(e.description.contains("at byte 36"), "\(e)")
    }

    @Test func hostileContentRangeNumbersParseAndCountWithoutTrapping() throws {
        let far = try ContentRange.parse("bytes 9223372036854775806-9223372036854775807/*")
        let range = try #require(far.range)
        #expect(range.count == 2)
        #expect(range.upperBound == Int64.max)  // saturated: 2⁶³ does not fit
        let whole = try #require(try ContentRange.parse("bytes 0-9223372036854775807/*").range)
        #expect(whole.count == Int64.max)
        #expect(try ContentRange.parse("bytes 0-1/9223372036854775807").completeLength == Int64.max)
        #expect(
            RangeSpec.closed(first: 0, last: Int64.max).resolved(length: Int64.max)
                == ByteRange(first: 0, last: Int64.max - 1))
        var set = ByteRangeSet()
        set.insert(0..<Int64.max)
        set.insert(-5..<0)
        #expect(set.count == Int64.max)
        #expect(Int64.max.addingSaturating(1) == Int64.max)
        #expect(Int64.min.subtractingSaturating(1) == Int64.min)
        #expect(ContentLength.parse("-5") == nil)
        #expect(ContentLength.parse(" 12 ") == 12)
    }

    /// Reading is linear in line length: a 100 MB line used to take minutes (the whole buffer
    /// was searched again for every 1 MiB block). Wall time is not asserted, only the outcome.
    @Test(.timeLimit(.minutes(1))) func hundredMegabyteLineIsReadOrRejected() throws {
        let dir = try TemporaryDirectory()
        let path = try capture([], in: dir)
        let big = Data(repeating: UInt8(ascii: "a"), count: 100 << 20)
        let handle = try #require(FileHandle(forWritingAtPath: path + "/events.jsonl"))
        try handle.seekToEnd()
        var request = Data(
            #"{"type":"request","t":2000,"ex":1,"conn":1,"method":"GET","target":"/a","version":"HTTP/1.1","headers":["X-Big: "#
                .utf8)
        request.append(big)
        request.append(contentsOf: (#"\r\n"]}"# + "\n").utf8)
        try handle.write(contentsOf: request)
        try handle.write(contentsOf: Data("{".utf8) + big + Data("\n".utf8))
        try handle.close()
        let reader = try CaptureReader(path: path)
        var seen: [CaptureEvent] = []
        let e = try #require(throws: CaptureError.self) { try reader.forEachEvent { seen.append($0) } }
        #expect(e.description.contains("line 3 is not a valid event: not valid JSON"), "\(e)")
        guard case .request(let r)? = seen.first else {
            Issue.record("no request read")
            return
        }
        let expected: Int = (100 << 20) + 9
        #expect(r.headers.first?.raw.utf8.count == expected)
    }
}
