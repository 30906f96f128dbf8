import Foundation
import NIOCore
import NIOHTTP1
import RangeTapCore

/// Replays a capture through an HTTP caching proxy (nginx with `slice` and `proxy_cache`, a
/// CDN node, your own) placed in front of the capture served as an origin.
///
/// A ``FixtureServer`` in ``FixtureServer/Mode/ideal`` mode serves the capture on
/// `127.0.0.1:originPort`; the proxy must forward to it (`proxy_pass http://127.0.0.1:PORT`).
/// The capture's playback requests (each exchange's span of the resource, as the ``Replayer``
/// plays them) are sent through the proxy twice. Every byte of every response is compared with
/// the capture, and the origin counts what reached it on each pass: on the second pass, what the
/// proxy did not have to fetch again is what its cache saved.
///
/// ```swift
/// let replay = try ThroughProxyReplay(capturePath: path, proxyURL: "http://127.0.0.1:8080", originPort: 9090)
/// try await replay.startOrigin()
/// let result = await replay.run()
/// await replay.stop()
/// print(result.report.text)
/// ```
public final class ThroughProxyReplay: Sendable {
    /// What one pass sent and what reached the origin meanwhile.
    public struct Pass: Sendable, Equatable, Codable {
        /// Requests sent through the proxy.
        public var requests: Int
        /// Body bytes those requests asked for.
        public var bytesRequested: Int64
        /// Body bytes received from the proxy.
        public var bytesReceived: Int64
        /// Requests that reached the origin.
        public var originRequests: Int
        /// Body bytes the origin sent.
        public var originBytes: Int64
    }

    /// The outcome: the replay report and both passes' figures.
    public struct Result: Sendable {
        /// The report, as for a cache replay: `bytesFromNetwork` is what the origin sent during
        /// the second pass, `bytesFromCache` the bytes of the asked spans received from the
        /// proxy beyond what the origin sent.
        public var report: ReplayReport
        /// The first pass (the proxy's cache starts empty, presumably).
        public var firstPass: Pass
        /// The second pass (what the proxy should serve from its cache).
        public var secondPass: Pass

        /// Text for a person: the report, then the origin's figures for both passes.
        public var text: String { report.text + originSummary + "\n" }

        /// One line: what reached the origin on each pass.
        public var originSummary: String {
            "origin traffic: first pass \(firstPass.originRequests) requests, \(firstPass.originBytes) body bytes; "
                + "second pass \(secondPass.originRequests) requests, \(secondPass.originBytes) body bytes"
        }
    }

    /// One request of a pass.
    struct PlaybackRequest: Sendable {
        var exchange: Int
        var path: String
        var span: Range<Int64>
        var length: Int64 { span.upperBound - span.lowerBound }
    }

    /// The capture.
    public let capturePath: String
    /// The proxy under test, `http://HOST:PORT[/prefix]`.
    public let proxyURL: String
    private let origin: FixtureServer
    private let truth: ResourceIndex
    private let requests: [PlaybackRequest]
    private let client: LoopbackHTTPClient
    private let prefix: String

    /// Reads the capture and prepares the origin on `originPort` of 127.0.0.1 (0 picks a free
    /// one: see ``startOrigin()``). `timeout` bounds each response, in seconds.
    public init(capturePath: String, proxyURL: String, originPort: Int = 0, timeout: Double = 30) throws {
        guard let target = Self.parse(proxyURL) else { throw FixtureError.badProxyURL(proxyURL) }
        let replayer = try Replayer(path: capturePath)
        let reader: CaptureReader
        do {
            reader = try CaptureReader(path: capturePath)
        } catch {
            throw FixtureError.capture(error.description)
        }
        truth = try ResourceIndex(reader: reader)
        requests = replayer.playbackRequests.map {
            PlaybackRequest(exchange: $0.exchange, path: RequestPath.originForm($0.resource), span: $0.span)
        }
        guard !requests.isEmpty else { throw ReplayError.nothingToReplay(capturePath) }
        origin = try FixtureServer(capturePath: capturePath, mode: .ideal, host: "127.0.0.1", port: originPort)
        client = LoopbackHTTPClient(host: target.host, port: target.port, timeout: .milliseconds(Int64(timeout * 1000)))
        prefix = target.prefix
        self.capturePath = capturePath
        self.proxyURL = proxyURL
    }

    /// Starts the origin; returns its port (tell the proxy to forward there).
    @discardableResult
    public func startOrigin() async throws -> Int {
        if origin.port != 0 { return origin.port }
        return try await origin.start()
    }

    /// The origin's port (0 before ``startOrigin()``).
    public var originPort: Int { origin.port }

    /// What has reached the origin so far.
    public var originTraffic: FixtureServer.Traffic { origin.traffic }

