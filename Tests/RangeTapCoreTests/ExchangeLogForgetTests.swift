import Testing
import RangeTapCore

/// The live log applies every event of a long session to an `ExchangeLog` and forgets each
/// exchange as it ends: the log must stay as small as the exchanges still open, and records
/// must come out whole.
@Suite("ExchangeLog forget")
struct ExchangeLogForgetTests {
    @Test func aLongSessionLeavesNothingBehind() {
        var log = ExchangeLog(keepChunks: false, redactsURLPasswords: true)
        var finished = 0
        for id in 1...10_000 {
            let t = CaptureTime(id * 10)
            log.apply(
                .request(
                    RequestEvent(
                        t: t, exchange: id, connection: 1, method: "GET", target: "/s\(id).m4s", version: "HTTP/1.1",
                        url: nil, headers: [HeaderLine(raw: "Range: bytes=0-99\r\n")])))
            log.apply(
                .response(
                    ResponseEvent(
                        t: t + 1, exchange: id, status: 206,
                        lines: ["HTTP/1.1 206 Partial Content\r\n", "Content-Range: bytes 0-99/1000\r\n", "\r\n"].map(
                            HeaderLine.init(raw:)), reused: true, upstreamPort: nil)))
            log.apply(
                .chunk(ChunkEvent(t: t + 2, exchange: id, size: 100, offset: 0, resourceOffset: 0, bodyOffset: nil)))
            // One exchange in ten stays open.
            guard id % 10 != 0 else { continue }
            let done = log.apply(.end(EndEvent(t: t + 3, exchange: id, bytes: 100, sha256: "")))
            #expect(
                done?.status == 206 && done?.contentRange == "bytes 0-99/1000" && done?.requestRange == "bytes=0-99"
                    && done?.bytesReceived == 100 && done?.chunkCount == 1 && done?.end == t + 3)
            if let done {
                log.forget(done.id)
                finished += 1
            }
        }
        #expect(finished == 9_000)
        #expect(log.exchanges.count == 1_000)
        #expect(log.order.count <= 2 * 1_000 + 1, "order holds \(log.order.count) ids")
        #expect(log.records.map(\.id) == Array(stride(from: 10, through: 10_000, by: 10)))
    }
}
