import Foundation
import RangeTapCore
import RangeTapTestSupport
import Testing

/// The live web view in a real browser (issue 41): headless Chromium driven through the DevTools
/// protocol (`Tests/Clients/web_view_check.py`, `cdp.py`) opens the page of a `record --web`
/// while two real players play through the proxy: ffmpeg reading an MP4 at half its rate over
/// HTTP, stopped mid-body (a cancel), and a second headless Chromium playing a `<video>` that
/// seeks, over intercepted h2 (`chromium_play.sh`). The page's exchanges and waterfall grow
/// between two moments (DOM and canvas read back, a screenshot each), the cancel's mark appears,
/// and clicking an exchange shows its raw head lines. A hostile capture renders as text and runs
/// nothing.
@Suite(.serialized)
struct WebViewChromiumTests {
    /// Runs web_view_check.py on `url`.
    static func watch(_ url: String, _ args: [String], timeout: Double = 150) throws -> CommandResult {
        let out = Paths.temporaryDirectory("web-check")
        return try runCommand(
            try Paths.tool("python3"), [Paths.root + "/Tests/Clients/web_view_check.py", url, "--out", out] + args,
            timeout: timeout)
    }

    /// What web_view_check.py reported.
    static func report(_ r: CommandResult) throws -> [String: Any] {
        let json = try #require(try JSONSerialization.jsonObject(with: r.stdout) as? [String: Any], "\(r.stderr)")
        #expect(r.status == 0, "web_view_check: \(json["error"] ?? "") \(r.stderr.suffix(500))")
        return json
    }

    /// Runs web_view_check.py on `url` and returns its report.
    static func check(_ url: String, _ args: [String], timeout: Double = 150) throws -> [String: Any] {
        try report(try watch(url, args, timeout: timeout))
    }

