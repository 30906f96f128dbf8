import Foundation
import RangeTapCore
import RangeTapTestSupport
import Testing

/// The live web view's doors (issue 41): the token, the `Host` check (DNS rebinding), and the
/// proxy of `record --web` refusing every request to the view's port, recorded. Checked with
/// curl against the running binary; what the page shows is `WebViewChromiumTests`'s.
@Suite(.serialized)
struct WebViewAccessTests {
    /// Waits for the `live view of …: URL` line and returns the URL.
    static func viewURL(_ process: TestProcess) async throws -> String {
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline {
            if let line = process.stderrText.split(separator: "\n").first(where: { $0.contains("live view of") }),
                let start = line.range(of: "http://")
            {
                return String(line[start.lowerBound...])
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw TestFailure("no live view URL printed: \(process.stderrText)")
    }

    func curl(_ args: [String]) throws -> CommandResult {
        try runCommand(try Paths.tool("curl"), ["-s", "--noproxy", "*", "-w", "\n%{http_code}"] + args)
    }

    @Test func onlyTheTokenAndTheViewsOwnHostAreAnswered() async throws {
        let inspect = try TestProcess(
            Paths.rangetap, ["inspect", Paths.root + "/captures/avplayer-nginx.rtap", "--web", "0"])
        defer { inspect.stop(signal: SIGINT) }
        let url = try await Self.viewURL(inspect)
        let base = String(url.prefix { $0 != "?" })
        let token = String(url.split(separator: "=").last ?? "")
        #expect(token.count == 32, "\(url)")

        let page = try curl([url])
        #expect(page.text.hasSuffix("200") && page.text.contains("<!DOCTYPE html>"), "\(page.text.prefix(200))")
        #expect(try curl([base]).text.hasSuffix("403"), "no token")
        #expect(try curl([base + "?token=" + String(repeating: "0", count: 32)]).text.hasSuffix("403"), "another token")
        let rebound = try curl(["-H", "Host: evil.example:80", url])
        #expect(rebound.text.hasSuffix("403") && rebound.text.contains("own address"), "\(rebound.text)")

        let detail = try curl([base + "api/exchange/2?token=" + token])
        #expect(detail.text.hasSuffix("200"), "\(detail.text)")
        let json = try #require(
            try JSONSerialization.jsonObject(with: Data(detail.text.dropLast(4).utf8)) as? [String: Any])
        let request = try #require(json["request"] as? [String])
        #expect(request.first?.hasPrefix("GET ") == true && request.contains { $0.lowercased().hasPrefix("range:") })
        #expect(try curl([base + "api/exchange/999?token=" + token]).text.hasSuffix("404"))

        // The event stream starts with everything the capture holds.
        let events = try runCommand(
            try Paths.tool("curl"),
            ["-s", "--noproxy", "*", "-N", "--max-time", "2", base + "api/events?token=" + token])
        let reset = try #require(events.text.split(separator: "\n").first { $0.hasPrefix("data: ") })
        let state = try #require(
            try JSONSerialization.jsonObject(with: Data(reset.dropFirst(6).utf8)) as? [String: Any])
        let exchanges = try #require(state["exchanges"] as? [[String: Any]])
        #expect(exchanges.count == 5, "the capture's 5 exchanges: \(exchanges.count)")
        #expect(events.text.hasPrefix("event: reset\n"))
        #expect(exchanges.contains { ($0["o"] as? String) == "cancelled" }, "the AVPlayer probe's cancel")
    }

    @Test func noRequestThroughTheProxyReachesTheView() async throws {
        let dir = Paths.temporaryDirectory("web-record")
        let port = try freePort()
        let record = try TestProcess(
            Paths.rangetap, ["record", "-p", String(port), "-o", dir + "/s.rtap", "--web", "0", "--no-intercept", "*"])
        defer { record.stop(signal: SIGINT) }
        let url = try await Self.viewURL(record)
        let webPort = try #require(URLAuthority(String(url.dropFirst(7).prefix { $0 != "/" })).port)
        let proxy = "http://127.0.0.1:\(port)"
        for target in [url, url.replacingOccurrences(of: "127.0.0.1", with: "localhost")] {
            let through = try runCommand(
                try Paths.tool("curl"), ["-s", "--noproxy", "", "-w", "\n%{http_code}", "-x", proxy, target])
            #expect(through.text.hasSuffix("403") && through.text.contains("live web view"), "\(through.text)")
        }
        let tunnel = try runCommand(
            try Paths.tool("curl"),
            [
                "-s", "--noproxy", "", "-p", "-x", proxy, "-o", "/dev/null", "-w", "%{http_connect}",
                "http://127.0.0.1:\(webPort)/",
            ])
        #expect(tunnel.text == "403", "CONNECT to the view: \(tunnel.text)")
        record.stop(signal: SIGINT)
        let capture = try RecordedCapture(path: dir + "/s.rtap")
        let refusals = capture.events.compactMap { event -> String? in
            if case .error(let e) = event, e.kind == .refused { return e.message }
            return nil
        }
        #expect(refusals.count == 3 && refusals.allSatisfy { $0.contains("live web view") }, "\(refusals)")
    }
}
