import Foundation
import RangeTapCore
import RangeTapMedia
import RangeTapTestSupport
import Testing

/// Issue "Truth", items 1–4, checked against what a raw-socket client really read: a client
/// that hangs up before every byte reached it is a cancel, never an `end`; `delivered` is what
/// its TCP stack acknowledged; back-pressure is recorded as pause/resume; the wall-clock anchor
/// has microseconds.
@Suite(.serialized)
struct HangUpTruthTests {
    let dir: String
    let nginx: NginxServer
    static let smallSize = 1_270_538
    static let bigSize = 48 << 20

    init() throws {
        dir = Paths.temporaryDirectory("www")
        for (name, size) in [("small.bin", Self.smallSize), ("big.bin", Self.bigSize)] {
            var bytes = [UInt8](repeating: 0, count: size)
            var x: UInt32 = 0x9E37_79B9
            for i in bytes.indices {
                x = x &* 1_664_525 &+ 1_013_904_223
                bytes[i] = UInt8(truncatingIfNeeded: x >> 24)
            }
            try Data(bytes).write(to: URL(fileURLWithPath: dir + "/" + name))
        }
        nginx = try NginxServer(root: dir)
    }

    func request(_ path: String, range: String? = nil) -> String {
        var r = "GET \(nginx.url(path)) HTTP/1.1\r\nHost: 127.0.0.1:\(nginx.port)\r\n"
        if let range { r += "Range: \(range)\r\n" }
        return r + "\r\n"
    }

    /// 200 clients read exactly what they want and close at once. Those that read the whole
    /// body are ends that delivered every byte; those that stop 1 MB short with a small receive
    /// buffer are cancels; no `end` ever has fewer bytes than promised or than were delivered.
    /// The most a client's delayed acknowledgements can hold back when its close turns into a
    /// reset: one loopback segment's worth (MSS 65,483).
    static let lostDelayedAck: Int64 = 64 * 1024

