import Foundation
import RangeTapTestSupport

/// A player lab capture (`record --shape … --fault …`) of one 1000-byte resource, bodies kept:
///
/// - #1 `bytes=0-99` → 206 from the origin; `header-case=lower` rewrote the head the client got
///   (the fault's `lines`): two `header-case` findings, injected. The shaped client got the body
///   in two steps (`delivered` 60, then 100).
/// - #2 `bytes=100-199` → 206 whose origin spells `content-range`: its `header-case` finding is
///   the origin's. No fault, no deliveries.
/// - #3 `bytes=200-299`: `reset-after=10` reset the client's connection after 10 bytes: a
///   `cancel` and its findings, injected.
///
/// The link was shaped from t = 0 and turned off at 40 ms.
struct LabCapture {
    let path: String

    static let lines = [
        #"{"type":"capture","version":1,"tool":"rangetap test","startedAt":"2026-11-23T10:00:00.000Z","bodies":true,"redacted":true,"listen":"127.0.0.1:8080"}"#,
        #"{"type":"shape","t":0,"spec":"rate=2mbit,latency=80ms,scope=link","trace":"cell.trace"}"#,
        #"{"type":"conn.open","t":1000000,"conn":1,"peer":"127.0.0.1:50000"}"#,
        #"{"type":"request","t":2000000,"ex":1,"conn":1,"method":"GET","target":"http://origin.example/a.mp4","version":"HTTP/1.1","url":"http://origin.example/a.mp4","headers":["Host: origin.example\r\n","Range: bytes=0-99\r\n"]}"#,
        #"{"type":"response","t":3000000,"ex":1,"status":206,"reused":false,"upstreamPort":40000,"lines":["HTTP/1.1 206 Partial Content\r\n","Content-Range: bytes 0-99/1000\r\n","Content-Length: 100\r\n","\r\n"]}"#,
        #"{"type":"fault","t":3000100,"ex":1,"rule":"header-case=lower","action":"header-case","detail":"respelled 2 names","lines":["HTTP/1.1 206 Partial Content\r\n","content-range: bytes 0-99/1000\r\n","content-length: 100\r\n"]}"#,
        #"{"type":"chunk","t":4000000,"ex":1,"size":100,"off":0,"res":0,"at":0}"#,
        #"{"type":"delivered","t":6000000,"ex":1,"bytes":60}"#,
        #"{"type":"delivered","t":9000000,"ex":1,"bytes":100}"#,
        #"{"type":"end","t":9000000,"ex":1,"bytes":100,"sha256":"00","delivered":100,"deliveredBy":"complete"}"#,
        #"{"type":"request","t":10000000,"ex":2,"conn":1,"method":"GET","target":"http://origin.example/a.mp4","version":"HTTP/1.1","url":"http://origin.example/a.mp4","headers":["Host: origin.example\r\n","Range: bytes=100-199\r\n"]}"#,
        #"{"type":"response","t":11000000,"ex":2,"status":206,"reused":true,"upstreamPort":40000,"lines":["HTTP/1.1 206 Partial Content\r\n","content-range: bytes 100-199/1000\r\n","Content-Length: 100\r\n","\r\n"]}"#,
        #"{"type":"chunk","t":12000000,"ex":2,"size":100,"off":0,"res":100,"at":100}"#,
        #"{"type":"end","t":13000000,"ex":2,"bytes":100,"sha256":"00","delivered":100,"deliveredBy":"complete"}"#,
        #"{"type":"request","t":14000000,"ex":3,"conn":1,"method":"GET","target":"http://origin.example/a.mp4","version":"HTTP/1.1","url":"http://origin.example/a.mp4","headers":["Host: origin.example\r\n","Range: bytes=200-299\r\n"]}"#,
        #"{"type":"response","t":15000000,"ex":3,"status":206,"reused":true,"upstreamPort":40000,"lines":["HTTP/1.1 206 Partial Content\r\n","Content-Range: bytes 200-299/1000\r\n","Content-Length: 100\r\n","\r\n"]}"#,
        #"{"type":"chunk","t":16000000,"ex":3,"size":100,"off":0,"res":200,"at":200}"#,
        #"{"type":"fault","t":16000100,"ex":3,"rule":"reset-after=10","action":"reset-after","detail":"reset the client connection after 10 body bytes"}"#,
        #"{"type":"cancel","t":17000000,"ex":3,"delivered":10,"received":100,"sha256":"00","deliveredBy":"tcp-acked"}"#,
        #"{"type":"conn.close","t":17000100,"conn":1,"by":"proxy","requests":3}"#,
        #"{"type":"shape","t":40000000,"spec":"off"}"#,
    ]

    /// Writes `lines` (by default the capture above) to a fresh temporary capture directory.
    init(lines: [String] = Self.lines) throws {
        path = Paths.temporaryRoot + "/rangetap-lab-" + UUID().uuidString + ".rtap"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        try Data(lines.map { $0 + "\n" }.joined().utf8).write(to: URL(fileURLWithPath: path + "/events.jsonl"))
        try Data(repeating: 7, count: 300).write(to: URL(fileURLWithPath: path + "/body.bin"))
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