    @Test(.timeLimit(.minutes(4)))
    func aRecordingGrowsOnThePageWhilePlayersPlay() async throws {
        let www = Paths.temporaryDirectory("web-live-www")
        try FileManager.default.copyItem(
            atPath: Paths.root + "/Tests/Clients/chromium_seek_page.html", toPath: www + "/page.html")
        try FileManager.default.copyItem(atPath: try Media.directory() + "/moov-at-end.mp4", toPath: www + "/video.mp4")
        // ffmpeg's video: the test MP4 ten times over (stream copy, 30 MB), more than the
        // sockets' buffers hold, so that ffmpeg stopped mid-read leaves most of it unsent.
        let looped = try runCommand(
            try Paths.tool("ffmpeg"),
            [
                "-nostdin", "-v", "error", "-stream_loop", "9", "-i", www + "/video.mp4", "-c", "copy",
                www + "/long.mp4",
            ],
            timeout: 120)
        try #require(looped.status == 0, "\(looped.stderr)")
        let tls = try TestTLS.shared()
        let secure = try NginxServer(
            root: www, extraServerConfig: "types { text/html html; video/mp4 mp4; } add_header Cache-Control no-store;",
            tls: (certificate: tls.certificate, key: tls.key), http2: true)
        defer { secure.stop() }
        let plain = try NginxServer(root: www)
        defer { plain.stop() }
        let dir = Paths.temporaryDirectory("web-live")
        let port = try freePort()
        let record = try TestProcess(
            Paths.rangetap,
            [
                "record", "-p", String(port), "-o", dir + "/s.rtap", "--web", "0", "--ca-dir", dir + "/ca",
                "--upstream-cacert", tls.caFile,
            ])
        defer { record.stop(signal: SIGINT) }
        let url = try await WebViewAccessTests.viewURL(record)

        // ffmpeg reads the file at half its rate through the proxy (a bar that keeps growing), and
        // the browser plays the seeking page (seeks and cancels), both while the page is watched.
        let ffmpeg = try TestProcess(
            try Paths.tool("ffmpeg"),
            [
                "-nostdin", "-v", "error", "-http_proxy", "http://127.0.0.1:\(port)", "-readrate", "0.5", "-i",
                plain.url("long.mp4"), "-f", "null", "-",
            ])
        defer { ffmpeg.stop() }
        let player = Task.detached {
            try runCommand(
                "/bin/bash",
                [
                    Paths.root + "/Tests/Clients/chromium_play.sh", "--ca", dir + "/ca/rangetap-ca.pem", "--proxy",
                    "127.0.0.1:\(port)", "--url",
                    "https://127.0.0.1:\(secure.port)/page.html?src=video.mp4&hold=1&forward=0.7&back=0.2",
                    "--timeout", "90",
                ], timeout: 150)
        }
        let watcher = Task.detached {
            try Self.watch(url, ["--moments", "2", "--gap", "3", "--wait-cancel", "--click", "--timeout", "90"])
        }
        // ffmpeg, at half speed, is still reading the video's data when the page has seen it grow;
        // stopped then, it hangs up mid-body: a player's cancel, recorded and marked on the page.
        try await Task.sleep(for: .seconds(12))
        ffmpeg.stop(signal: SIGINT)
        let seen = try Self.report(try await watcher.value)
        let played = try await player.value
        #expect(played.status == 0, "the video page: \(played.text) \(played.stderr.suffix(400))")

        let moments = try #require(seen["moments"] as? [[String: Any]])
        #expect(moments.count == 2)
        let first = moments.first ?? [:], second = moments.last ?? [:]
        func number(_ m: [String: Any], _ key: String) -> Double { (m[key] as? NSNumber)?.doubleValue ?? -1 }
        #expect(
            number(first, "rows") >= 1 && number(first, "ink") > 1000, "bars and rows at the first moment: \(first)")
        #expect(
            number(second, "delivered") > number(first, "delivered")
                || number(second, "exchanges") > number(first, "exchanges"),
            "the page grew between the two moments: \(first) -> \(second)")
        for m in moments {
            let shot = try #require(m["screenshot"] as? String)
            let size = (try FileManager.default.attributesOfItem(atPath: shot)[.size] as? Int) ?? 0
            #expect(size > 10_000, "\(shot): \(size) bytes")
        }
        let cancel = try #require(seen["afterCancel"] as? [String: Any])
        #expect(number(cancel, "cancelled") >= 1 && number(cancel, "red") > 0, "a cancel and its mark: \(cancel)")
        let detail = try #require(seen["detail"] as? String)
        #expect(detail.contains("GET ") && detail.contains("HTTP/1.1") && detail.contains("Host: "), "\(detail)")
        #expect((seen["dialogs"] as? Int) == 0)
    }

    @Test(.timeLimit(.minutes(2)))
    func aHostileCaptureRendersInert() async throws {
        let path = Paths.temporaryDirectory("web-hostile") + "/h.rtap"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        let host = "evil\"><svg onload=alert(3)>.test"
        let target = "http://\(host)/<script>alert(1)</script>?q=\"'><img src=x onerror=alert(2)>"
        let evil = "X-Evil: <img src=x onerror=alert(4)>\u{01}\u{1B}[31m</pre><script>alert(5)</script>\r\n"
        func line(_ object: [String: Any]) throws -> String {
            String(decoding: try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]), as: UTF8.self)
        }
        let lines = [
            try line([
                "type": "capture", "version": 1, "tool": "rangetap <b>test</b>",
                "startedAt": "2026-11-29T10:00:00.000Z",
                "bodies": false, "redacted": true, "listen": "127.0.0.1:8080",
            ]),
            try line(["type": "conn.open", "t": 1000, "conn": 1, "peer": "127.0.0.1:50000"]),
            try line([
                "type": "request", "t": 2000, "ex": 1, "conn": 1, "method": "GET", "target": target,
                "version": "HTTP/1.1", "url": target, "headers": ["Host: \(host)\r\n", evil, "Range: bytes=0-\r\n"],
            ]),
            try line([
                "type": "response", "t": 3000, "ex": 1, "status": 206, "reused": false, "upstreamPort": 40000,
                "lines": [
                    "HTTP/1.1 206 <script>alert(6)</script>\r\n", "Content-Range: bytes 0-9/100\r\n", evil, "\r\n",
                ],
            ]),
            try line(["type": "chunk", "t": 4000, "ex": 1, "size": 10, "off": 0, "res": 0]),
            try line(["type": "cancel", "t": 5000, "ex": 1, "delivered": 5, "received": 10, "sha256": "00"]),
            try line([
                "type": "error", "t": 6000, "conn": 1, "kind": "refused",
                "message": "<img src=x onerror=alert(7)> refused", "status": 403,
            ]),
        ]
        try Data(lines.map { $0 + "\n" }.joined().utf8).write(to: URL(fileURLWithPath: path + "/events.jsonl"))
        let inspect = try TestProcess(Paths.rangetap, ["inspect", path, "--web", "0"])
        defer { inspect.stop(signal: SIGINT) }
        let url = try await WebViewAccessTests.viewURL(inspect)
        let seen = try Self.check(url, ["--moments", "1", "--click"], timeout: 90)
        #expect((seen["dialogs"] as? Int) == 0, "a script from the capture ran: \(seen)")
        let elements = try #require(seen["elements"] as? [String: Int])
        #expect(elements["img"] == 0 && elements["script"] == 1 && elements["iframe"] == 0, "\(elements)")
        #expect((seen["exceptions"] as? [Any])?.isEmpty == true, "\(seen["exceptions"] ?? "")")
        let detail = try #require(seen["detail"] as? String)
        #expect(
            detail.contains("<img src=x onerror=alert(4)>\\x01\\x1B[31m")
                && detail.contains("<script>alert(6)</script>"),
            "the hostile lines are shown as text, control characters visible: \(detail)")
    }
}
