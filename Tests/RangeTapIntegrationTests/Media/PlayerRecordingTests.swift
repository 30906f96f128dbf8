import Foundation
import RangeTapCore
import RangeTapMedia
import RangeTapTestSupport
import Testing

/// ffprobe and ffmpeg as real players through the proxy, on an MP4 whose index is at the end.
@Suite(.serialized)
struct PlayerRecordingTests {
    let media: String
    let nginx: NginxServer

    init() throws {
        media = try Media.directory()
        nginx = try NginxServer(root: media)
    }

    /// Every recorded exchange's body equals the origin file's bytes at the offsets it claims.
    func expectBodiesMatchFile(_ capture: RecordedCapture, file: Data) throws {
        for ex in capture.exchanges where ex.bytesReceived > 0 {
            let start = Int(try #require(ex.chunks.first?.resourceOffset, "exchange \(ex.id) has no resource offset"))
            let body = try capture.body(of: ex)
            #expect(body.count == Int(ex.bytesReceived))
            #expect(
                sha256Hex(body) == sha256Hex(file[start..<start + body.count]), "exchange \(ex.id) bytes at \(start)")
            #expect(ex.sha256 == sha256Hex(body))
        }
    }

    @Test func ffprobeSeeksToTheIndexAtTheEndAndBack() async throws {
        let file = try Data(contentsOf: URL(fileURLWithPath: media + "/moov-at-end.mp4"))
        let proxy = try await ProxyHarness { $0.clientSendBuffer = 16384 }
        let r = try runCommand(
            try Paths.tool("ffprobe"),
            [
                "-v", "error", "-http_proxy", proxy.url, "-show_entries", "format=duration", "-of", "csv=p=0",
                nginx.url("moov-at-end.mp4"),
            ])
        #expect(r.status == 0, "ffprobe: \(r.stderr)")
        #expect(r.text.hasPrefix("20."))
        let capture = try await proxy.stopAndRead()
        let starts = capture.exchanges.compactMap { $0.chunks.first?.resourceOffset }
        #expect(capture.exchanges.count >= 2)
        #expect(capture.exchanges.first?.requestRange == "bytes=0-")
        #expect(starts.contains { $0 > Int64(file.count) / 2 }, "a request went to the index near the end: \(starts)")
        // The first open-ended request was abandoned once the player knew it had to seek.
        #expect(capture.exchanges.first?.outcome == .cancelled)
        try expectBodiesMatchFile(capture, file: file)
    }

    @Test func ffmpegPlaybackWithSeekRecordsEveryRangeAndCancel() async throws {
        let file = try Data(contentsOf: URL(fileURLWithPath: media + "/moov-at-end.mp4"))
        let proxy = try await ProxyHarness { $0.clientSendBuffer = 16384 }
        let r = try runCommand(
            try Paths.tool("ffmpeg"),
            [
                "-v", "error", "-http_proxy", proxy.url, "-ss", "12", "-i", nginx.url("moov-at-end.mp4"), "-t", "3",
                "-f", "null", "-",
            ], timeout: 120)
        #expect(r.status == 0, "ffmpeg: \(r.stderr)")
        let capture = try await proxy.stopAndRead()
        #expect(capture.exchanges.count >= 3)
        #expect(capture.exchanges.allSatisfy { $0.status == 206 })
        #expect(capture.exchanges.contains { $0.outcome == .cancelled })
        // Cancels carry their byte counts.
        for ex in capture.exchanges where ex.outcome == .cancelled {
            let delivered = try #require(ex.bytesDelivered)
            #expect(delivered <= ex.bytesReceived)
        }
        // The nginx log has one line per recorded exchange.
        #expect(nginx.accessLog().count == capture.exchanges.count)
        try expectBodiesMatchFile(capture, file: file)
    }

    /// ffmpeg reads a range to the length it needs and closes at once, again and again: no `end`
    /// is ever short of its Content-Length, and inspect blames no server for a client's hang-up.
    @Test func ffmpegReadingRangesToTheirEndIsNeverATruncation() async throws {
        let proxy = try await ProxyHarness()
        for start in [0, 5, 10, 15] {
            let r = try runCommand(
                try Paths.tool("ffmpeg"),
                [
                    "-v", "error", "-http_proxy", proxy.url, "-ss", String(start), "-i", nginx.url("moov-at-end.mp4"),
                    "-t", "1", "-f", "null", "-",
                ], timeout: 120)
            #expect(r.status == 0, "ffmpeg: \(r.stderr)")
        }
        let capture = try await proxy.stopAndRead()
        #expect(capture.exchanges.count >= 8)
        for ex in capture.exchanges where ex.outcome == .complete {
            let length = ex.responseLines.first(named: "Content-Length").flatMap { Int64($0) }
            #expect(
                length == nil || ex.bytesReceived == length,
                "exchange \(ex.id): an end with \(ex.bytesReceived) of \(length ?? -1) bytes")
            #expect(ex.bytesDelivered == ex.bytesReceived, "exchange \(ex.id): an end the client did not get whole")
        }
        let analysis = try MediaAnalysis.analyze(path: proxy.capturePath)
        let blamed = analysis.exchanges.flatMap(\.findings).filter {
            $0.code == "content-length-mismatch" || $0.code == "truncated"
        }
        #expect(blamed.isEmpty, "\(blamed.map(\.message))")
    }
}
