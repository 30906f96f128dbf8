import Foundation
import RangeTapCore
import RangeTapProxy
import RangeTapTestSupport
import Testing

/// `record --fault`: each action against nginx with curl, over plain HTTP and inside an
/// intercepted HTTPS tunnel. What the client received (bytes, status, header names as spelled)
/// is checked on curl's side; the capture must keep the origin's truth beside a `fault` event.
@Suite(.serialized)
struct PlayerLabFaultTests {
    let dir: String
    let file: Data
    let origins: SchemeOrigins

    init() throws {
        dir = Paths.temporaryDirectory("lab-www")
        var bytes = [UInt8](repeating: 0, count: 1 << 20)
        var x: UInt32 = 0x9E37_79B9
        for i in bytes.indices {
            x = x &* 1_664_525 &+ 1_013_904_223
            bytes[i] = UInt8(truncatingIfNeeded: x >> 24)
        }
        file = Data(bytes)
        try file.write(to: URL(fileURLWithPath: dir + "/seg.bin"))
        origins = try SchemeOrigins(root: dir)
    }

    func curl(_ args: [String]) throws -> CommandResult {
        try runCommand(try Paths.tool("curl"), ["-s", "--noproxy", ""] + args)
    }

    func proxy(_ scheme: Scheme, rules: [String]) async throws -> ProxyHarness {
        let parsed = try rules.map { try FaultRule(parsing: $0) }
        let configure: (inout ProxyConfiguration) -> Void = { $0.faultRules = parsed }
        return scheme == .https ? try await origins.proxy(configure) : try await ProxyHarness(configure)
    }

    func faults(_ capture: RecordedCapture) -> [FaultEvent] {
        capture.events("fault").compactMap { if case .fault(let f) = $0 { f } else { nil } }
    }

    /// Requests nginx served for `path`.
    func originRequests(_ scheme: Scheme, _ path: String) -> Int {
        origins.server(scheme).accessLog().filter { $0.contains(" \(path) ") }.count
    }

    @Test(arguments: Scheme.allCases) func statusAnswersTheNthRequestWithoutAskingTheOrigin(
        _ scheme: Scheme
    ) async throws {
        let proxy = try await proxy(scheme, rules: ["path=/seg.bin,nth=2,status=503"])
        var codes: [String] = []
        var sizes: [Int64] = []
        for _ in 0..<3 {
            let answer = try curl(
                ["-x", proxy.url] + proxy.curlTrust + [
                    "-o", "/dev/null", "-w", "%{http_code} %{size_download}", origins.url(scheme, "seg.bin"),
                ]
            ).text.split(separator: " ")
            codes.append(answer.first.map(String.init) ?? "")
            sizes.append(answer.last.flatMap { Int64($0) } ?? -1)
        }
        #expect(codes == ["200", "503", "200"])
        let capture = try await proxy.stopAndRead()
        #expect(originRequests(scheme, "/seg.bin") == 2)
        let f = faults(capture)
        #expect(f.count == 1 && f.first?.action == "status" && f.first?.rule == "path=/seg.bin,nth=2,status=503")
        let injected = capture.requests.first { $0.id == f.first?.exchange }
        #expect(injected?.status == 503 && injected?.injected == true)
        #expect(capture.requests.filter { !$0.injected }.allSatisfy { $0.status == 200 })

        // What inspect says of the answer is what curl got: rangetap served its own body, the
        // origin sent nothing, and the Content-Length it wrote is kept (no false mismatch).
        let r = try runCommand(Paths.rangetap, ["inspect", proxy.capturePath, "--json"], timeout: 60)
        #expect(r.status == 0, "\(r.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: r.stdout) as? [String: Any])
        let exchanges = try #require(json["exchanges"] as? [[String: Any]])
        let answer = try #require(exchanges.first { $0["status"] as? Int == 503 })
        #expect(sizes[1] > 0)
        #expect((answer["bytesServed"] as? NSNumber)?.int64Value == sizes[1], "\(answer)")
        #expect((answer["bytesDelivered"] as? NSNumber)?.int64Value == sizes[1], "\(answer)")
        #expect((answer["bytesReceived"] as? NSNumber)?.int64Value == 0, "\(answer)")
        let codesFound = ((answer["findings"] as? [[String: Any]]) ?? []).compactMap { $0["code"] as? String }
        #expect(!codesFound.contains("content-length-mismatch"), "\(codesFound)")
    }

