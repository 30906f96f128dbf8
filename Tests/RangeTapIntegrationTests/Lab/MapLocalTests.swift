import Foundation
import RangeTapCore
import RangeTapMedia
import RangeTapProxy
import RangeTapTestSupport
import Testing

/// `record --map` (Map Local) against real peers: the mapped answers equal nginx's for the same
/// file header by header and byte by byte (curl: ranges, multi-range, 416, If-Range, HEAD); a
/// player (ffmpeg, then Chromium over intercepted HTTP/2) plays a mapped MP4 whose host does not
/// exist, every range it asked answered byte-exact from the file; the capture marks them mapped.
@Suite(.serialized)
struct MapLocalTests {
    /// One response as curl saw it.
    struct Seen {
        var status: Int
        var fields: [String: String]
        var body: Data
    }

    /// curl `args` to `url`, through `proxy` when given.
    static func fetch(_ url: String, _ args: [String], proxy: String? = nil) throws -> Seen {
        let dir = Paths.temporaryDirectory("map-curl")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let r = try runCommand(
            try Paths.tool("curl"),
            ["-sS", "-D", dir + "/head", "-o", dir + "/body"] + (proxy.map { ["-x", $0] } ?? []) + args + [url])
        guard r.status == 0 else { throw TestFailure("curl \(args) \(url): \(r.stderr)") }
        let head = try String(contentsOfFile: dir + "/head", encoding: .utf8).components(separatedBy: "\r\n")
        let status = Int(head.first?.split(separator: " ").dropFirst().first ?? "") ?? 0
        var fields: [String: String] = [:]
        for line in head.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            fields[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        let body = (try? Data(contentsOf: URL(fileURLWithPath: dir + "/body"))) ?? Data()
        return Seen(status: status, fields: fields, body: body)
    }

    /// The parts of a multipart/byteranges body: each Content-Range and its bytes.
    static func parts(_ seen: Seen) throws -> [String] {
        let boundary = try #require(MultipartByteranges.boundary(contentType: seen.fields["content-type"] ?? ""))
        let parsed = try MultipartByteranges.parse(Array(seen.body), boundary: boundary).get()
        return parsed.parts.map { "\($0.contentRange ?? "?") \(SHA256Hasher.hex(Data($0.body)))" }
    }

    @Test(.timeLimit(.minutes(3)))
    func mappedAnswersEqualNginxsForTheSameFile() async throws {
        let media = try Media.directory()
        let www = Paths.temporaryDirectory("map-www")
        try FileManager.default.copyItem(atPath: media + "/moov-at-end.mp4", toPath: www + "/v.mp4")
        let nginx = try NginxServer(root: www)
        defer { nginx.stop() }
        let file = www + "/v.mp4"
        let proxy = try await ProxyHarness { config in
            config.mapRules = [
                try! MapRule(parsing: "path=/v.mp4,file=\(file)"),
                try! MapRule(parsing: "host=media.invalid,path=/d/*,dir=\(www)"),
            ]
        }
        let direct = nginx.url("v.mp4")
        let etag = try Self.fetch(direct, ["-I"]).fields["etag"] ?? "?"
        let cases: [[String]] = [
            [], ["-r", "100-199"], ["-r", "0-9,20-29,1000-1099"], ["-r", "99999999-"], ["-r", "-500"],
            ["-r", "3000000-"], ["-r", "0-99", "-H", "If-Range: \(etag)"], ["-r", "0-99", "-H", "If-Range: \"nope\""],
            ["-I"], ["-I", "-r", "0-99"],
        ]
        for args in cases {
            var want = try Self.fetch(direct, args)
            let head = args.contains("-I")
            if head && args.contains("-r") {
                // nginx answers a HEAD with Range 206; RFC 9110 §14.2 defines Range for GET only
                // and says to ignore it on other methods: rangetap answers the whole head (200).
                #expect(want.status == 206, "nginx's known deviation")
                want = try Self.fetch(direct, ["-I"])
            }
            for url in [direct, "http://media.invalid/d/v.mp4"] {
                let got = try Self.fetch(url, args, proxy: proxy.url)
                let what = "\(args) \(url)"
                #expect(got.status == want.status, "\(what): \(got.status), nginx \(want.status)")
                let multipart = want.fields["content-type"]?.hasPrefix("multipart/byteranges") == true
                var compared = ["content-range", "etag", "last-modified"]
                // nginx's 416 body is its HTML page, and a multipart body's length depends on the boundary.
                if want.status != 416 && !multipart { compared += ["content-type", "content-length"] }
                for name in compared {
                    #expect(
                        got.fields[name] == want.fields[name],
                        "\(what) \(name): \(got.fields[name] ?? "none"), nginx \(want.fields[name] ?? "none")")
                }
                if let ar = want.fields["accept-ranges"] { #expect(got.fields["accept-ranges"] == ar, "\(what)") }
                // Beyond nginx's: Accept-Ranges on every answer (nginx sends it on 200s only).
                let extra = Set(got.fields.keys).subtracting(want.fields.keys).subtracting(["accept-ranges"])
                #expect(extra.isEmpty, "\(what): headers nginx does not send: \(extra)")
                let missing = Set(want.fields.keys).subtracting(got.fields.keys).subtracting(["server", "connection"])
                #expect(missing.isEmpty, "\(what): nginx's headers missing: \(missing)")
                if multipart {
                    let (mine, nginxs) = (try Self.parts(got), try Self.parts(want))
                    #expect(mine == nginxs, "\(what)")
                } else if want.status != 416 && !head {
                    #expect(got.body == want.body, "\(what): \(got.body.count) B, nginx \(want.body.count) B")
                }
            }
        }
        // A path the directory does not hold, and one that climbs out of it: 404, never forwarded.
        for path in ["/d/missing.mp4", "/d/%2e%2e/etc/passwd", "/d/../d/../../etc/passwd"] {
            let seen = try Self.fetch("http://media.invalid" + path, ["--path-as-is"], proxy: proxy.url)
            #expect(seen.status == 404, "\(path): \(seen.status)")
            #expect(!String(decoding: seen.body, as: UTF8.self).contains("root:"), "\(path)")
        }
        let capture = try await proxy.stopAndRead()
        // nginx saw only the direct requests: the -I that read the ETag, one per case, and the
        // plain HEAD the HEAD-with-Range case is compared with.
        #expect(nginx.accessLog().count == cases.count + 2, "\(nginx.accessLog())")
        #expect(capture.requests.count == cases.count * 2 + 3)
        #expect(capture.requests.allSatisfy { $0.mapRule != nil }, "every proxied request is marked mapped")
        let text = try runCommand(Paths.rangetap, ["inspect", proxy.capturePath, "--color", "never"])
        #expect(text.text.contains("MAPPED path=/v.mp4,file=\(file)"), "\(text.text)")
        let analysis = try CaptureAnalysis.analyze(path: proxy.capturePath)
        #expect(
            analysis.allFindings.allSatisfy { $0.injected },
            "no finding blames an origin: \(analysis.allFindings.filter { !$0.injected }.map(\.code))")
    }

