import Foundation
import RangeTapCore
import RangeTapMedia
import RangeTapProxy
import RangeTapTestSupport
import Testing

/// HLS, DASH and progressive MP4 made by ffmpeg, served by nginx, played through the proxy by
/// ffmpeg (or fetched by curl in a player's order): every mapped exchange's media time is
/// checked against ffprobe's own packet timestamps for the bytes it fetched.
@Suite(.serialized)
struct MediaMappingTests {
    let streams: String
    let nginx: NginxServer

    init() throws {
        streams = try Media.streams()
        nginx = try NginxServer(root: streams)
    }

    /// One packet as ffprobe reads it from a file.
    struct Packet {
        var pts: Double
        var duration: Double
        var pos: Int64
        var size: Int64
        var end: Double { pts + duration }
    }

    /// The video packets of `file`, in file order.
    static func packets(_ file: String) throws -> [Packet] {
        let r = try runCommand(
            try Paths.tool("ffprobe"),
            [
                "-v", "error", "-select_streams", "v:0", "-show_entries", "packet=pts_time,duration_time,pos,size",
                "-of", "json", file,
            ])
        try #require(r.status == 0, "ffprobe \(file): \(r.stderr)")
        let json = try JSONSerialization.jsonObject(with: Data(r.text.utf8)) as? [String: Any]
        let list = try #require(json?["packets"] as? [[String: Any]])
        return list.compactMap { p in
            guard let pts = (p["pts_time"] as? String).flatMap(Double.init),
                let pos = (p["pos"] as? String).flatMap(Int64.init),
                let size = (p["size"] as? String).flatMap(Int64.init)
            else { return nil }
            return Packet(
                pts: pts, duration: (p["duration_time"] as? String).flatMap(Double.init) ?? 0, pos: pos, size: size)
        }
    }

    /// The media time ffprobe gives the video packets whose bytes overlap `bytes`.
    static func span(_ packets: [Packet], bytes: Range<Int64>) -> (start: Double, end: Double)? {
        let hit = packets.filter { $0.pos < bytes.upperBound && $0.pos + $0.size > bytes.lowerBound }
        guard let start = hit.map(\.pts).min(), let end = hit.map(\.end).max() else { return nil }
        return (start, end)
    }

    func analyze(_ proxy: ProxyHarness) async throws -> CaptureAnalysis {
        _ = try await proxy.stopAndRead()
        return try MediaAnalysis.analyze(path: proxy.capturePath)
    }

    func play(_ proxy: ProxyHarness, _ path: String, _ extra: [String] = []) throws {
        let r = try runCommand(
            try Paths.tool("ffmpeg"),
            ["-v", "error", "-http_proxy", proxy.url] + extra + ["-i", nginx.url(path), "-f", "null", "-"], timeout: 120
        )
        #expect(r.status == 0, "ffmpeg \(path): \(r.stderr)")
    }

