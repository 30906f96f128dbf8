import Foundation
import RangeTapCore
import RangeTapProxy
import RangeTapTestSupport
import Testing

/// `record --no-hash`: no SHA-256 of body bytes, said in the capture's header, and everything
/// else recorded as without it.
@Suite(.serialized)
struct NoHashRecordingTests {
    let dir: String
    let nginx: NginxServer
    static let size = 2 << 20

    init() throws {
        dir = Paths.temporaryDirectory("nohash-www")
        try Data(QuirkOrigin.expectedBytes(0..<Self.size)).write(to: URL(fileURLWithPath: dir + "/a.bin"))
        nginx = try NginxServer(root: dir)
    }

    /// The command line, end to end: curl fetches a range and the whole file through
    /// `record --no-bodies --no-hash`; the header says `"hashes":false`, the `end` events carry
    /// an empty `sha256`, byte counts are those curl got, and `summary` says "(no hashes)".
    @Test func theRecordCommandWritesNoHashesAndSaysSo() async throws {
        let port = try freePort()
        let path = Paths.temporaryDirectory("nohash-cli") + "/n.rtap"
        let recorder = try TestProcess(
            Paths.rangetap, ["record", "--listen", "127.0.0.1:\(port)", "--no-bodies", "--no-hash", "-o", path])
        try waitForPort(port)
        for range in ["0-999", "0-"] {
            let r = try runCommand(
                try Paths.tool("curl"),
                [
                    "-s", "--noproxy", "", "-x", "http://127.0.0.1:\(port)", "-r", range, nginx.url("a.bin"), "-o",
                    "/dev/null", "-w", "%{http_code} %{size_download}",
                ])
            #expect(r.text == (range == "0-" ? "206 \(Self.size)" : "206 1000"))
        }
        recorder.stop(signal: SIGINT)
        #expect(recorder.process.terminationStatus == 0)

        let lines = try String(contentsOfFile: path + "/events.jsonl", encoding: .utf8).split(separator: "\n")
        #expect(lines.first?.contains(#""bodies":false,"hashes":false"#) == true)
        let reader = try CaptureReader(path: path)
        #expect(!reader.header.hashes && !reader.header.bodies)
        let ends = try reader.events().compactMap { event -> EndEvent? in
            if case .end(let e) = event { return e } else { return nil }
        }
        #expect(ends.map(\.bytes) == [1000, Int64(Self.size)])
        #expect(ends.allSatisfy { $0.sha256.isEmpty })
        let summary = try runCommand(Paths.rangetap, ["summary", path])
        #expect(summary.status == 0)
        #expect(summary.text.contains("(no bodies) (no hashes)"))
    }

    /// The default still hashes, and says nothing: no `hashes` key in the header, the `end`
    /// event's `sha256` that of the bytes (coreutils' sha256sum of the file nginx served).
    @Test func byDefaultEveryEndCarriesTheSHA256OfItsBytes() async throws {
        let proxy = try await ProxyHarness()
        let r = try runCommand(
            try Paths.tool("curl"),
            ["-s", "--noproxy", "", "-x", proxy.url, nginx.url("a.bin"), "-o", "/dev/null", "-w", "%{http_code}"])
        #expect(r.text == "200")
        let capture = try await proxy.stopAndRead()
        #expect(capture.reader.header.hashes)
        let header = try String(contentsOfFile: proxy.capturePath + "/events.jsonl", encoding: .utf8).prefix {
            $0 != "\n"
        }
        #expect(!header.contains("hashes"))
        let sum = try runCommand("/usr/bin/sha256sum", [dir + "/a.bin"])
        let ex = try #require(capture.exchanges.first)
        #expect(ex.sha256 == String(sum.text.prefix(64)))
    }

    /// In-process, a transfer the client abandons: the `cancel` event has an empty `sha256` too.
    @Test func aCancelCarriesNoHashEither() async throws {
        let origin = try QuirkOrigin(size: 4 << 20)
        let proxy = try await ProxyHarness { $0.hashBodies = false }
        let client = try TestProcess(
            try Paths.tool("curl"),
            ["-s", "--noproxy", "", "-x", proxy.url, origin.url("/slow?delay_ms=5&piece=8192"), "-o", "/dev/null"])
        // Stop curl once body bytes are in the capture (bounded): a fixed wait was too short for a
        // loaded machine, where curl had not begun.
        let events = proxy.capturePath + "/events.jsonl"
        func recorded(_ type: String) -> Bool {
            ((try? String(contentsOfFile: events, encoding: .utf8)) ?? "").contains("\"type\":\"\(type)\"")
        }
        let deadline = Date().addingTimeInterval(20)
        while !recorded("chunk"), Date() < deadline { try await Task.sleep(for: .milliseconds(50)) }
        client.stop()
        let settled = Date().addingTimeInterval(20)
        while !recorded("cancel"), Date() < settled { try await Task.sleep(for: .milliseconds(50)) }
        let capture = try await proxy.stopAndRead()
        let cancels = try capture.reader.events().compactMap { event -> CancelEvent? in
            if case .cancel(let e) = event { return e } else { return nil }
        }
        let cancel = try #require(cancels.first)
        #expect(cancel.received > 0)
        #expect(cancel.sha256.isEmpty)
    }
}