    /// Checks that every body byte the capture holds for `records` is the file's at its offset.
    static func expectByteExact(_ capture: RecordedCapture, file: Data) throws -> Int {
        var checked = 0
        for r in capture.requests where r.status == 206 || r.status == 200 {
            let body = try capture.body(of: r)
            guard let first = r.chunks.first?.resourceOffset, !body.isEmpty else { continue }
            let start = Int(first)
            #expect(
                SHA256Hasher.hex(body) == SHA256Hasher.hex(file[start..<start + body.count]),
                "#\(r.id) \(r.requestRange ?? "-"): bytes \(start)-\(start + body.count - 1) differ from the file")
            checked += 1
        }
        return checked
    }

    @Test(.timeLimit(.minutes(3)))
    func ffmpegPlaysAMappedMP4WhoseHostDoesNotExist() async throws {
        let media = try Media.directory()
        let file = media + "/moov-at-end.mp4"
        let proxy = try await ProxyHarness { $0.mapRules = [try! MapRule(parsing: "host=media.invalid,file=\(file)")] }
        let ff = try runCommand(
            try Paths.tool("ffmpeg"),
            ["-v", "error", "-http_proxy", proxy.url, "-i", "http://media.invalid/clip.mp4", "-f", "null", "-"],
            timeout: 120)
        let capture = try await proxy.stopAndRead()
        #expect(ff.status == 0, "ffmpeg: \(ff.stderr)")
        #expect(capture.requests.count >= 2, "moov at end: ffmpeg reads the start, then seeks to the index")
        #expect(capture.requests.contains { ($0.requestRange ?? "").hasPrefix("bytes=") && $0.status == 206 })
        let data = try Data(contentsOf: URL(fileURLWithPath: file))
        #expect(try Self.expectByteExact(capture, file: data) == capture.requests.filter { $0.bytesSent > 0 }.count)
        #expect(capture.requests.allSatisfy { $0.mapRule == "host=media.invalid,file=\(file)" })
        // One vocabulary: a mapped answer's bytes are served by rangetap, none received from an origin.
        #expect(capture.requests.allSatisfy { $0.bytesReceived == 0 && ($0.bytesServed ?? 0) > 0 })
        let analysis = try MediaAnalysis.analyze(path: proxy.capturePath)
        #expect(analysis.exchanges.contains { $0.media?.note == "moov at end" }, "the index fetch is mapped to media")
    }

    @Test(.timeLimit(.minutes(4)))
    func chromiumPlaysAndSeeksAMappedMP4OverInterceptedHTTP2() async throws {
        let media = try Media.directory()
        let file = media + "/moov-at-end.mp4"
        let www = Paths.temporaryDirectory("map-page")
        try FileManager.default.copyItem(
            atPath: Paths.root + "/Tests/Clients/chromium_seek_page.html", toPath: www + "/page.html")
        let tls = try TestTLS.shared()
        let nginx = try NginxServer(
            root: www, extraServerConfig: "types { text/html html; } add_header Cache-Control no-store;",
            tls: (certificate: tls.certificate, key: tls.key), http2: true)
        defer { nginx.stop() }
        let proxy = try await tls.interceptingProxy {
            $0.mapRules = [try! MapRule(parsing: "path=/video.mp4,file=\(file)")]
        }
        let ca = try #require(proxy.caCertificate)
        let url = "https://127.0.0.1:\(nginx.port)/page.html?src=video.mp4&hold=1&forward=0.7&back=0.2"
        let result = try runCommand(
            "/bin/bash",
            [
                Paths.root + "/Tests/Clients/chromium_play.sh", "--ca", ca, "--proxy", "127.0.0.1:\(proxy.port)",
                "--url",
                url, "--timeout", "90",
            ], timeout: 150)
        let capture = try await proxy.stopAndRead()
        #expect(result.status == 0, "chromium: \(result.text) \(result.stderr)")
        let video = capture.requests.filter { ($0.url ?? "").hasSuffix("/video.mp4") }
        #expect(video.count >= 2, "Chromium fetches the video by ranges")
        #expect(video.allSatisfy { $0.mapRule != nil && $0.stream != nil }, "mapped, on HTTP/2 streams")
        #expect(!nginx.accessLog().contains { $0.contains("/video.mp4") }, "the origin never saw the video")
        let data = try Data(contentsOf: URL(fileURLWithPath: file))
        for r in video where r.bytesSent > 0 && r.outcome == .complete {
            let body = try capture.body(of: r)
            let start = Int(try #require(r.chunks.first?.resourceOffset))
            #expect(body == data[start..<start + body.count], "#\(r.id) \(r.requestRange ?? "-")")
        }
    }

    @Test(.timeLimit(.minutes(2)))
    func aCaptureAnswersWithWhatItRecordedAndNothingElse() async throws {
        let media = try Media.directory()
        let www = Paths.temporaryDirectory("map-capture")
        try FileManager.default.copyItem(atPath: media + "/faststart.mp4", toPath: www + "/v.mp4")
        let data = try Data(contentsOf: URL(fileURLWithPath: www + "/v.mp4"))
        let nginx = try NginxServer(root: www)
        defer { nginx.stop() }
        let recorder = try await ProxyHarness()
        for range in ["0-99999", "200000-299999"] {
            _ = try Self.fetch(nginx.url("v.mp4"), ["-r", range], proxy: recorder.url)
        }
        _ = try await recorder.stopAndRead()
        let rule = "host=media.invalid,capture=\(recorder.capturePath)"
        let proxy = try await ProxyHarness { $0.mapRules = [try! MapRule(parsing: rule)] }
        let piece = try Self.fetch("http://media.invalid/v.mp4", ["-r", "1000-1999"], proxy: proxy.url)
        #expect(piece.status == 206)
        #expect(piece.body == data[1000..<2000])
        let two = try Self.fetch("http://media.invalid/v.mp4", ["-r", "0-9,200000-200009"], proxy: proxy.url)
        #expect(two.status == 206)
        let parts = try Self.parts(two)
        #expect(
            parts == [
                "bytes 0-9/\(data.count) \(SHA256Hasher.hex(data[0..<10]))",
                "bytes 200000-200009/\(data.count) \(SHA256Hasher.hex(data[200_000..<200_010]))",
            ])
        // Bytes the capture never held: 416, not bytes made up.
        let gap = try Self.fetch("http://media.invalid/v.mp4", ["-r", "150000-150099"], proxy: proxy.url)
        #expect(gap.status == 416)
        #expect(String(decoding: gap.body, as: UTF8.self).contains("were not all captured"))
        let none = try Self.fetch("http://media.invalid/other.mp4", [], proxy: proxy.url)
        #expect(none.status == 404)
        #expect(String(decoding: none.body, as: UTF8.self).contains("has no resource /other.mp4"))
        let capture = try await proxy.stopAndRead()
        #expect(capture.requests.allSatisfy { $0.mapRule == rule })
        // A capture= source that cannot be read stops the start, naming the rule.
        let empty = Paths.temporaryDirectory("map-bad") + "/x.rtap"
        try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: true)
        try Data("{}\n".utf8).write(to: URL(fileURLWithPath: empty + "/events.jsonl"))
        let refused = try runCommand(
            Paths.rangetap,
            [
                "record", "--listen", "127.0.0.1:0", "-o", Paths.temporaryDirectory("map-bad") + "/o.rtap", "--map",
                "capture=\(empty)",
            ])
        #expect(refused.status != 0)
        #expect(refused.stderr.contains("--map 'capture=\(empty)'"), "\(refused.stderr)")
    }

    /// `--shape` paces a mapped answer as any response: the shaped client's progress is recorded
    /// and never runs faster than the link (a lower bound on time only: a slow machine cannot fail it).
    @Test(.timeLimit(.minutes(1)))
    func aMappedAnswerIsPacedByTheShapedLink() async throws {
        let www = Paths.temporaryDirectory("map-shape")
        let file = www + "/one.bin"
        try Data(repeating: 0x5A, count: 1_000_000).write(to: URL(fileURLWithPath: file))
        let proxy = try await ProxyHarness { config in
            config.mapRules = [try! MapRule(parsing: "host=media.invalid,file=\(file)")]
            config.shape = try! ShapeSpec(parsing: "rate=8mbit")
        }
        let seen = try Self.fetch("http://media.invalid/one.bin", [], proxy: proxy.url)
        #expect(seen.body.count == 1_000_000)
        let capture = try await proxy.stopAndRead()
        let r = try #require(capture.requests.first)
        let deliveries = r.deliveries
        #expect(deliveries.last?.bytes == 1_000_000, "the shaped client's progress is recorded")
        let first = try #require(r.responseAt)
        let last = try #require(deliveries.last?.t)
        let seconds = Double(last - first) / 1e9
        // 8 Mbit/s carries 1 MB in 1.0 s; allow the token bucket's burst.
        #expect(seconds >= 0.8, "1 MB over an 8 Mbit/s link took \(seconds) s")
    }
}