    /// Runs both passes (starting the origin first if needed).
    public func run() async -> Result {
        let requestedTotal = requests.map(\.length).saturatingSum()
        do {
            try await startOrigin()
        } catch {
            let report = ReplayReport.failed(cache: "through \(proxyURL)", error: "\(error)")
            let empty = Pass(
                requests: 0, bytesRequested: requestedTotal, bytesReceived: 0, originRequests: 0, originBytes: 0)
            return Result(report: report, firstPass: empty, secondPass: empty)
        }
        if let why = await client.unreachable() {
            // Nothing to drive: one plain sentence instead of an error per exchange and pass.
            let report = ReplayReport.failed(
                cache: "through \(proxyURL)",
                error:
                    "nothing accepts connections at \(proxyURL) (\(why)): start the proxy under test there, forwarding to http://127.0.0.1:\(origin.port)"
            )
            let empty = Pass(
                requests: 0, bytesRequested: requestedTotal, bytesReceived: 0, originRequests: 0, originBytes: 0)
            return Result(report: report, firstPass: empty, secondPass: empty)
        }
        let first = await pass(1)
        let second = await pass(2)
        var report = ReplayReport(
            cache: "through \(proxyURL)", verified: false, mismatches: second.mismatches, requests: requests.count,
            bytesRequested: requestedTotal, bytesFromCache: max(0, second.bytesInSpan - second.figures.originBytes),
            bytesFromNetwork: second.figures.originBytes, evictions: 0, errors: [])
        report.errors =
            first.mismatches.map { m in
                "first pass, exchange \(m.exchange): the proxy altered \(m.resource) on the way through: first differing byte at offset \(m.offset): expected \(m.expected), got \(m.got)"
            } + first.errors.map { "first pass, \($0)" } + second.errors.map { "second pass, \($0)" }
        report.verified = report.mismatches.isEmpty && report.errors.isEmpty
        return Result(report: report, firstPass: first.figures, secondPass: second.figures)
    }

    /// Stops the origin.
    public func stop() async {
        await origin.stop()
    }

    // MARK: One pass

    private struct PassOutcome {
        var figures: Pass
        var mismatches: [ReplayReport.Mismatch] = []
        var errors: [String] = []
        /// Bytes of the asked spans received.
        var bytesInSpan: Int64 = 0
    }

    /// What is known of one response while it arrives.
    private struct Check {
        var request: PlaybackRequest
        var status = 0
        /// Resource offset of the next body byte.
        var position: Int64 = 0
        /// Bytes of the asked span received.
        var inSpan: Int64 = 0
        var received: Int64 = 0
        var mismatch: ReplayReport.Mismatch?
        var problem: String?
    }

    private func pass(_ number: Int) async -> PassOutcome {
        let before = await settledTraffic()
        var outcome = PassOutcome(
            figures: Pass(
                requests: requests.count, bytesRequested: requests.map(\.length).saturatingSum(), bytesReceived: 0,
                originRequests: 0, originBytes: 0))
        var checks = requests.map { Check(request: $0) }
        let sent = requests.map { r in
            LoopbackHTTPClient.Request(
                target: prefix + r.path,
                headers: [
                    ("Range", "bytes=\(r.span.lowerBound)-\(r.span.upperBound - 1)"),
                    ("User-Agent", "rangetap replay --through (pass \(number))"),
                ])
        }
        let truth = self.truth
        let failures = await client.send(sent) { i, part in
            Self.receive(part, into: &checks[i], truth: truth)
        }
        for (i, check) in checks.enumerated() {
            let r = check.request
            let what = "exchange \(r.exchange) (\(r.path) bytes=\(r.span.lowerBound)-\(r.span.upperBound - 1))"
            outcome.figures.bytesReceived += check.received
            if let m = check.mismatch { outcome.mismatches.append(m) }
            if let failure = failures[i] {
                outcome.errors.append("\(what): \(failure)")
            } else if let problem = check.problem {
                outcome.errors.append("\(what): \(problem)")
            } else if check.inSpan < r.length {
                outcome.errors.append("\(what): the response held \(check.inSpan) of the \(r.length) bytes asked")
            }
        }
        let after = await settledTraffic()
        outcome.figures.originRequests = after.requests - before.requests
        outcome.figures.originBytes = after.bodyBytes - before.bodyBytes
        outcome.bytesInSpan = checks.reduce(0) { $0 + $1.inSpan }
        let refused = after.uncapturedRefusals - before.uncapturedRefusals
        if refused > 0 {
            outcome.errors.append(
                "the origin refused \(refused) request\(refused == 1 ? "" : "s") for bytes the capture never held "
                    + "(last: \(after.recentRefusals.last ?? "?")). The proxy asked the origin for more than the player did "
                    + "(a slice cache asks for whole slices): replay a capture that holds those bytes, such as one with a "
                    + "complete download of each resource, or use a smaller slice size")
        }
        return outcome
    }

