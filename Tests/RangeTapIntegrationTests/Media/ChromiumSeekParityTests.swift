import Foundation
import RangeTapCore
import RangeTapMedia
import RangeTapTestSupport
import Testing

/// Issue 36: a real browser over HTTP/2. Headless Chromium (Debian's `chromium`, trusting the
/// intercepting CA through an NSS database, never `--ignore-certificate-errors`) opens
/// `Tests/Clients/chromium_seek_page.html` through the in-process intercepting proxy from nginx
/// over TLS with h2; the page plays an MP4, seeks forward to 70 %, plays, seeks back to 20 %,
/// plays, and says it is done (`Tests/Clients/chromium_play.sh`). The same page then runs with
/// `--disable-http2`, HTTP/1.1 inside the same intercepted TLS. Checked: each capture holds
/// exactly the requests nginx logged (the complete ones with nginx's byte counts); the h2 run's
/// exchanges are HTTP/2 streams and the other's HTTP/1.1; the analysis `inspect` uses finds the
/// same seeks in both — the same number, and each of the page's two seeks as a new request at the
/// keyframe before its target — and the same number of cancels; a cancelled h2 stream's
/// `delivered` is what Chromium's TCP acknowledged, not 0.
///
/// The video is 60 s at a constant 6 Mbit/s (45 MB) with its index at the end, so that Chromium's
/// requests do not depend on timing: it reads the head, fetches the index at the end, comes back
/// and reads ahead some 20 MB, so the forward seek is a new range request and cancels the read in
/// flight, and the seek back is a new request too. With a 20 or 30 s file Chromium sometimes had
/// everything before a seek, and seeks and cancels differed from run to run whatever the
/// protocol. nginx sends `Cache-Control: no-store`, so Chromium's HTTP cache adds no
/// revalidations (ranges answered 304) that also depend on timing. In 16 runs by hand of each
/// protocol, every capture had 4 seeks (the index, the return to the head, the page's two) and 3
/// cancels (the first read, the read in flight at the forward seek, the read Chromium held when it
/// was stopped).
@Suite(.serialized)
struct ChromiumSeekParityTests {
    /// The video's duration (s), and where the page seeks, as fractions of it.
    static let duration = 60.0
    static let forward = 0.7
    static let back = 0.2

    /// One request as nginx logged it (`NginxServer`'s format:
    /// `METHOD URI STATUS BODY_BYTES_SENT CONNECTION CONNECTION_REQUESTS "RANGE"`).
    struct Logged: Sendable {
        var method: String
        var path: String
        var status: Int
        var range: String
        var sent: Int64
        var key: String { "\(method) \(path) \(status) \(range)" }

        init?(_ line: String) {
            let f = line.split(separator: " ").map(String.init)
            guard f.count >= 7, let status = Int(f[2]), let sent = Int64(f[3]) else { return nil }
            method = f[0]
            path = f[1]
            self.status = status
            self.sent = sent
            range = f[6...].joined(separator: " ").trimmingCharacters(in: CharacterSet(charactersIn: "\""))
        }
    }

    /// One run of the page: what the proxy recorded for the origin and what nginx logged.
    struct Run: Sendable {
        /// `h2` or `HTTP/1.1`, for messages.
        var name: String
        /// The page's done line.
        var done: String
        /// The capture's exchanges with the origin (no CONNECTs, none of Chromium's own requests
        /// to other hosts), in request order, as `inspect` analyses them.
        var exchanges: [CaptureAnalysis.Exchange]
        /// nginx's access log.
        var logged: [Logged]

        /// The exchanges for the video.
        var video: [CaptureAnalysis.Exchange] {
            exchanges.filter { ChromiumSeekParityTests.path(of: $0.record) == "/video.mp4" }
        }
        /// The video's exchanges with a seek finding.
        var seeks: [CaptureAnalysis.Exchange] {
            video.filter { $0.findings.contains { $0.code == FindingCode.seek.rawValue } }
        }
        /// The video's cancelled exchanges.
        var cancels: [CaptureAnalysis.Exchange] { video.filter { $0.record.outcome == .cancelled } }
    }

    /// The request path without its query, as nginx's `$uri` has it.
    static func path(of record: ExchangeRecord) -> String {
        String(record.path.prefix(while: { $0 != "?" }))
    }

    /// `METHOD PATH STATUS RANGE` of a recorded exchange, as ``Logged/key``.
    static func key(of record: ExchangeRecord) -> String {
        "\(record.method) \(path(of: record)) \(record.status ?? 0) \(record.requestRange ?? "-")"
    }

