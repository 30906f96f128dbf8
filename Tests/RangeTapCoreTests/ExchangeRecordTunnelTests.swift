import RangeTapCore
import Testing

/// A CONNECT's record: a tunnel that started is a 200; an error recorded against the CONNECT
/// stands even when a tunnel event follows it (older builds wrote one for a tunnel that never
/// started, and inspect then showed "200 ok" over the error).
@Suite struct ExchangeRecordTunnelTests {
    func record(_ events: [CaptureEvent]) -> ExchangeRecord? {
        var log = ExchangeLog()
        var last: ExchangeRecord?
        for e in events { last = log.apply(e) ?? last }
        return last
    }

    let connect = CaptureEvent.request(
        RequestEvent(
            t: 1, exchange: 1, connection: 1, method: "CONNECT", target: "media.example.com:443", version: "HTTP/1.1",
            url: nil, headers: []))
    let tunnel = CaptureEvent.tunnel(
        TunnelEvent(
            t: 9, opened: 2, exchange: 1, connection: 1, authority: "media.example.com:443", up: 0, down: 0,
            intercepted: true))

    @Test func aTunnelThatStartedIsA200() throws {
        let r = try #require(record([connect, tunnel]))
        #expect(r.status == 200 && r.outcome == .complete)
    }

    @Test func anErrorBeforeTheTunnelEventStands() throws {
        let error = CaptureEvent.error(
            ErrorEvent(
                t: 5, exchange: 1, connection: 1, kind: .tls,
                message: "cannot start intercepting media.example.com:443: notFound"))
        let r = try #require(record([connect, error, tunnel]))
        #expect(r.status != 200, "a 200 that was never sent")
        #expect(r.outcome == .failed("cannot start intercepting media.example.com:443: notFound"))
    }
}