    /// Checks one part of a response against the capture.
    private static func receive(_ part: LoopbackHTTPClient.Part, into check: inout Check, truth: ResourceIndex) {
        switch part {
        case .head(let status, let headers):
            check.status = status
            switch status {
            case 206:
                if headers.first(name: "Content-Type")?.lowercased().hasPrefix("multipart/") == true {
                    check.problem = "the proxy answered multipart/byteranges to a single range"
                } else if let value = headers.first(name: "Content-Range"), let cr = try? ContentRange.parse(value),
                    let range = cr.range
                {
                    check.position = range.first
                } else {
                    check.problem =
                        "206 without a usable Content-Range (\(headers.first(name: "Content-Range") ?? "none"))"
                }
            case 200:
                check.position = 0
            default:
                check.problem = "the proxy answered \(status) (expected 206)"
            }
        case .body(let buffer):
            check.received += Int64(buffer.readableBytes)
            guard check.problem == nil, check.status == 200 || check.status == 206 else { return }
            let start = check.position
            let end = start + Int64(buffer.readableBytes)
            check.position = end
            let r = check.request
            check.inSpan += max(0, min(end, r.span.upperBound) - max(start, r.span.lowerBound))
            guard check.mismatch == nil, let resource = truth.resource(r.path) else { return }
            // Compare every byte the capture knows; bytes it never held cannot be judged.
            for span in resource.covered.spans where span.lowerBound < end && start < span.upperBound {
                let from = max(start, span.lowerBound)
                let to = min(end, span.upperBound)
                guard let expected = try? truth.read(r.path, from..<to) else {
                    check.problem = "cannot read the capture's bytes \(from)-\(to - 1) of \(r.path)"
                    return
                }
                let skip = Int(from - start)
                if let i = Self.firstDifference(expected, buffer, at: skip) {
                    let at = from + Int64(i)
                    let wanted =
                        (try? truth.read(r.path, at..<(at + min(16, resource.covered.contiguousLength(from: at)))))
                        ?? []
                    let got =
                        buffer.getBytes(
                            at: buffer.readerIndex + skip + i, length: min(16, buffer.readableBytes - skip - i)) ?? []
                    check.mismatch = .init(
                        resource: r.path, offset: at, expected: hex(wanted), got: hex(got), exchange: r.exchange,
                        storedBy: nil)
                    return
                }
            }
        }
    }

    /// Index in `expected` of the first byte that differs from `buffer`'s readable bytes from `offset` on.
    static func firstDifference(_ expected: [UInt8], _ buffer: ByteBuffer, at offset: Int) -> Int? {
        buffer.withUnsafeReadableBytes { got in
            expected.withUnsafeBytes { want in
                let n = min(want.count, got.count - offset)
                guard n > 0, memcmp(want.baseAddress!, got.baseAddress! + offset, n) != 0 else { return nil }
                var i = 0
                while want[i] == got[offset + i] { i += 1 }
                return i
            }
        }
    }

    /// The origin's counters once it has finished what it was writing.
    private func settledTraffic() async -> FixtureServer.Traffic {
        var last = origin.traffic
        for _ in 0..<40 {
            try? await Task.sleep(for: .milliseconds(50))
            let now = origin.traffic
            if now == last && now.activeResponses == 0 { return now }
            last = now
        }
        return last
    }

    private static func hex<S: Sequence>(_ bytes: S) -> String where S.Element == UInt8 {
        bytes.map { String(format: "%02x", $0) }.joined(separator: " ")
    }

    /// Whether `url` is an `http://HOST:PORT[/prefix]` this replay can send requests to.
    public static func isValidProxyURL(_ url: String) -> Bool { parse(url) != nil }

    /// `http://host:port[/prefix]` → its parts (an IPv6 host without its brackets).
    static func parse(_ url: String) -> (host: String, port: Int, prefix: String)? {
        let parts = URLParts(url)
        guard parts.httpScheme == .http, let authority = parts.authority,
            parts.rest.isEmpty || parts.rest.hasPrefix("/")
        else { return nil }
        // No userinfo (the replay sends no credentials), and an IPv6 address only in brackets.
        guard authority.userinfo == nil, authority.isBracketed || !authority.host.contains(":") else { return nil }
        var prefix = String(parts.rest)
        while prefix.hasSuffix("/") { prefix.removeLast() }
        let port: Int
        if authority.portText != nil {
            guard let written = authority.port else { return nil }
            port = written
        } else {
            port = 80
        }
        guard !authority.host.isEmpty, (1...65535).contains(port) else { return nil }
        return (String(authority.host), port, prefix)
    }
}