    /// Both runs, made once: h2 first, then HTTP/1.1, each with its own proxy and nginx.
    static let runs = Task<(h2: Run, http1: Run), any Error> {
        let www = Paths.temporaryDirectory("www-chromium")
        try FileManager.default.copyItem(
            atPath: Paths.root + "/Tests/Clients/chromium_seek_page.html", toPath: www + "/page.html")
        let seconds = String(Int(ChromiumSeekParityTests.duration))
        var args = ["-hide_banner", "-loglevel", "error", "-y"]
        args += ["-f", "lavfi", "-i", "testsrc=duration=" + seconds + ":size=640x360:rate=25"]
        args += ["-f", "lavfi", "-i", "sine=frequency=440:duration=" + seconds]
        args += ["-c:v", "libx264", "-preset", "ultrafast", "-g", "25"]
        args += ["-b:v", "6M", "-minrate", "6M", "-maxrate", "6M", "-bufsize", "1M", "-x264-params", "nal-hrd=cbr"]
        args += ["-c:a", "aac", "-b:a", "64k", "-shortest", www + "/video.mp4"]
        let ffmpeg = try runCommand(try Paths.tool("ffmpeg"), args, timeout: 300)
        guard ffmpeg.status == 0 else { throw TestFailure("ffmpeg: \(ffmpeg.stderr)") }
        let tls = try TestTLS.shared()
        let h2 = try await ChromiumSeekParityTests.play(www: www, tls: tls, http1: false)
        let http1 = try await ChromiumSeekParityTests.play(www: www, tls: tls, http1: true)
        return (h2, http1)
    }

    /// Runs the page once through a new intercepting proxy to a new nginx (TLS, h2 offered).
    static func play(www: String, tls: TestTLS, http1: Bool) async throws -> Run {
        let name = http1 ? "HTTP/1.1" : "h2"
        // NginxServer's types name no HTML: the page would come as text/plain.
        let nginx = try NginxServer(
            root: www, extraServerConfig: "types { text/html html; video/mp4 mp4; } add_header Cache-Control no-store;",
            tls: (certificate: tls.certificate, key: tls.key), http2: true)
        defer { nginx.stop() }
        let proxy = try await tls.interceptingProxy()
        let origin = "https://127.0.0.1:\(nginx.port)"
        let result: CommandResult
        do {
            guard let ca = proxy.caCertificate else { throw TestFailure("the proxy has no intercepting CA") }
            let url = "\(origin)/page.html?src=video.mp4&hold=2&forward=\(forward)&back=\(back)"
            var args = [
                Paths.root + "/Tests/Clients/chromium_play.sh", "--ca", ca, "--proxy", "127.0.0.1:\(proxy.port)",
            ]
            args += ["--url", url, "--timeout", "90"]
            if http1 { args.append("--http1") }
            result = try runCommand("/bin/bash", args, timeout: 150)
        } catch {
            _ = try? await proxy.stopAndRead()
            throw error
        }
        _ = try await proxy.stopAndRead()
        guard result.status == 0 else { throw TestFailure("chromium over \(name): \(result.text) \(result.stderr)") }
        let analysis = try MediaAnalysis.analyze(path: proxy.capturePath)
        let exchanges = analysis.exchanges.filter {
            $0.record.method != "CONNECT" && ($0.record.url ?? "").hasPrefix(origin + "/")
        }
        // nginx logs a request when it ends: a cancelled one once the proxy's transfer is gone.
        let deadline = Date().addingTimeInterval(10)
        while nginx.accessLog().count < exchanges.count && Date() < deadline {
            try await Task.sleep(for: .milliseconds(100))
        }
        try await Task.sleep(for: .milliseconds(500))
        let lines = nginx.accessLog()
        let logged = lines.compactMap(Logged.init)
        guard logged.count == lines.count else { throw TestFailure("unreadable nginx log lines: \(lines)") }
        return Run(
            name: name, done: result.text.trimmingCharacters(in: .whitespacesAndNewlines), exchanges: exchanges,
            logged: logged)
    }

