import NIOCore
import NIOEmbedded
import RangeTapCore
@testable import RangeTapProxy
import RangeTapTestSupport
import Testing

/// `ProxyHandler` in the client pipeline ProxyServer builds, on an `EmbeddedChannel`, its
/// exchanges' upstream halves scripted message by message (``ScriptedUpstream``) and its events
/// kept in memory: what the client gets and what is recorded for each thing an origin or a client
/// can do at each point of an exchange, with no socket, thread or timing involved. (The same
/// paths against real peers: TransparencyTests, HangUpTruthTests, UpstreamFailureRecoveryTests.)
@Suite struct ProxyHandlerEmbeddedTests {
    let upstream: ScriptedUpstream
    let log = CaptureLog()
    let channel = EmbeddedChannel()

    init(highWater: Int = 1 << 20, lowWater: Int = 256 << 10) throws {
        upstream = ScriptedUpstream(highWater: highWater, lowWater: lowWater)
        var config = ProxyConfiguration(listenPort: 0, capturePath: "/dev/null")
        config.http1Only = true
        let shared = RecordingContext(
            configuration: config, writer: log, clock: ManualClock(), upstream: upstream, intercept: nil)
        try ProxyServer.addClientHandlers(to: channel, context: shared)
        try channel.connect(to: SocketAddress(ipAddress: "127.0.0.1", port: 40000)).wait()
    }

    /// Sends a request head from the client and runs the loop.
    func request(_ target: String, _ fields: [String] = []) throws {
        let text = (["GET \(target) HTTP/1.1", "Host: origin.test"] + fields).joined(separator: "\r\n") + "\r\n\r\n"
        try channel.writeInbound(ByteBuffer(string: text))
        run()
    }

    func run() { channel.embeddedEventLoop.run() }

    func transfer(_ i: Int) throws -> ScriptedTransfer {
        let all = upstream.transfers
        try #require(all.count > i, "exchange \(i + 1) was never started upstream")
        return all[i]
    }

    @Test func anInterimHeadThenTheResponseReachTheClientAsTheOriginSentThem() throws {
        try request("http://origin.test/a", ["Range: bytes=0-4"])
        let t = try transfer(0)
        #expect(t.request?.url == "http://origin.test/a")
        #expect(t.request?.headers.contains("Range: bytes=0-4") == true, "\(t.request?.headers ?? [])")
        t.interim("HTTP/1.1 103 Early Hints", ["Link: </b>; rel=preload"])
        t.head("HTTP/1.1 206 Partial Content", ["Content-Range: bytes 0-4/10", "Content-Length: 5"])
        t.body("hel")
        t.body("lo")
        run()
        #expect(log.settled.isEmpty, "nothing settles before the upstream ends")
        t.end(t: 7)
        run()
        #expect(
            try channel.writtenText()
                == "HTTP/1.1 103 Early Hints\r\nLink: </b>; rel=preload\r\n\r\nHTTP/1.1 206 Partial Content\r\nContent-Range: bytes 0-4/10\r\nContent-Length: 5\r\n\r\nhello"
        )
        // No socket, so no TCP_INFO: the writes are the measure.
        #expect(
            log.settled == [.end(EndEvent(t: 7, exchange: 1, bytes: 5, sha256: "", delivered: 5, deliveredBy: .writes))]
        )
        #expect(channel.isActive, "a keep-alive connection stays open")
    }

    @Test func aClientThatLeavesMidBodyCancelsWithWhatItWasWritten() throws {
        try request("http://origin.test/big")
        let t = try transfer(0)
        t.head("HTTP/1.1 200 OK", ["Content-Length: 100"])
        t.body(Array(repeating: 1, count: 30))
        run()
        _ = try channel.writtenText()
        // The client closes while the next chunk is on its way from the upstream thread.
        t.body(Array(repeating: 2, count: 20))
        channel.pipeline.fireChannelInactive()
        run()
        #expect(t.aborted, "the client's close aborts the upstream transfer")
        #expect(log.settled.isEmpty, "the exchange settles once the aborted transfer stopped")
        t.stoppedAfterAbort(t: 9)
        run()
        guard case .cancel(let cancel)? = log.settled.first else {
            Issue.record("expected a cancel, got \(log.settled)")
            return
        }
        #expect(cancel.delivered == 30 && cancel.received == 50 && cancel.deliveredBy == .writes)
        #expect(log.settled.count == 1)
    }

    @Test func aFullWindowPausesTheUpstreamUntilTheClientTookTheBytes() throws {
        let small = try ProxyHandlerEmbeddedTests(highWater: 10, lowWater: 4)
        try small.request("http://origin.test/w")
        let t = try small.transfer(0)
        t.head("HTTP/1.1 200 OK", ["Content-Length: 13"])
        #expect(t.body("0123456789"))
        #expect(!t.body("abc"), "the window is full: libcurl would pause here")
        #expect(!t.calls.contains("resume"))
        small.run()
        #expect(t.calls.contains("resume"), "the written bytes drained the window: the transfer resumes")
        #expect(t.body("abc"))
        t.end()
        small.run()
        #expect(try small.channel.writtenText().hasSuffix("\r\n\r\n0123456789abc"))
        #expect(
            small.log.settled == [
                .end(EndEvent(t: 0, exchange: 1, bytes: 13, sha256: "", delivered: 13, deliveredBy: .writes))
            ])
    }

    @Test func aFailureAfterAPartialBodyClosesTheConnectionAndIsRecorded() throws {
        try request("http://origin.test/f")
        let t = try transfer(0)
        t.head("HTTP/1.1 200 OK", ["Content-Length: 100"])
        t.body("0123456789")
        t.fail(code: 56, message: "Connection reset by peer", headReceived: true)
        run()
        #expect(try channel.writtenText() == "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n0123456789")
        #expect(!channel.isActive, "a body cut short can only be signalled by closing")
        guard case .error(let e)? = log.settled.first else {
            Issue.record("expected an error, got \(log.settled)")
            return
        }
        #expect(e.curlCode == 56 && e.received == 10 && e.status == nil)
        #expect(log.settled.count == 1, "the close that follows settles nothing more")
    }

    @Test func aDNSFailureIsA502AndTheNextRequestOnTheConnectionIsServed() throws {
        try request("http://nx.invalid/a")
        try transfer(0).fail(code: 6, message: "Could not resolve host: nx.invalid", headReceived: false)
        run()
        let answer = try channel.writtenText()
        #expect(answer.hasPrefix("HTTP/1.1 502 Bad Gateway\r\n"))
        #expect(answer.contains("Could not resolve host: nx.invalid"))
        #expect(channel.isActive, "a 502 of rangetap's own keeps a keep-alive connection")
        try request("http://origin.test/ok")
        let good = try transfer(1)
        good.head("HTTP/1.1 200 OK", ["Content-Length: 2"])
        good.body("ok")
        good.end()
        run()
        #expect(try channel.writtenText() == "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
        guard log.settled.count == 2, case .error(let dns) = log.settled[0], case .end(let end) = log.settled[1] else {
            Issue.record("expected the DNS error then an end, got \(log.settled)")
            return
        }
        #expect(dns.exchange == 1 && dns.curlCode == 6 && dns.status == 502)
        #expect(end.exchange == 2 && end.delivered == 2)
    }
}