    @Test(arguments: Scheme.allCases) func headerCaseRespellsWhatTheClientSeesAndTheCaptureKeepsTheOrigins(
        _ scheme: Scheme
    ) async throws {
        let proxy = try await proxy(scheme, rules: ["path=*.bin,header-case=lower"])
        let r = try curl(
            ["-x", proxy.url] + proxy.curlTrust + [
                "-D", "-", "-o", "/dev/null", "-r", "0-99", origins.url(scheme, "seg.bin"),
            ])
        // Field names of every head curl printed (the tunnel's 200, then the response), status lines left out.
        let names = r.text.split(separator: "\r\n").filter { !$0.hasPrefix("HTTP/") }.compactMap {
            $0.split(separator: ":").first.map(String.init)
        }
        #expect(names.contains("content-range") && names.contains("content-length"), "\(names)")
        #expect(names.allSatisfy { $0 == $0.lowercased() }, "\(names)")
        let capture = try await proxy.stopAndRead()
        let ex = try #require(capture.requests.first)
        #expect(ex.responseLines.contains { $0.name == "Content-Range" })
        #expect(ex.clientResponseLines.contains { $0.name == "content-range" })
        #expect(faults(capture).first?.action == "header-case")
    }

    @Test(arguments: Scheme.allCases) func resetAfterGivesTheClientExactlyThatManyBytesThenAReset(
        _ scheme: Scheme
    ) async throws {
        let proxy = try await proxy(scheme, rules: ["path=/seg.bin,reset-after=100000"])
        let out = Paths.temporaryDirectory("lab-out") + "/seg.bin"
        let r = try curl(["-x", proxy.url] + proxy.curlTrust + ["-o", out, origins.url(scheme, "seg.bin")])
        #expect(r.status == 56, "curl: \(r.stderr)")  // failure receiving data: the reset
        #expect(try Data(contentsOf: URL(fileURLWithPath: out)) == file.prefix(100_000))
        let capture = try await proxy.stopAndRead()
        let ex = try #require(capture.requests.first)
        guard case .failed(let message) = ex.outcome else {
            Issue.record("outcome \(ex.outcome)")
            return
        }
        #expect(message.contains("reset the connection after 100000 body bytes"))
        #expect(capture.events("cancel").isEmpty)
        #expect(faults(capture).map(\.action) == ["reset-after"])

        // inspect and export say what curl got, and blame the rule, not the origin (issue 40).
        let inspect = try runCommand(Paths.rangetap, ["inspect", proxy.capturePath, "--json"], timeout: 60)
        #expect(inspect.status == 0, "\(inspect.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: inspect.stdout) as? [String: Any])
        let exchange = try #require((json["exchanges"] as? [[String: Any]])?.first { $0["method"] as? String == "GET" })
        #expect((exchange["bytesDelivered"] as? NSNumber)?.int64Value == 100_000, "\(exchange)")
        let findings = (exchange["findings"] as? [[String: Any]]) ?? []
        #expect(!findings.contains { $0["code"] as? String == "closed-mid-response" }, "\(findings)")
        let cut = try #require(findings.first { $0["code"] as? String == "truncated" }, "\(findings)")
        #expect(cut["injected"] as? Bool == true)
        #expect((cut["message"] as? String)?.contains("the client got 100000 body bytes") == true, "\(cut)")
        let rows = Paths.temporaryDirectory("lab-rows") + "/rows.jsonl"
        let export = try runCommand(Paths.rangetap, ["export", proxy.capturePath, "--exchanges", rows], timeout: 60)
        #expect(export.status == 0, "\(export.stderr)")
        let row = try String(contentsOfFile: rows, encoding: .utf8).split(separator: "\n")
            .compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
            .first { $0["method"] as? String == "GET" }
        #expect((row?["bytesDelivered"] as? NSNumber)?.int64Value == 100_000, "\(row ?? [:])")
    }

