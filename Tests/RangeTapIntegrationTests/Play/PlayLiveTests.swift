import Foundation
import RangeTapCore
import RangeTapPlay
import RangeTapTestSupport
import Testing

/// `rangetap play`, the libcurl player, against real servers (nginx, Python's http.server) and
/// through the recording proxy; serialized because the tests share the machine's ports and the media.
@Suite(.serialized)
struct PlayLiveTests {
    let media: String
    let nginx: NginxServer

    init() throws {
        media = try Media.directory()
        // A 1 MB/s "network" (256 KiB take about 0.25 s): on bare loopback the proxy could
        // read a whole remainder before the player's cancel reaches it, and record no cancel.
        nginx = try NginxServer(root: media, extraServerConfig: "limit_rate 1m;")
    }

    func fileSize(_ name: String) throws -> Int64 {
        let attributes = try FileManager.default.attributesOfItem(atPath: media + "/" + name)
        return (attributes[.size] as? NSNumber)?.int64Value ?? 0
    }

    @Test func avplayerThroughTheProxyShowsProbeCancelsAndASeek() async throws {
        let size = try fileSize("moov-at-end.mp4")
        let file = try Data(contentsOf: URL(fileURLWithPath: media + "/moov-at-end.mp4"))
        let n: Int64 = 256 * 1024
        let proxy = try await ProxyHarness { $0.clientSendBuffer = 16384 }
        let result = try await ScriptedPlayer.run(
            url: nginx.url("moov-at-end.mp4"), pattern: .avplayer, proxy: proxy.url, readBytes: n, seed: 5)
        let capture = try await proxy.stopAndRead()

        #expect(result.conforms, "\(result.problems)")
        #expect(result.contentLength == size)
        #expect(result.steps.map(\.status) == [206, 206, 206, 206, 206])
        #expect(result.steps.map(\.cancelled) == [false, true, true, true, false])
        #expect(result.steps.allSatisfy { $0.bytes <= n + 16384 })

        let ex = capture.exchanges
        try #require(ex.count == 5, "\(ex.map { $0.requestRange ?? "-" })")
        // The probe.
        #expect(ex[0].requestRange == "bytes=0-1")
        #expect(ex[0].status == 206)
        #expect(ex[0].contentRange == "bytes 0-1/\(size)")
        #expect(ex[0].outcome == .complete)
        // Open-ended requests, cancelled by the player.
        #expect(ex[1].requestRange == "bytes=0-")
        #expect(ex[2].requestRange == "bytes=\(n)-")
        for e in ex[1...3] {
            #expect(e.requestRange?.hasSuffix("-") == true)
            #expect(e.outcome == .cancelled, "exchange \(e.id) \(e.requestRange ?? "")")
            #expect(e.bytesReceived < size - 1_000_000, "the proxy stopped reading once the player hung up")
        }
        // The seek, to about 60 %.
        let seekStart = try #require(ex[3].chunks.first?.resourceOffset)
        #expect(seekStart > size * 55 / 100 && seekStart < size * 65 / 100, "seek at \(seekStart) of \(size)")
        // The end of the file, read to its end.
        #expect(ex[4].requestRange == "bytes=\(size - 65536)-")
        #expect(ex[4].outcome == .complete)
        #expect(ex[4].bytesReceived == 65536)
        // The probe's connection is kept alive for the next request; every cancel closes its
        // connection, so the request after it comes on a new one.
        #expect(ex[1].connection == ex[0].connection)
        #expect(ex[2].connection != ex[1].connection)
        #expect(ex[3].connection != ex[2].connection)
        #expect(ex[4].connection != ex[3].connection)
        let closes = capture.events.compactMap { e -> ConnectionCloseEvent? in
            if case .connectionClose(let c) = e { return c }
            return nil
        }
        #expect(closes.filter { $0.by == .client }.count >= 3)
        // What the proxy recorded is the file's bytes at the offsets claimed.
        for e in ex where e.bytesReceived > 0 {
            let start = Int(try #require(e.chunks.first?.resourceOffset))
            let body = try capture.body(of: e)
            #expect(body == file[start..<start + body.count], "exchange \(e.id)")
        }
    }

    /// `play https://…` through an intercepting record (issue 39): with `--cacert` the proxy's CA
    /// it plays (every answer the origin's 206, not the CONNECT's 200); without, a plain TLS error
    /// that says what to pass, never a verdict against the server.
    @Test func anHTTPSPlayThroughTheInterceptingProxyTakesItsCA() async throws {
        let tls = try TestTLS.shared()
        let origin = try NginxServer(root: media, tls: (tls.certificate, tls.key))
        defer { origin.stop() }
        let proxy = try await tls.interceptingProxy()
        let url = "https://localhost:\(origin.port)/faststart.mp4"
        let ca = try #require(proxy.caCertificate)
        let played = try runCommand(
            Paths.rangetap, ["play", url, "--pattern", "seeky", "--proxy", proxy.url, "--cacert", ca, "--json"],
            timeout: 60)
        let refused = try runCommand(Paths.rangetap, ["play", url, "--proxy", proxy.url], timeout: 60)
        _ = try await proxy.stopAndRead()
        #expect(played.status == 0, "\(played.stderr)")
        let steps = try #require(try JSONSerialization.jsonObject(with: played.stdout) as? [[String: Any]])
        #expect(steps.dropFirst().allSatisfy { $0["status"] as? Int == 206 }, "\(steps)")
        #expect(refused.status == 2, "\(refused.stderr)")
        #expect(refused.stderr.contains("pass --cacert FILE"), "\(refused.stderr)")
        #expect(!refused.stderr.contains("ignored Range"), "\(refused.stderr)")
    }

    @Test func theCommandPrintsJSONAndExitsZeroAgainstNginx() async throws {
        let proxy = try await ProxyHarness()
        let r = try runCommand(
            Paths.rangetap,
            [
                "play", nginx.url("faststart.mp4"), "--pattern", "seeky", "--proxy", proxy.url, "--seed", "9",
                "--json",
            ], timeout: 60)
        let capture = try await proxy.stopAndRead()
        #expect(r.status == 0, "\(r.stderr)")
        let parsed = try JSONSerialization.jsonObject(with: r.stdout) as? [[String: Any]]
        let steps = try #require(parsed, "\(r.text)")
        #expect(steps.count == 6)
        #expect(steps.first?["range"] as? String == "bytes=0-1")
        #expect(steps.allSatisfy { $0["status"] as? Int == 206 })
        #expect(capture.exchanges.map(\.requestRange) == steps.map { $0["range"] as? String })

        let text = try runCommand(
            Paths.rangetap, ["play", nginx.url("faststart.mp4"), "--pattern", "seeky", "--seed", "9"], timeout: 60)
        #expect(text.status == 0, "\(text.stderr)")
        let lines = text.text.split(separator: "\n")
        #expect(lines.count == 6)
        #expect(lines.first?.contains("bytes=0-1") == true)
        #expect(lines.dropFirst().allSatisfy { $0.contains("206") })
    }

    @Test func pythonHTTPServerIgnoresRangeAndTheReadsStayBounded() async throws {
        let python = try PythonHTTPServer(root: media)
        let size = try fileSize("faststart.mp4")
        let n: Int64 = 64 * 1024
        let result = try await ScriptedPlayer.run(
            url: python.url("faststart.mp4"), pattern: .avplayer, readBytes: n)
        #expect(result.serverIgnoredRange)
        #expect(!result.conforms)
        #expect(result.verdict == "the server ignored Range; a player would download the whole file")
        #expect(result.steps.count == 5)
        #expect(result.steps.allSatisfy { $0.status == 200 && $0.cancelled && $0.bytes <= n + 16384 })
        #expect(result.totalBytes < size / 4, "read \(result.totalBytes) of a \(size)-byte file")

        let r = try runCommand(
            Paths.rangetap, ["play", python.url("faststart.mp4"), "--chunk-bytes", "64k"], timeout: 60)
        #expect(r.status == 1)
        #expect(
            r.stderr.contains("the server ignored Range; a player would download the whole file"), "\(r.stderr)")

        // A missing file ends the script at its first answer.
        let missing = try await ScriptedPlayer.run(url: python.url("no-such-file.mp4"), pattern: .avplayer)
        #expect(missing.steps.map(\.status) == [404])
        #expect(missing.problems.map(\.kind) == [.badStatus])
    }