    @Test func clientHangUpRightAfterTheBodyIsNeverAServerTruncation() async throws {
        let proxy = try await ProxyHarness()
        let rounds = 200
        var read: [Int] = []
        for i in 0..<rounds {
            let whole = i % 2 == 0
            let client = try RawClient(port: proxy.port, receiveBuffer: whole ? nil : 8192)
            try client.send(request("small.bin", range: "bytes=0-"))
            let headBytes = try client.readHead()
            #expect(headBytes.latin1.hasPrefix("HTTP/1.1 206"))
            let want = whole ? Self.smallSize : 200_000
            let got = try client.read(count: want)
            #expect(got.count == want)
            client.close()
            read.append(client.bytesRead - headBytes.count)
        }
        let capture = try await proxy.stopAndRead()
        #expect(capture.exchanges.count == rounds)
        for (i, ex) in capture.exchanges.enumerated() {
            let whole = i % 2 == 0
            switch ex.outcome {
            case .complete:
                #expect(whole, "exchange \(ex.id): the client read 200,000 of 1,270,538 bytes, yet an end")
                #expect(ex.bytesReceived == Int64(Self.smallSize), "exchange \(ex.id): an end short of Content-Length")
                #expect(
                    ex.bytesDelivered == Int64(Self.smallSize), "exchange \(ex.id): an end the client did not get whole"
                )
            case .cancelled:
                #expect(!whole, "exchange \(ex.id): the client read every byte, yet a cancel")
                let delivered = try #require(ex.bytesDelivered)
                // At least what the client read, less the ACKs its kernel still held back when
                // the close became a reset (unread bytes left): those are lost with the reset.
                // (Shortfalls of 36,266 and 68,928 bytes seen in CI runs were more likely a close
                // settled inside a body round's flush, fixed since: CloseInsideFlushTests.)
                #expect(
                    delivered >= Int64(read[i]) - Self.lostDelayedAck,
                    "exchange \(ex.id): delivered \(delivered) by \(String(describing: ex.deliveredBy)) < read \(read[i]) by more than a delayed ACK"
                )
                #expect(delivered < Int64(Self.smallSize))
            default:
                Issue.record("exchange \(ex.id): \(ex.outcome)")
            }
        }
    }

    /// `delivered` on a cancel: at least what the client read, at most that plus its receive
    /// buffer, with a small SO_RCVBUF and with the default, for several N.
    @Test(arguments: [nil, 8192] as [Int?])
    func deliveredIsWhatTheClientsTCPAcknowledged(receiveBuffer: Int?) async throws {
        let proxy = try await ProxyHarness()
        var checks: [(n: Int, rcvbuf: Int)] = []
        for n in [1000, 100_000, 1_000_000, 5_000_000] {
            let client = try RawClient(port: proxy.port, receiveBuffer: receiveBuffer)
            try client.send(request("big.bin"))
            let head = try client.readHead()
            let got = try client.read(count: n)
            #expect(got.count == n)
            // Let the proxy fill whatever the client's window allows before it hangs up.
            try await Task.sleep(for: .milliseconds(150))
            checks.append((client.bytesRead - head.count, client.receiveBufferSize))
            client.close()
        }
        let capture = try await proxy.stopAndRead()
        #expect(capture.exchanges.count == checks.count)
        for (ex, check) in zip(capture.exchanges, checks) {
            #expect(ex.outcome == .cancelled)
            let delivered = try #require(ex.bytesDelivered)
            #expect(ex.deliveredBy == .tcpAcked, "exchange \(ex.id) measured by \(String(describing: ex.deliveredBy))")
            #expect(delivered >= Int64(check.n), "exchange \(ex.id): delivered \(delivered) < read \(check.n)")
            #expect(
                delivered <= Int64(check.n + check.rcvbuf),
                "exchange \(ex.id): delivered \(delivered) > read \(check.n) + rcvbuf \(check.rcvbuf)")
            #expect(delivered <= ex.bytesReceived)
        }
    }

    /// A keep-alive connection: the second exchange's `delivered` counts from where its own
    /// body began, not from the start of the connection.
    @Test func deliveredOnAKeepAliveConnectionCountsFromTheBodyStart() async throws {
        let proxy = try await ProxyHarness()
        let client = try RawClient(port: proxy.port, receiveBuffer: 8192)
        try client.send(request("small.bin", range: "bytes=0-99999"))
        let head1 = try client.readHead().count
        #expect(try client.read(count: 100_000).count == 100_000)
        try client.send(request("big.bin"))
        let head2 = try client.readHead().count
        #expect(try client.read(count: 50_000).count == 50_000)
        try await Task.sleep(for: .milliseconds(100))
        let rcvbuf = client.receiveBufferSize
        let secondBodyRead = client.bytesRead - head1 - 100_000 - head2
        client.close()
        let capture = try await proxy.stopAndRead()
        #expect(capture.exchanges.count == 2)
        let first = capture.exchanges[0]
        let second = capture.exchanges[1]
        #expect(first.outcome == .complete)
        #expect(first.bytesDelivered == 100_000)
        #expect(second.outcome == .cancelled)
        let delivered = try #require(second.bytesDelivered)
        #expect(delivered >= Int64(secondBodyRead), "delivered \(delivered) < read \(secondBodyRead)")
        #expect(
            delivered <= Int64(secondBodyRead + rcvbuf),
            "delivered \(delivered) > read \(secondBodyRead) + rcvbuf \(rcvbuf)")
    }

    /// A slow reader: the proxy pauses the upstream transfer and records `pause` and `resume`
    /// in pairs; inspect's record sums the paused time.
    @Test func backPressureIsRecordedAsPauseAndResume() async throws {
        let proxy = try await ProxyHarness()
        let client = try RawClient(port: proxy.port, receiveBuffer: 16384)
        try client.send(request("big.bin", range: "bytes=0-8388607"))
        _ = try client.readHead()
        var read = 0
        while read < 8 << 20 {
            let got = try client.read(count: 256 * 1024)
            guard !got.isEmpty else { break }
            read += got.count
            try await Task.sleep(for: .milliseconds(5))
        }
        #expect(read == 8 << 20)
        try await Task.sleep(for: .milliseconds(50))
        let capture = try await proxy.stopAndRead()
        let pauses = capture.events("pause")
        let resumes = capture.events("resume")
        #expect(pauses.count >= 2)
        #expect(pauses.count == resumes.count)
        let ex = try #require(capture.exchanges.first)
        #expect(ex.outcome == .complete)
        #expect(ex.pausedNs > 0)
        #expect(ex.pausedNs < (ex.end ?? 0) - ex.start)
        // inspect says how long rangetap held the origin back, as the client's time.
        let analysis = try MediaAnalysis.analyze(path: proxy.capturePath)
        let paused = analysis.exchanges.first?.findings.filter { $0.code == "proxy-paused" } ?? []
        #expect(paused.count == 1)
        #expect(paused.first?.severity == .info)
        // Every pause precedes its resume.
        var open = false
        for e in capture.events {
            if case .pause = e {
                #expect(!open)
                open = true
            }
            if case .resume = e {
                #expect(open)
                open = false
            }
        }
    }

    /// The wall-clock anchor is read next to the monotonic zero, with microseconds.
    @Test func wallClockAnchorHasMicroseconds() async throws {
        let before = Int64(Date().timeIntervalSince1970 * 1e6)
        let proxy = try await ProxyHarness()
        let after = Int64(Date().timeIntervalSince1970 * 1e6)
        let capture = try await proxy.stopAndRead()
        let us = try #require(capture.reader.header.startedAtMicros)
        #expect(us >= before && us <= after)
    }
}
