import Foundation
import RangeTapCore
import RangeTapTestSupport
import Testing

/// Captures whose files are not what a capture's are (issue 37, item 14): a FIFO as
/// `events.jsonl` hung every reader and `serve`; a 2 GB line took 2.1 GB of memory; a `body.bin`
/// that is a directory was reported as "chunk reaches past the end"; deep or `1e400` JSON was
/// only "not valid JSON". Each now gets an error that names what is wrong, at once.
@Suite(.timeLimit(.minutes(1))) struct CaptureReaderHostileFilesTests {
    static let header =
        #"{"type":"capture","version":1,"tool":"rangetap test","startedAt":"2026-11-22T18:16:44.846Z","bodies":true,"redacted":true,"listen":"127.0.0.1:8080"}"#
    static let chunk =
        #"{"type":"request","t":2000,"ex":1,"conn":1,"method":"GET","target":"/a","version":"HTTP/1.1","url":"http://127.0.0.1:8081/a","headers":[]}"#

    func directory(_ lines: [String]) throws -> (TemporaryDirectory, String) {
        let dir = try TemporaryDirectory()
        let path = dir.path + "/c.rtap"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        try Data(([Self.header] + lines).map { $0 + "\n" }.joined().utf8).write(
            to: URL(fileURLWithPath: path + "/events.jsonl"))
        return (dir, path)
    }

    @Test func aFIFOAsEventsIsRefusedNotWaitedOn() throws {
        let dir = try TemporaryDirectory()
        let path = dir.path + "/c.rtap"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        #expect(mkfifo(path + "/events.jsonl", 0o600) == 0)
        let e = try #require(throws: CaptureError.self) { try CaptureReader(path: path) }
        #expect(e.description.contains("events.jsonl is a FIFO, not a regular file"), "\(e)")
    }

    @Test func aDirectoryAsBodyIsNamed() throws {
        let (dir, path) = try directory([
            Self.chunk, #"{"type":"chunk","t":2100,"ex":1,"size":2,"off":0,"res":0,"at":0}"#,
        ])
        _ = dir
        try FileManager.default.createDirectory(atPath: path + "/body.bin", withIntermediateDirectories: true)
        let reader = try CaptureReader(path: path)
        let e = try #require(throws: CaptureError.self) { try reader.forEachEvent { _ in } }
        #expect(e.description.contains("body.bin is a directory, not a regular file"), "\(e)")
    }

    @Test func aLineLongerThanAnyEventIsRefusedBeforeItFillsMemory() throws {
        let (dir, path) = try directory([Self.chunk])
        _ = dir
        // A sparse run of zero bytes (no line end) past the limit: cheap to make, never read whole.
        let handle = try #require(FileHandle(forWritingAtPath: path + "/events.jsonl"))
        let end = try handle.seekToEnd()
        try handle.truncate(atOffset: end + UInt64(CaptureReader.maxLine) + (2 << 20))
        try handle.close()
        let reader = try CaptureReader(path: path)
        var seen = 0
        let e = try #require(throws: CaptureError.self) { try reader.forEachEvent { _ in seen += 1 } }
        #expect(e.description.contains("line 3") && e.description.contains("longer than 256 MiB"), "\(e)")
        #expect(seen == 1, "the events before it are read")
    }

    @Test(arguments: ["deep", "huge number"])
    func invalidJSONSaysWhatIsWrong(kind: String) throws {
        let (line, mentions) =
            kind == "deep"
            ? (String(repeating: "[", count: 100_000), "nested 100000 levels")
            : (#"{"type":"chunk","t":1e400,"ex":1,"size":2,"off":0,"res":0,"at":0}"#, "1e400 does not fit")
        let (dir, path) = try directory([line])
        _ = dir
        let reader = try CaptureReader(path: path)
        let e = try #require(throws: CaptureError.self) { try reader.forEachEvent { _ in } }
        #expect(e.description.contains("line 2") && e.description.contains(mentions), "\(e.description.prefix(300))")
    }
}