    @Test func linearReadsTheWholeFile() async throws {
        let python = try PythonHTTPServer(root: media)
        let size = try fileSize("fragmented.mp4")
        let result = try await ScriptedPlayer.run(url: python.url("fragmented.mp4"), pattern: .linear)
        #expect(result.conforms, "\(result.problems)")
        #expect(result.steps.count == 1)
        #expect(result.steps.first?.status == 200)
        #expect(result.steps.first?.bytes == size)
        #expect(result.steps.first?.cancelled == false)
    }

    @Test func anUnreachableServerIsAClearError() async throws {
        let port = try freePort()
        let url = "http://127.0.0.1:\(port)/a.mp4"
        await #expect {
            try await ScriptedPlayer.run(url: url, pattern: .avplayer)
        } throws: { error in
            guard let e = error as? PlayError else { return false }
            return e.curlCode == 7 && e.description.contains("cannot fetch \(url)")
                && e.description.contains("libcurl error 7")
        }
        let r = try runCommand(Paths.rangetap, ["play", url], timeout: 30)
        #expect(r.status == 2)
        #expect(r.stderr.contains("libcurl error 7"), "\(r.stderr)")
        #expect(r.stderr.contains("Couldn't connect") || r.stderr.contains("Failed to connect"), "\(r.stderr)")
        #expect(r.text.isEmpty)

        let viaProxy = try runCommand(
            Paths.rangetap, ["play", nginx.url("faststart.mp4"), "--proxy", "http://127.0.0.1:\(port)"], timeout: 30
        )
        #expect(viaProxy.status == 2)
        #expect(viaProxy.stderr.contains("through the proxy http://127.0.0.1:\(port)"), "\(viaProxy.stderr)")

        let bad = try runCommand(Paths.rangetap, ["play", url, "--pattern", "vlc"], timeout: 30)
        #expect(bad.status == 2)
        #expect(bad.stderr.contains("use one of avplayer, linear, seeky"))
    }
}
