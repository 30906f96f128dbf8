import Foundation
import RangeTapTestSupport

/// A player lab capture (`record --shape … --fault …`) of one resource, 1000 bytes, recorded
/// without bodies, as the proxy writes it:
///
/// - #1 `bytes=0-99` → 206; `header-case=lower` rewrote the head the client got (`lines`): two
///   `header-case` findings, injected.
/// - #2 `bytes=100-199` → 206 with the origin's own `content-range`: one `header-case`
///   finding, the origin's (no fault).
/// - #3 `status=503`: answered 503 with `Connection: close` without asking the origin: a
///   `connection-close` finding, injected.
/// - #4 `ignore-range`: the Range was removed, the origin answered 200: `range-ignored` (and a
///   refetch), injected.
/// - #5 `truncate-after=50` on `bytes=300-399`: the client got 50 of 100 bytes: `truncated`,
///   injected.
///
/// The link was shaped from the start and turned off at 40 ms; #1 has `delivered` events.
struct FaultCapture {
    let path: String

    static let lines = [
        #"{"type":"capture","version":1,"tool":"rangetap test","startedAt":"2026-11-23T10:00:00.000Z","bodies":false,"redacted":true,"listen":"127.0.0.1:8080"}"#,
        #"{"type":"shape","t":0,"spec":"rate=2mbit,latency=80ms,scope=link"}"#,
        #"{"type":"conn.open","t":1000000,"conn":1,"peer":"127.0.0.1:50000"}"#,
        #"{"type":"request","t":2000000,"ex":1,"conn":1,"method":"GET","target":"http://origin.example/a.mp4","version":"HTTP/1.1","url":"http://origin.example/a.mp4","headers":["Host: origin.example\r\n","Range: bytes=0-99\r\n"]}"#,
        #"{"type":"response","t":3000000,"ex":1,"status":206,"reused":false,"upstreamPort":40000,"lines":["HTTP/1.1 206 Partial Content\r\n","Content-Range: bytes 0-99/1000\r\n","Content-Length: 100\r\n","\r\n"]}"#,
        #"{"type":"fault","t":3000100,"ex":1,"rule":"header-case=lower","action":"header-case","detail":"respelled 2 names","lines":["HTTP/1.1 206 Partial Content\r\n","content-range: bytes 0-99/1000\r\n","content-length: 100\r\n"]}"#,
        #"{"type":"chunk","t":4000000,"ex":1,"size":100,"off":0,"res":0}"#,
        #"{"type":"delivered","t":4500000,"ex":1,"bytes":60}"#,
        #"{"type":"delivered","t":5000000,"ex":1,"bytes":100}"#,
        #"{"type":"end","t":5000000,"ex":1,"bytes":100,"sha256":"00","delivered":100,"deliveredBy":"complete"}"#,
        #"{"type":"request","t":6000000,"ex":2,"conn":1,"method":"GET","target":"http://origin.example/a.mp4","version":"HTTP/1.1","url":"http://origin.example/a.mp4","headers":["Host: origin.example\r\n","Range: bytes=100-199\r\n"]}"#,
        #"{"type":"response","t":7000000,"ex":2,"status":206,"reused":true,"upstreamPort":40000,"lines":["HTTP/1.1 206 Partial Content\r\n","content-range: bytes 100-199/1000\r\n","Content-Length: 100\r\n","\r\n"]}"#,
        #"{"type":"chunk","t":8000000,"ex":2,"size":100,"off":0,"res":100}"#,
        #"{"type":"end","t":9000000,"ex":2,"bytes":100,"sha256":"00","delivered":100,"deliveredBy":"complete"}"#,
        #"{"type":"request","t":10000000,"ex":3,"conn":1,"method":"GET","target":"http://origin.example/a.mp4","version":"HTTP/1.1","url":"http://origin.example/a.mp4","headers":["Host: origin.example\r\n","Range: bytes=200-299\r\n"]}"#,
        #"{"type":"fault","t":10000100,"ex":3,"rule":"path=*.mp4,nth=3,status=503","action":"status","detail":"answered 503 without asking the origin"}"#,
        #"{"type":"response","t":10000200,"ex":3,"status":503,"reused":false,"lines":["HTTP/1.1 503 Service Unavailable\r\n","Content-Length: 0\r\n","Connection: close\r\n","\r\n"]}"#,
        #"{"type":"end","t":10000300,"ex":3,"bytes":0,"sha256":"00","delivered":0,"deliveredBy":"complete"}"#,
        #"{"type":"conn.close","t":10000400,"conn":1,"by":"proxy","requests":3}"#,
        #"{"type":"conn.open","t":11000000,"conn":2,"peer":"127.0.0.1:50001"}"#,
        #"{"type":"request","t":12000000,"ex":4,"conn":2,"method":"GET","target":"http://origin.example/a.mp4","version":"HTTP/1.1","url":"http://origin.example/a.mp4","headers":["Host: origin.example\r\n","Range: bytes=200-299\r\n"]}"#,
        #"{"type":"fault","t":12000100,"ex":4,"rule":"ignore-range","action":"ignore-range","detail":"Range removed before asking the origin"}"#,
        #"{"type":"response","t":13000000,"ex":4,"status":200,"reused":false,"upstreamPort":40001,"lines":["HTTP/1.1 200 OK\r\n","Accept-Ranges: bytes\r\n","Content-Length: 1000\r\n","\r\n"]}"#,
        #"{"type":"chunk","t":14000000,"ex":4,"size":1000,"off":0,"res":0}"#,
        #"{"type":"end","t":15000000,"ex":4,"bytes":1000,"sha256":"00","delivered":1000,"deliveredBy":"complete"}"#,
        #"{"type":"request","t":16000000,"ex":5,"conn":2,"method":"GET","target":"http://origin.example/a.mp4","version":"HTTP/1.1","url":"http://origin.example/a.mp4","headers":["Host: origin.example\r\n","Range: bytes=300-399\r\n"]}"#,
        #"{"type":"response","t":17000000,"ex":5,"status":206,"reused":true,"upstreamPort":40001,"lines":["HTTP/1.1 206 Partial Content\r\n","Content-Range: bytes 300-399/1000\r\n","Content-Length: 100\r\n","\r\n"]}"#,
        #"{"type":"chunk","t":18000000,"ex":5,"size":100,"off":0,"res":300}"#,
        #"{"type":"fault","t":18000100,"ex":5,"rule":"truncate-after=50","action":"truncate-after","detail":"closed the client connection after 50 body bytes"}"#,
        #"{"type":"end","t":19000000,"ex":5,"bytes":100,"sha256":"00","delivered":50,"deliveredBy":"tcp-acked"}"#,
        #"{"type":"shape","t":40000000,"spec":"off"}"#,
        #"{"type":"conn.close","t":41000000,"conn":2,"by":"proxy","requests":2}"#,
    ]

    /// Writes `lines` (by default the capture above) to a fresh temporary capture directory.
    init(lines: [String] = Self.lines) throws {
        path = Paths.temporaryRoot + "/rangetap-fault-" + UUID().uuidString + ".rtap"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        try Data(lines.map { $0 + "\n" }.joined().utf8).write(to: URL(fileURLWithPath: path + "/events.jsonl"))
    }

    /// The same capture without its `fault`, `shape` and `delivered` lines.
    static var withoutLabEvents: [String] {
        lines.filter {
            !$0.contains(#""type":"fault""#) && !$0.contains(#""type":"shape""#) && !$0.contains(#""type":"delivered""#)
        }
    }

    /// Removes the capture.
    func remove() { try? FileManager.default.removeItem(atPath: path) }
}