    @Test func eachCaptureHoldsExactlyTheRequestsNginxLogged() async throws {
        let runs = try await Self.runs.value
        for run in [runs.h2, runs.http1] {
            let recorded = run.exchanges.map { Self.key(of: $0.record) }.sorted()
            let logged = run.logged.map(\.key).sorted()
            #expect(recorded == logged, "\(run.name): the capture has \(recorded), nginx logged \(logged)")
            // The video's requests both ways, by Range.
            let videoRecorded = run.video.map { $0.record.requestRange ?? "-" }.sorted()
            let videoLogged = run.logged.filter { $0.path == "/video.mp4" }.map(\.range).sorted()
            #expect(
                videoRecorded == videoLogged,
                "\(run.name): video ranges recorded \(videoRecorded), logged \(videoLogged)")
            #expect(videoRecorded.count >= 3, "\(run.name): \(videoRecorded)")
            // A complete exchange got every byte nginx sent.
            for ex in run.exchanges where ex.record.outcome == .complete {
                let key = Self.key(of: ex.record)
                let sent = run.logged.filter { $0.key == key }.map(\.sent)
                #expect(
                    sent.contains(ex.record.bytesReceived),
                    "\(run.name) #\(ex.record.id) \(key): \(ex.record.bytesReceived) bytes recorded, nginx sent \(sent)"
                )
            }
        }
    }

    @Test func theH2CaptureIsHTTP2AndTheOtherHTTP11() async throws {
        let runs = try await Self.runs.value
        try #require(!runs.h2.exchanges.isEmpty && !runs.http1.exchanges.isEmpty)
        for ex in runs.h2.exchanges {
            #expect(
                ex.record.clientHTTPVersion == "2" && ex.record.stream != nil,
                "h2 #\(ex.record.id): HTTP/\(ex.record.clientHTTPVersion), stream \(String(describing: ex.record.stream))"
            )
        }
        for ex in runs.http1.exchanges {
            #expect(
                ex.record.clientHTTPVersion == "1.1" && ex.record.stream == nil,
                "HTTP/1.1 #\(ex.record.id): HTTP/\(ex.record.clientHTTPVersion), stream \(String(describing: ex.record.stream))"
            )
        }
    }

    @Test func bothCapturesShowTheSameSeeks() async throws {
        let runs = try await Self.runs.value
        func describe(_ run: Run) -> String {
            run.seeks.map { ex in
                let at = ex.media?.start.map { String(format: "%.2f s", $0) } ?? "?"
                return "#\(ex.record.id) \(ex.record.requestRange ?? "-") at \(at)"
            }.joined(separator: ", ")
        }
        #expect(
            runs.h2.seeks.count >= 1 && runs.http1.seeks.count >= 1,
            "h2: \(describe(runs.h2)); HTTP/1.1: \(describe(runs.http1))")
        #expect(
            runs.h2.seeks.count == runs.http1.seeks.count, "h2: \(describe(runs.h2)); HTTP/1.1: \(describe(runs.http1))"
        )
        // Each of the page's seeks is a seek to the keyframe before its target (one a second) in
        // both captures, at the same byte.
        for target in [Self.forward * Self.duration, Self.back * Self.duration] {
            func landing(_ run: Run) -> String? {
                let seek = run.seeks.first { ex in
                    guard let start = ex.media?.start else { return false }
                    return start <= target + 0.01 && start > target - 1.5
                }
                return seek?.record.requestRange
            }
            let h2 = landing(runs.h2), http1 = landing(runs.http1)
            #expect(
                h2 != nil && h2 == http1,
                "the page's seek to \(target) s: h2 \(String(describing: h2)), HTTP/1.1 \(String(describing: http1)); h2: \(describe(runs.h2)); HTTP/1.1: \(describe(runs.http1))"
            )
        }
    }

    @Test func bothCapturesShowTheSameCancels() async throws {
        let runs = try await Self.runs.value
        func describe(_ run: Run) -> String {
            run.cancels.map { ex in
                let delivered = ex.record.bytesDelivered.map { "\($0)" } ?? "?"
                return "#\(ex.record.id) \(ex.record.requestRange ?? "-") delivered \(delivered)"
            }.joined(separator: ", ")
        }
        #expect(
            runs.h2.cancels.count >= 1 && runs.h2.cancels.count == runs.http1.cancels.count,
            "h2: \(describe(runs.h2)); HTTP/1.1: \(describe(runs.http1))")
        // The index is at the end: the first read, from byte 0, is given up in both.
        for run in [runs.h2, runs.http1] {
            let first = try #require(run.video.first, "\(run.name): no video request")
            #expect(
                first.record.requestRange == "bytes=0-" && first.record.outcome == .cancelled,
                "\(run.name) #\(first.record.id): \(first.record.requestRange ?? "-") \(first.record.outcome)")
        }
    }

    /// Chromium gives streams up while its TCP has acknowledged megabytes of them (it grants its
    /// 6 MiB stream window back late, so its `WINDOW_UPDATE`s say little; the first read often
    /// stops at exactly 6 MiB delivered): `delivered` is that acknowledged count, never "CANCELLED
    /// at byte 0".
    @Test func aCancelledH2StreamWasDeliveredWhatChromiumsTCPAcknowledged() async throws {
        let runs = try await Self.runs.value
        try #require(!runs.h2.cancels.isEmpty, "no cancelled stream in the h2 capture")
        for ex in runs.h2.cancels {
            let delivered = ex.record.bytesDelivered ?? 0
            #expect(
                delivered > 0 && delivered <= ex.record.bytesReceived,
                "h2 #\(ex.record.id) \(ex.record.requestRange ?? "-"): delivered \(delivered) of \(ex.record.bytesReceived) received"
            )
            #expect(
                ex.record.deliveredBy == .tcpAcked || ex.record.deliveredBy == .tcpAckedAtLastWrite,
                "h2 #\(ex.record.id): delivered measured by \(String(describing: ex.record.deliveredBy))")
        }
    }
}