    @Test func hlsByteRangesInOneFMP4FileMapToFFprobesPacketTimes() async throws {
        let proxy = try await ProxyHarness()
        try play(proxy, "hls-fmp4/index.m3u8")
        let a = try await analyze(proxy)
        let packets = try Self.packets(streams + "/hls-fmp4/media.mp4")
        let playlist = try #require(a.exchanges.first { $0.record.path.hasSuffix("index.m3u8") })
        #expect(playlist.media?.kind == .manifest && playlist.media?.format == "hls")
        let inits = a.exchanges.filter { $0.media?.kind == .initialization }
        #expect(inits.count == 1 && inits.first?.resourceSpan?.lowerBound == 0, "the EXT-X-MAP fetch")
        let segments = a.exchanges.filter { $0.media?.kind == .segment }
        #expect(
            segments.count == 6,
            "\(a.exchanges.map { ($0.record.requestRange ?? "-", $0.media.map(String.init(describing:)) ?? "-") })")
        for (i, e) in segments.enumerated() {
            let m = try #require(e.media)
            #expect(m.sequence == i && m.format == "hls" && m.rendition == "index.m3u8")
            let bytes = try #require(e.resourceSpan)
            let truth = try #require(Self.span(packets, bytes: bytes))
            #expect(
                abs(m.start! - truth.start) < 0.05 && abs(m.end! - truth.end) < 0.05,
                "segment \(i) \(bytes): mapped \(m.start!)-\(m.end!), ffprobe \(truth.start)-\(truth.end)")
        }
        #expect(
            !a.allFindings.contains { $0.code.hasPrefix("segment-") || $0.code == "media-manifest-invalid" },
            "\(a.allFindings.map(\.code))")
    }

    @Test func hlsMasterNamesTheRenditionAndTSSegmentsMapToFFprobesTimes() async throws {
        let proxy = try await ProxyHarness()
        try play(proxy, "hls-ts/master.m3u8")
        let a = try await analyze(proxy)
        #expect(a.exchanges.first { $0.record.path.hasSuffix("master.m3u8") }?.media?.note == "master")
        let segments = a.exchanges.filter { $0.media?.kind == .segment }
        #expect(segments.count >= 6)
        let base = try #require(try Self.packets(streams + "/hls-ts/v1_000.ts").first?.pts)
        for e in segments {
            let m = try #require(e.media)
            let file = String(e.record.path.split(separator: "/").last!)
            let rendition = try #require(m.rendition)
            #expect(rendition.contains(file.hasPrefix("v1") ? "640x360" : "320x180"), "\(file): \(rendition)")
            #expect(m.sequence == Int(file.dropFirst(3).prefix(3)), "\(file) is segment \(m.sequence ?? -1)")
            let packets = try Self.packets(streams + "/hls-ts/" + file)
            let start = try #require(packets.map(\.pts).min()) - base
            #expect(abs(m.start! - start) < 0.1, "\(file): mapped \(m.start!), ffprobe \(start)")
        }
    }

    /// ffmpeg seeking to 7 s in an HLS stream: it probes the first segments, then jumps to the
    /// one holding 7 s (segment 3, 6-8 s) and reads on; segment 2 is never fetched. The mapping
    /// shows it, and the jump is a `segment-out-of-order` finding.
    @Test func hlsSeekJumpsToTheSegmentHoldingTheSeekPoint() async throws {
        let proxy = try await ProxyHarness()
        try play(proxy, "hls-fmp4/index.m3u8", ["-ss", "7"])
        let a = try await analyze(proxy)
        let segments = a.exchanges.filter { $0.media?.kind == .segment }
        let sequences = segments.compactMap { $0.media?.sequence }
        #expect(!sequences.contains(2) && Array(sequences.suffix(3)) == [3, 4, 5], "\(sequences)")
        let jump = try #require(segments.first { $0.media?.sequence == 3 })
        #expect(jump.media?.start == 6 && jump.media?.end == 8)
        if sequences.first != 3 {
            #expect(jump.findings.contains { $0.code == "segment-out-of-order" }, "\(jump.findings.map(\.code))")
        }
    }

    @Test func dashTemplateSegmentsMapToTheirRepresentationAndFFprobesTimes() async throws {
        let proxy = try await ProxyHarness()
        try play(proxy, "dash/manifest.mpd")
        let a = try await analyze(proxy)
        #expect(a.exchanges.first { $0.record.path.hasSuffix(".mpd") }?.media?.format == "dash")
        let video = a.exchanges.filter { $0.record.path.contains("chunk-stream0") }
        #expect(video.count == 6)
        let dir = Paths.temporaryDirectory("dash")
        let initBytes = try Data(contentsOf: URL(fileURLWithPath: streams + "/dash/init-stream0.m4s"))
        for e in video {
            let m = try #require(e.media)
            let file = String(e.record.path.split(separator: "/").last!)
            #expect(
                m.kind == .segment && m.sequence == Int(file.dropFirst("chunk-stream0-".count).prefix(5)),
                "\(file): \(m)")
            #expect(m.rendition?.contains("640x360") == true, "\(m.rendition ?? "none")")
            // ffprobe reads a media segment after its init segment; its first pts is the tfdt.
            var joined = initBytes
            joined.append(try Data(contentsOf: URL(fileURLWithPath: streams + "/dash/" + file)))
            try joined.write(to: URL(fileURLWithPath: dir + "/" + file + ".mp4"))
            let packets = try Self.packets(dir + "/" + file + ".mp4")
            let start = try #require(packets.map(\.pts).min())
            let end = try #require(packets.map(\.end).max())
            #expect(
                abs(m.start! - start) < 0.05 && abs(m.end! - end) < 0.05,
                "\(file): mapped \(m.start!)-\(m.end!), ffprobe \(start)-\(end)")
        }
        #expect(
            a.exchanges.contains { $0.media?.kind == .initialization && $0.record.path.hasSuffix("init-stream0.m4s") })
    }

    /// ffmpeg seeking to 5 s in the DASH stream: it reads the first video segment (probing),
    /// then jumps to the one holding 5 s (number 3, 4-6 s) and reads on; segment 2 is never
    /// fetched, and every mapped segment names its number's time.
    @Test func dashSeekJumpsToTheSegmentHoldingTheSeekPoint() async throws {
        let proxy = try await ProxyHarness()
        try play(proxy, "dash/manifest.mpd", ["-ss", "5"])
        let a = try await analyze(proxy)
        let video = a.exchanges.filter { $0.record.path.contains("chunk-stream0") }
        let numbers = video.compactMap { $0.media?.sequence }
        #expect(!numbers.contains(2) && Array(numbers.suffix(4)) == [3, 4, 5, 6], "\(numbers)")
        for m in video.compactMap(\.media) {
            let n = try #require(m.sequence)
            #expect(m.start == Double(2 * (n - 1)) && m.end == Double(2 * n), "\(m)")
        }
        if numbers.first != 3 {
            let jump = try #require(video.first { $0.media?.sequence == 3 })
            #expect(jump.findings.contains { $0.code == "segment-out-of-order" }, "\(jump.findings.map(\.code))")
        }
    }

    /// A player in the manner of dash.js, by curl: the MPD, the init and index ranges, then each
    /// subsegment by range, for SegmentBase (sidx read from the captured bytes) and SegmentList.
    @Test(arguments: ["dash-base/manifest.mpd", "dash-single/manifest.mpd"])
    func dashByteRangesMapToFFprobesPacketTimes(_ manifest: String) async throws {
        let proxy = try await ProxyHarness()
        let dir = (manifest as NSString).deletingLastPathComponent
        let file = manifest.hasPrefix("dash-base") ? "video.mp4" : "manifest-stream0.mp4"
        let packets = try Self.packets(streams + "/" + dir + "/" + file)
        func fetch(_ path: String, _ range: String? = nil) throws {
            let r = try runCommand(
                try Paths.tool("curl"),
                ["-sf", "--noproxy", "", "-x", proxy.url, "-o", "/dev/null"] + (range.map { ["-r", $0] } ?? []) + [
                    nginx.url(path)
                ])
            #expect(r.status == 0, "curl \(path) \(range ?? ""): \(r.stderr)")
        }
        try fetch(manifest)
        // The ranges the MPD lists for the video representation (the audio one's come after
        // its BaseURL, manifest-stream1.mp4).
        let mpd = try String(contentsOfFile: streams + "/" + manifest, encoding: .utf8)
        var ranges: [String] = []
        // SegmentBase: the init and index ranges; SegmentList: the init range and each media range.
        for attribute in file == "video.mp4" ? ["range", "indexRange"] : ["range", "mediaRange"] {
            var rest = Substring(mpd)
            while let r = rest.range(of: " \(attribute)=\"") {
                let value = rest[r.upperBound...].prefix { $0 != "\"" }
                if !ranges.contains(String(value))
                    && (file != "manifest-stream0.mp4"
                        || mpd[..<r.lowerBound].components(separatedBy: "manifest-stream1").count == 1)
                {
                    ranges.append(String(value))
                }
                rest = rest[r.upperBound...]
            }
        }
        for r in ranges { try fetch(dir + "/" + file, r) }
        if file == "video.mp4" {
            // SegmentBase lists no media ranges: fetch the moof+mdat pairs the sidx points at, as a player does.
            let boxes = try Self.topLevelBoxes(streams + "/dash-base/video.mp4")
            for box in boxes where box.type == "moof" {
                let mdat = try #require(
                    boxes.first { $0.type == "mdat" && $0.range.lowerBound == box.range.upperBound })
                try fetch(dir + "/" + file, "\(box.range.lowerBound)-\(mdat.range.upperBound - 1)")
            }
        }
        let a = try await analyze(proxy)
        let segments = a.exchanges.filter { $0.media?.kind == .segment }
        #expect(
            segments.count == 6,
            "\(a.exchanges.map { ($0.record.requestRange ?? "-", $0.media.map(String.init(describing:)) ?? "-") })")
        for e in segments {
            let m = try #require(e.media)
            let bytes = try #require(e.resourceSpan)
            let truth = try #require(Self.span(packets, bytes: bytes))
            #expect(m.format == "dash" && m.rendition?.contains("640x360") == true)
            #expect(
                abs(m.start! - truth.start) < 0.05 && abs(m.end! - truth.end) < 0.05,
                "\(e.record.requestRange ?? ""): mapped \(m.start!)-\(m.end!), ffprobe \(truth.start)-\(truth.end)")
        }
        #expect(a.exchanges.contains { $0.media?.kind == .initialization })
    }

    /// LL-HLS: a playlist listing each segment in two parts (byte ranges of ffmpeg's single
    /// fMP4 file) and whole. A player fetching parts gets `part` spans with their segment's
    /// number and their own seconds; a whole-segment fetch is the segment.
    @Test func llHLSPartsMapToTheirSegmentAndTheirOwnTime() async throws {
        let single = try String(contentsOfFile: streams + "/hls-fmp4/index.m3u8", encoding: .utf8)
        var ranges: [(length: Int64, offset: Int64)] = []
        for line in single.split(separator: "\n") where line.hasPrefix("#EXT-X-BYTERANGE:") {
            let v = line.dropFirst("#EXT-X-BYTERANGE:".count).split(separator: "@")
            ranges.append((Int64(v[0])!, Int64(v[1])!))
        }
        try #require(ranges.count == 6)
        var ll =
            "#EXTM3U\n#EXT-X-VERSION:9\n#EXT-X-TARGETDURATION:2\n#EXT-X-PART-INF:PART-TARGET=1.0\n#EXT-X-MEDIA-SEQUENCE:0\n#EXT-X-MAP:URI=\"../hls-fmp4/media.mp4\",BYTERANGE=\"1360@0\"\n"
        for r in ranges {
            let half = r.length / 2
            ll +=
                "#EXT-X-PART:DURATION=1.0,URI=\"../hls-fmp4/media.mp4\",BYTERANGE=\"\(half)@\(r.offset)\",INDEPENDENT=YES\n"
            ll +=
                "#EXT-X-PART:DURATION=1.0,URI=\"../hls-fmp4/media.mp4\",BYTERANGE=\"\(r.length - half)@\(r.offset + half)\"\n"
            ll += "#EXTINF:2.0,\n#EXT-X-BYTERANGE:\(r.length)@\(r.offset)\n../hls-fmp4/media.mp4\n"
        }
        ll += "#EXT-X-ENDLIST\n"
        try FileManager.default.createDirectory(atPath: streams + "/ll", withIntermediateDirectories: true)
        try ll.write(toFile: streams + "/ll/index.m3u8", atomically: true, encoding: .utf8)
        let proxy = try await ProxyHarness()
        func fetch(_ path: String, _ first: Int64? = nil, _ length: Int64 = 0) throws {
            let range = first.map { ["-r", "\($0)-\($0 + length - 1)"] } ?? []
            let r = try runCommand(
                try Paths.tool("curl"),
                ["-sf", "--noproxy", "", "-x", proxy.url, "-o", "/dev/null"] + range + [nginx.url(path)])
            #expect(r.status == 0, "\(path): \(r.stderr)")
        }
        try fetch("ll/index.m3u8")
        let half = ranges[2].length / 2
        try fetch("hls-fmp4/media.mp4", ranges[2].offset, half)
        try fetch("hls-fmp4/media.mp4", ranges[2].offset + half, ranges[2].length - half)
        try fetch("hls-fmp4/media.mp4", ranges[3].offset, ranges[3].length)
        let a = try await analyze(proxy)
        let spans = a.exchanges.dropFirst().map { $0.media }
        #expect(spans.map { $0?.kind } == [.part, .part, .segment], "\(spans)")
        #expect(spans.map { $0?.sequence } == [2, 2, 3])
        #expect(spans.map { $0?.start } == [4, 5, 6] && spans.map { $0?.end } == [5, 6, 8], "\(spans)")
    }

    /// A live playlist reloaded: each copy lists a window that slid on, timed from its own first
    /// segment. Segment 3 keeps the time the first copy gave it, and later segments run on.
    @Test func aReloadedLivePlaylistKeepsEachSegmentsTime() async throws {
        let dir = streams + "/live"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        func window(from first: Int) -> String {
            var p = "#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:2\n#EXT-X-MEDIA-SEQUENCE:\(first)\n"
            for n in first..<first + 3 { p += "#EXTINF:2.0,\n../hls-ts/v0_\(String(format: "%03d", n)).ts\n" }
            return p
        }
        let proxy = try await ProxyHarness()
        func fetch(_ path: String) throws {
            let r = try runCommand(
                try Paths.tool("curl"), ["-sf", "--noproxy", "", "-x", proxy.url, "-o", "/dev/null", nginx.url(path)])
            #expect(r.status == 0, "\(path): \(r.stderr)")
        }
        try window(from: 1).write(toFile: dir + "/live.m3u8", atomically: true, encoding: .utf8)
        try fetch("live/live.m3u8")
        try fetch("hls-ts/v0_001.ts")
        try fetch("hls-ts/v0_002.ts")
        try window(from: 2).write(toFile: dir + "/live.m3u8", atomically: true, encoding: .utf8)
        try fetch("live/live.m3u8")
        try fetch("hls-ts/v0_003.ts")
        try window(from: 3).write(toFile: dir + "/live.m3u8", atomically: true, encoding: .utf8)
        try fetch("live/live.m3u8")
        try fetch("hls-ts/v0_004.ts")
        let a = try await analyze(proxy)
        let segments = a.exchanges.compactMap { $0.media }.filter { $0.kind == .segment }
        #expect(segments.map(\.sequence) == [1, 2, 3, 4])
        #expect(segments.map(\.start) == [0, 2, 4, 6] && segments.map(\.end) == [2, 4, 6, 8], "\(segments)")
        #expect(!a.allFindings.contains { $0.code == "segment-out-of-order" })
    }

    /// A playlist sent gzip-encoded is recorded as sent: the finding says why it is not mapped,
    /// instead of a parse error about the compressed bytes.
    @Test func aCompressedPlaylistIsNamedNotMisread() async throws {
        let port = try freePort()
        let origin = """
            import gzip, http.server
            class H(http.server.BaseHTTPRequestHandler):
                def do_GET(self):
                    body = gzip.compress(b"#EXTM3U\\n#EXTINF:2.0,\\nseg0.ts\\n#EXT-X-ENDLIST\\n")
                    self.send_response(200)
                    self.send_header("Content-Type", "application/vnd.apple.mpegurl")
                    self.send_header("Content-Encoding", "gzip")
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)
                def log_message(self, *a): pass
            http.server.HTTPServer(("127.0.0.1", \(port)), H).serve_forever()
            """
        let server = try TestProcess(try Paths.tool("python3"), ["-c", origin])
        defer { server.stop() }
        try waitForPort(port)
        let proxy = try await ProxyHarness()
        let r = try runCommand(
            try Paths.tool("curl"),
            [
                "-s", "--noproxy", "", "-x", proxy.url, "-o", "/dev/null", "-w", "%{http_code}",
                "http://127.0.0.1:\(port)/live.m3u8",
            ])
        #expect(r.text == "200")
        let a = try await analyze(proxy)
        let finding = try #require(a.allFindings.first { $0.code == "media-manifest-invalid" })
        #expect(
            finding.message.contains("Content-Encoding: gzip") && finding.message.contains("/live.m3u8"),
            "\(finding.message)")
        #expect(a.exchanges.first?.media == nil)
    }

    /// Top-level MP4 boxes of a file, read here by hand to know where a player would fetch.
    static func topLevelBoxes(_ path: String) throws -> [(type: String, range: Range<Int64>)] {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        var out: [(String, Range<Int64>)] = []
        var at = 0
        while at + 8 <= data.count {
            let size = data[at..<at + 4].reduce(0) { $0 << 8 | Int($1) }
            let type = String(decoding: data[at + 4..<at + 8], as: UTF8.self)
            guard size >= 8 else { break }
            out.append((type, Int64(at)..<Int64(at + size)))
            at += size
        }
        return out
    }

    @Test func progressiveMP4WithASeekNamesTheIndexFetchAndMapsRangesToFFprobesTimes() async throws {
        let media = try Media.directory()
        let origin = try NginxServer(root: media)
        let proxy = try await ProxyHarness { $0.clientSendBuffer = 16384 }
        let r = try runCommand(
            try Paths.tool("ffmpeg"),
            [
                "-v", "error", "-http_proxy", proxy.url, "-ss", "12", "-i", origin.url("moov-at-end.mp4"), "-t", "3",
                "-f", "null", "-",
            ], timeout: 120)
        #expect(r.status == 0, "ffmpeg: \(r.stderr)")
        let a = try await analyze(proxy)
        let packets = try Self.packets(media + "/moov-at-end.mp4")
        let index = a.exchanges.filter { $0.media?.kind == .index }
        #expect(
            index.count >= 1 && index.allSatisfy { $0.media?.note == "moov at end" },
            "\(a.exchanges.map { String(describing: $0.media) })")
        let mapped = a.exchanges.filter { $0.media?.kind == .segment }
        #expect(!mapped.isEmpty)
        for e in mapped {
            let m = try #require(e.media)
            #expect(m.format == "mp4")
            let bytes = try #require(e.resourceSpan)
            let truth = try #require(Self.span(packets, bytes: bytes))
            #expect(
                abs(m.start! - truth.start) < 0.05 && abs(m.end! - truth.end) < 0.05,
                "\(e.resourceSpan!): mapped \(m.start!)-\(m.end!), ffprobe \(truth.start)-\(truth.end)")
        }
        // After the seek to 12 s, the player read media from about 12 s on.
        #expect(
            mapped.contains { ($0.media?.start ?? 0) >= 10 && ($0.media?.start ?? 99) <= 12.5 },
            "\(mapped.map { $0.media!.start! })")
        origin.stop()
    }

    /// The rate a rendition switch quotes is the one that reached the player, which adapts to it
    /// (issue 40: it quoted the origin's loopback rate, "7516.4 Mb/s" on a 700 kbit/s link).
    /// Through a 2 Mbit/s shaped link it must agree with curl's own download speed.
    @Test func aRenditionSwitchQuotesTheRateTheClientGot() async throws {
        let spec = try ShapeSpec(parsing: "rate=2mbit")
        let proxy = try await ProxyHarness { $0.shape = spec }
        var speeds: [Double] = []
        for p in ["master.m3u8", "v0.m3u8", "v0_000.ts", "v0_001.ts", "v1.m3u8", "v1_002.ts"] {
            let r = try runCommand(
                try Paths.tool("curl"),
                [
                    "-s", "--noproxy", "", "-x", proxy.url, "-o", "/dev/null", "-w", "%{speed_download}",
                    nginx.url("hls-ts/" + p),
                ])
            #expect(r.status == 0, "curl \(p): \(r.stderr)")
            if p.hasPrefix("v0_") { speeds.append(Double(r.text) ?? 0) }
        }
        _ = try await proxy.stopAndRead()
        let a = try MediaAnalysis.analyze(path: proxy.capturePath)
        let finding = try #require(a.allFindings.first { $0.code == "rendition-switch" })
        // "…; the last 2 segments reached the client at 1.9 Mb/s"
        let words = finding.message.split(separator: " ")
        let unit = try #require(words.last.map(String.init), "\(finding.message)")
        let number = try #require(words.dropLast().last.flatMap { Double($0) }, "\(finding.message)")
        let quoted = number * (unit == "Mb/s" ? 1e6 : unit == "kb/s" ? 1e3 : .nan)
        let curlBitsPerSecond = speeds.reduce(0, +) / Double(max(speeds.count, 1)) * 8
        #expect(curlBitsPerSecond > 0 && curlBitsPerSecond < 2.5e6, "curl's speeds \(speeds) B/s")
        #expect(
            quoted > curlBitsPerSecond * 0.5 && quoted < curlBitsPerSecond * 1.5,
            "quoted \(finding.message); curl got \(curlBitsPerSecond) b/s")
    }

    /// Chromium fetches the index at the end with `bytes=N-` from a little before the `moov` (the
    /// last 24,705 bytes of media, then the `moov`): that is the index fetch, not a segment of
    /// the last tenth of a second (issue 40). A fetch of the whole file stays media. The `moov`'s
    /// offset is found here by walking the top-level boxes, not with rangetap's parser.
    @Test func aFetchOfTheIndexAtTheEndThatBeginsEarlyIsTheIndex() async throws {
        let media = try Media.directory()
        let file = try Data(contentsOf: URL(fileURLWithPath: media + "/moov-at-end.mp4"))
        var offset = 0
        var moov: Int?
        while offset + 8 <= file.count {
            let size = file[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
            if String(decoding: file[offset + 4..<offset + 8], as: UTF8.self) == "moov" { moov = offset }
            guard size >= 8 else { break }
            offset += size
        }
        let moovStart = try #require(moov)
        #expect(moovStart > file.count / 2, "the test file has its index at the end")
        let origin = try NginxServer(root: media)
        defer { origin.stop() }
        let proxy = try await ProxyHarness()
        for range in ["\(moovStart - 24_705)-", "0-"] {
            let r = try runCommand(
                try Paths.tool("curl"),
                ["-s", "--noproxy", "", "-x", proxy.url, "-r", range, "-o", "/dev/null", origin.url("moov-at-end.mp4")])
            #expect(r.status == 0, "curl -r \(range): \(r.stderr)")
        }
        let a = try await analyze(proxy)
        let tail = try #require(a.exchanges.first { $0.record.requestRange == "bytes=\(moovStart - 24_705)-" })
        #expect(tail.media?.kind == .index, "\(String(describing: tail.media))")
        #expect(
            tail.media?.note?.hasPrefix("moov at end, +24705 B media") == true,
            "\(String(describing: tail.media))")
        let whole = try #require(a.exchanges.first { $0.record.requestRange == "bytes=0-" })
        #expect(whole.media?.kind == .segment && (whole.media?.end ?? 0) > 19, "\(String(describing: whole.media))")
    }

    /// A DASH media segment fetched without its MPD (`styp`, `sidx`, `moof`, `mdat`, as ffmpeg
    /// writes them and mpv fetches them) is a segment with the time its `sidx` gives, not an
    /// index fetch (issue 40). The time is checked against the `sidx` read here by hand.
    @Test func aDASHSegmentFileWithItsOwnSidxIsASegment() async throws {
        let name = "dash/chunk-stream0-00002.m4s"
        let file = [UInt8](try Data(contentsOf: URL(fileURLWithPath: try Media.streams() + "/" + name)))
        func int(_ at: Int, _ n: Int) -> Int { file[at..<at + n].reduce(0) { $0 << 8 | Int($1) } }
        var at = 0
        var truth: (start: Double, end: Double)?
        while at + 8 <= file.count, truth == nil {
            if String(decoding: file[at + 4..<at + 8], as: UTF8.self) == "sidx" {
                let version = Int(file[at + 8])
                let timescale = Double(int(at + 16, 4))
                let earliest = version == 0 ? int(at + 20, 4) : int(at + 20, 8)
                let refs = at + 20 + (version == 0 ? 8 : 16)
                let count = int(refs + 2, 2)
                let duration = (0..<count).reduce(0) { $0 + int(refs + 4 + $1 * 12 + 4, 4) }
                truth = (Double(earliest) / timescale, Double(earliest + duration) / timescale)
            }
            at += max(int(at, 4), 8)
        }
        let expected = try #require(truth, "the segment has a sidx")
        let proxy = try await ProxyHarness()
        let r = try runCommand(
            try Paths.tool("curl"), ["-s", "--noproxy", "", "-x", proxy.url, "-o", "/dev/null", nginx.url(name)])
        #expect(r.status == 0, "\(r.stderr)")
        let a = try await analyze(proxy)
        let m = try #require(a.exchanges.first?.media, "\(a.exchanges.map { String(describing: $0.media) })")
        #expect(m.kind == .segment, "\(m)")
        #expect(
            abs((m.start ?? -1) - expected.start) < 0.01 && abs((m.end ?? -1) - expected.end) < 0.01,
            "mapped \(m), sidx \(expected)")
    }

    /// `diff` in media terms: two playbacks of one HLS master, one of each rendition, compared per
    /// rendition (segments, media seconds, bytes delivered), and the time to the first media byte
    /// measured on the first segment, not the playlist (issue 40). The truths are the playlists'
    /// own durations (2 s segments) and curl's byte counts.
    @Test func diffComparesRenditionsAndTimesTheFirstSegment() async throws {
        func record(_ paths: [String]) async throws -> (capture: String, sizes: [String: Int64]) {
            let proxy = try await ProxyHarness()
            var sizes: [String: Int64] = [:]
            for p in paths {
                let r = try runCommand(
                    try Paths.tool("curl"),
                    [
                        "-s", "--noproxy", "", "-x", proxy.url, "-o", "/dev/null", "-w", "%{size_download}",
                        nginx.url("hls-ts/" + p),
                    ])
                #expect(r.status == 0, "curl \(p): \(r.stderr)")
                sizes[p] = Int64(r.text) ?? -1
            }
            _ = try await proxy.stopAndRead()
            return (proxy.capturePath, sizes)
        }
        let low = try await record(["master.m3u8", "v0.m3u8", "v0_000.ts", "v0_001.ts"])
        let high = try await record(["master.m3u8", "v1.m3u8", "v1_000.ts", "v1_001.ts", "v1_002.ts"])
        let r = try runCommand(Paths.rangetap, ["diff", low.capture, high.capture, "--json"], timeout: 60)
        #expect(r.status <= 1, "\(r.stderr)")
        let doc = try #require(try JSONSerialization.jsonObject(with: r.stdout) as? [String: Any])
        let rows = try #require(doc["renditions"] as? [[String: Any]], "\(doc.keys)")
        #expect(rows.count == 2, "\(rows)")
        func figures(_ row: [String: Any]?, _ side: String) -> (Int, Double, Int64) {
            let f = row?[side] as? [String: Any] ?? [:]
            return (
                (f["segments"] as? NSNumber)?.intValue ?? -1, (f["mediaSeconds"] as? NSNumber)?.doubleValue ?? -1,
                (f["bytes"] as? NSNumber)?.int64Value ?? -1
            )
        }
        let v0 = rows.first { ($0["rendition"] as? String)?.hasPrefix("320x180") == true }
        let v1 = rows.first { ($0["rendition"] as? String)?.hasPrefix("640x360") == true }
        let lowA = figures(v0, "a"), highB = figures(v1, "b")
        #expect(lowA.0 == 2 && abs(lowA.1 - 4) < 0.01 && lowA.2 == low.sizes["v0_000.ts"]! + low.sizes["v0_001.ts"]!)
        #expect(figures(v0, "b").0 == 0 && figures(v1, "a").0 == 0)
        #expect(
            highB.0 == 3 && abs(highB.1 - 6) < 0.01
                && highB.2 == ["v1_000.ts", "v1_001.ts", "v1_002.ts"].map { high.sizes[$0]! }.reduce(0, +))
        // The first media byte is the first segment's, after both playlists.
        let a = try MediaAnalysis.analyze(path: low.capture)
        let start = try #require(a.exchanges.map(\.record.start).min())
        let segment = try #require(a.exchanges.first { $0.record.path.hasSuffix("v0_000.ts") }?.record.firstChunkAt)
        let metric = (doc["metrics"] as? [[String: Any]])?.first { $0["name"] as? String == "timeToFirstMediaByteMs" }
        let ms = try #require((metric?["a"] as? NSNumber)?.doubleValue)
        #expect(abs(ms - Double(segment - start) / 1e6) < 0.01, "\(ms) ms")
    }

    /// A player's mistakes, made on purpose by curl in a chosen order: a switch up, a segment
    /// fetched twice, a jump ahead, a cancel. Each is a finding, and every view carries the mapping.
    @Test func findingsAndEveryViewCarryTheMapping() async throws {
        // Small socket buffers on both sides, so that a client leaving early really leaves
        // bytes unsent (loopback buffers would otherwise take a whole segment).
        let proxy = try await ProxyHarness { $0.clientSendBuffer = 16384 }
        func fetch(_ path: String) throws {
            _ = try runCommand(
                try Paths.tool("curl"),
                ["-s", "--noproxy", "", "-x", proxy.url, "-o", "/dev/null", nginx.url("hls-ts/" + path)])
        }
        for p in ["master.m3u8", "v0.m3u8", "v0_000.ts", "v0_001.ts", "v1.m3u8", "v1_002.ts", "v1_002.ts", "v1_005.ts"]
        { try fetch(p) }
        // Cancelled part-way: a client with a 4 KiB receive buffer reads 10 KB and hangs up.
        let leave = """
            import socket, sys
            s = socket.socket()
            s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            s.connect(("127.0.0.1", \(proxy.port)))
            s.sendall(b"GET \(nginx.url("hls-ts/v1_003.ts")) HTTP/1.1\\r\\nHost: x\\r\\n\\r\\n")
            got = 0
            while got < 10000:
                data = s.recv(4096)
                if not data: sys.exit("the proxy closed first")
                got += len(data)
            s.close()
            """
        let left = try runCommand(try Paths.tool("python3"), ["-c", leave])
        #expect(left.status == 0, "\(left.stderr)")
        _ = try await proxy.stopAndRead()
        let a = try MediaAnalysis.analyze(path: proxy.capturePath)
        let codes = a.allFindings.map(\.code)
        let switchUp = try #require(a.allFindings.first { $0.code == "rendition-switch" })
        #expect(
            switchUp.message.contains("switched up from 320x180") && switchUp.message.contains("to 640x360"),
            "\(switchUp.message)")
        #expect(codes.contains("segment-refetched"))
        #expect(
            a.allFindings.contains { $0.code == "segment-out-of-order" && $0.message.contains("segment 5") }, "\(codes)"
        )
        #expect(
            a.allFindings.contains { $0.code == "segment-cancelled" && $0.message.contains("segment 3") },
            "\(codes) \(a.exchanges.last.map { "\($0.record.path) \($0.record.outcome) \(String(describing: $0.media))" } ?? "")"
        )
        // The cancelled segment's message names the byte counts by their words.
        if let cancelled = a.allFindings.first(where: { $0.code == "segment-cancelled" }) {
            #expect(
                cancelled.message.contains("the client got ") && cancelled.message.contains(" received)"),
                "\(cancelled.message)")
            #expect(cancelled.evidence.contains { $0.hasPrefix("delivered=") }, "\(cancelled.evidence)")
        }
        #expect(codes.contains("buffer-ahead"))
        #expect(a.summary.findings[.warn, default: 0] >= 1, "segment-refetched counts in the summary")

        let text = try runCommand(Paths.rangetap, ["inspect", proxy.capturePath, "--color", "never"])
        #expect(text.text.contains("media") && text.text.contains("seg 2 4.00-6.00s 640x360"), "\(text.text)")
        let json = try runCommand(Paths.rangetap, ["inspect", proxy.capturePath, "--json"])
        let doc = try JSONSerialization.jsonObject(with: Data(json.text.utf8)) as? [String: Any]
        let media = (doc?["exchanges"] as? [[String: Any]])?.compactMap { $0["media"] as? [String: Any] } ?? []
        #expect(
            media.contains {
                $0["kind"] as? String == "segment" && ($0["sequence"] as? NSNumber)?.intValue == 5
                    && ($0["start"] as? NSNumber)?.doubleValue == 10
            })
        let rows = proxy.capturePath + ".jsonl"
        let html = proxy.capturePath + ".html"
        let export = try runCommand(Paths.rangetap, ["export", proxy.capturePath, "--exchanges", rows, "--html", html])
        #expect(export.status == 0, "\(export.stderr)")
        let lines = try String(contentsOfFile: rows, encoding: .utf8).split(separator: "\n")
        #expect(
            lines.contains {
                $0.contains("\"mediaKind\":\"segment\"") && $0.contains("\"sequence\":5")
                    && ($0.contains("\"mediaStart\":10,") || $0.contains("\"mediaStart\":10.0,"))
            }, "\(lines.first ?? "")")
        let page = try String(contentsOfFile: html, encoding: .utf8)
        #expect(page.contains("id=\"axis-select\"") && page.contains("id=\"media-lane\""))
    }
}