    /// A client slower than the origin: most of the bytes before the cut still sit in the
    /// proxy's send queue when their write completes, and a reset (SO_LINGER 0) then would throw
    /// them away. The reset waits for the client's TCP to acknowledge them.
    @Test func resetAfterWaitsForASlowClientToGetThoseBytes() async throws {
        let proxy = try await proxy(.http, rules: ["path=/seg.bin,reset-after=300000"])
        // A short read timeout: if the reset threw bytes away, the test fails in seconds.
        let client = try RawClient(port: proxy.port, receiveBuffer: 8192, timeoutSeconds: 2)
        try client.send("GET \(origins.url(.http, "seg.bin")) HTTP/1.1\r\nHost: x\r\n\r\n")
        let head = try client.readHead()
        #expect(head.latin1.hasPrefix("HTTP/1.1 200"))
        // Read slowly, 16 KiB at a time: the window stays small, the proxy's queue long.
        var body: [UInt8] = []
        for _ in 0..<40 {
            usleep(2000)
            guard let part = try? client.read(count: 16384) else { break }
            body += part
            if part.count < 16384 { break }
        }
        client.close()
        #expect(body.count == 300_000, "the client got \(body.count) bytes before the reset")
        #expect(Data(body) == file.prefix(300_000))
        let capture = try await proxy.stopAndRead()
        #expect(faults(capture).map(\.action) == ["reset-after"])
    }

    @Test(arguments: Scheme.allCases) func truncateAfterClosesCleanlyAfterThatManyBytes(_ scheme: Scheme) async throws {
        let proxy = try await proxy(scheme, rules: ["truncate-after=200000"])
        let out = Paths.temporaryDirectory("lab-out") + "/seg.bin"
        let r = try curl(["-x", proxy.url] + proxy.curlTrust + ["-o", out, origins.url(scheme, "seg.bin")])
        #expect(r.status == 18, "curl: \(r.stderr)")  // partial file: fewer bytes than Content-Length
        #expect(try Data(contentsOf: URL(fileURLWithPath: out)) == file.prefix(200_000))
        let capture = try await proxy.stopAndRead()
        #expect(faults(capture).map(\.action) == ["truncate-after"])
    }

    /// A client that fetches again after an `off-by-one` answer is answering the fault: its
    /// refetch (a warn: 512 KiB again) is the rule's, so `inspect --fail-on warn` passes; the
    /// same refetch without the rule fails it (issue 40).
    @Test func aRefetchAfterAFaultIsTheRulesAndFailOnIgnoresIt() async throws {
        for rules in [["path=/seg.bin,nth=1,off-by-one"], []] {
            let proxy = try await proxy(.http, rules: rules)
            for _ in 0..<2 {
                let r = try curl(["-x", proxy.url, "-r", "0-524287", "-o", "/dev/null", origins.url(.http, "seg.bin")])
                #expect(r.status == 0, "curl: \(r.stderr)")
            }
            _ = try await proxy.stopAndRead()
            let inspect = try runCommand(
                Paths.rangetap, ["inspect", proxy.capturePath, "--json", "--fail-on", "warn"], timeout: 60)
            let json = try #require(try JSONSerialization.jsonObject(with: inspect.stdout) as? [String: Any])
            let second = try #require((json["exchanges"] as? [[String: Any]])?.last)
            let refetch = try #require(
                ((second["findings"] as? [[String: Any]]) ?? []).first { $0["code"] as? String == "refetched" },
                "\(second)")
            #expect(refetch["severity"] as? String == "warn")
            if rules.isEmpty {
                #expect(refetch["injected"] == nil || refetch["injected"] as? Bool == false, "\(refetch)")
                #expect(inspect.status == 1, "the client's own refetch fails --fail-on warn")
            } else {
                #expect(refetch["injected"] as? Bool == true && (refetch["rules"] as? [String]) == rules, "\(refetch)")
                #expect(inspect.status == 0, "the rule's consequence does not fail --fail-on warn: \(inspect.stderr)")
            }
        }
    }

    @Test(arguments: Scheme.allCases) func offByOneShiftsContentRangeAndKeepsTheBody(_ scheme: Scheme) async throws {
        let proxy = try await proxy(scheme, rules: ["range=yes,off-by-one"])
        let out = Paths.temporaryDirectory("lab-out") + "/part"
        let r = try curl(
            ["-x", proxy.url] + proxy.curlTrust + [
                "-D", "-", "-o", out, "-r", "100-199", origins.url(scheme, "seg.bin"),
            ])
        #expect(r.text.contains("Content-Range: bytes 101-200/1048576"), "\(r.text)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: out)) == file[100..<200])
        let capture = try await proxy.stopAndRead()
        let ex = try #require(capture.requests.first)
        #expect(ex.contentRange == "bytes 100-199/1048576")
        #expect(faults(capture).first?.lines?.contains { $0.raw == "Content-Range: bytes 101-200/1048576\r\n" } == true)
    }

    @Test(arguments: Scheme.allCases) func ignoreRangeAsksTheOriginForTheWholeResource(_ scheme: Scheme) async throws {
        let proxy = try await proxy(scheme, rules: ["ignore-range"])
        let r = try curl(
            ["-x", proxy.url] + proxy.curlTrust + [
                "-o", "/dev/null", "-w", "%{http_code} %{size_download}", "-r", "100-199",
                origins.url(scheme, "seg.bin"),
            ])
        #expect(r.text == "200 1048576")
        let capture = try await proxy.stopAndRead()
        #expect(
            origins.server(scheme).accessLog().last?.hasSuffix("\"-\"") == true, "\(origins.server(scheme).accessLog())"
        )
        let ex = try #require(capture.requests.first)
        #expect(ex.requestRange == "bytes=100-199" && ex.status == 200 && ex.injected)
    }

    @Test func delayHeadAndStallHoldTheResponse() async throws {
        let proxy = try await proxy(
            .http, rules: ["method=GET,range=yes,delay-head=400ms", "range=no,stall-after=300000,for=700ms"])
        let head = try curl([
            "-x", proxy.url, "-o", "/dev/null", "-w", "%{time_starttransfer}", "-r", "0-999",
            origins.url(.http, "seg.bin"),
        ])
        #expect((Double(head.text) ?? 0) >= 0.38, "ttfb \(head.text)")
        let out = Paths.temporaryDirectory("lab-out") + "/seg.bin"
        let stall = try curl(["-x", proxy.url, "-o", out, "-w", "%{time_total}", origins.url(.http, "seg.bin")])
        #expect((Double(stall.text) ?? 0) >= 0.68, "total \(stall.text)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: out)) == file)
        let capture = try await proxy.stopAndRead()
        #expect(faults(capture).map(\.action) == ["delay-head", "stall-after"])
        #expect(capture.requests.allSatisfy { $0.outcome == .complete })
    }

    @Test func anInvalidRuleStopsRecordBeforeItListens() throws {
        let capture = Paths.temporaryDirectory("lab-cli") + "/c.rtap"
        let r = try runCommand(
            Paths.rangetap, ["record", "--listen", "127.0.0.1:0", "-o", capture, "--fault", "path=/a,explode=yes"],
            timeout: 30)
        #expect(r.status == 2)
        #expect(r.stderr.contains("--fault") && r.stderr.contains("explode"), "\(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: capture))
    }
}

/// The seeds' AVPlayer case, produced on purpose: `header-case=lower` while `rangetap play`
/// fetches like AVPlayer; inspect reports the case findings and marks them injected, so the
/// report does not blame nginx.
@Suite(.serialized)
struct PlayerLabInspectTests {
    @Test func lowerCaseHeadersFromARuleAreReportedAsInjected() async throws {
        let nginx = try NginxServer(root: try Media.directory())
        defer { nginx.stop() }
        let proxy = try await ProxyHarness { $0.faultRules = [try! FaultRule(parsing: "path=*.mp4,header-case=lower")] }
        let play = try runCommand(
            Paths.rangetap, ["play", nginx.url("faststart.mp4"), "--pattern", "avplayer", "--proxy", proxy.url],
            timeout: 90)
        #expect(play.status == 0, "\(play.stderr)")
        _ = try await proxy.stopAndRead()
        let r = try runCommand(Paths.rangetap, ["inspect", proxy.capturePath, "--json"], timeout: 60)
        #expect(r.status == 0, "\(r.stderr)")
        let json = try #require(try JSONSerialization.jsonObject(with: r.stdout) as? [String: Any])
        let exchanges = try #require(json["exchanges"] as? [[String: Any]])
        let findings = exchanges.flatMap { ($0["findings"] as? [[String: Any]]) ?? [] }
        let caseFindings = findings.filter { $0["code"] as? String == "header-case" }
        #expect(!caseFindings.isEmpty, "\(findings.map { $0["code"] ?? "?" })")
        #expect(
            caseFindings.allSatisfy {
                $0["injected"] as? Bool == true && ($0["rules"] as? [String]) == ["path=*.mp4,header-case=lower"]
            })
        #expect(
            exchanges.allSatisfy { (($0["faults"] as? [[String: Any]])?.first?["action"] as? String) == "header-case" })
        let text = try runCommand(Paths.rangetap, ["inspect", proxy.capturePath], timeout: 60)
        #expect(text.text.contains("[injected"), "\(text.text.suffix(800))")
    }
}
