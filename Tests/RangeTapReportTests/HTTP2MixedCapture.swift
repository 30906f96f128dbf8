import Foundation
import RangeTapTestSupport

/// A capture of one HTTP/1.1 connection and one HTTP/2 connection, written as a recorder that
/// speaks HTTP/2 on both sides would write it.
///
/// - conn 1, HTTP/1.1 both sides: #1 `GET http://origin.example/a.mp4` `bytes=0-99` → 206, with
///   a lower-case `content-range` (a `header-case` finding over HTTP/1.1).
/// - conn 2, HTTP/2 both sides, `https://cdn.example/b.mp4` (1000 bytes): #2 stream 1
///   `bytes=0-499` and #3 stream 3 `bytes=500-999` complete (`h2-stream-ended`); #4 stream 5
///   `bytes=0-` cancelled after 300 bytes received, 200 granted back with WINDOW_UPDATE
///   (`h2-window-update`). The streams' requests interleave with #5 on conn 1.
/// - #5 on conn 1 again, HTTP/1.1, `bytes=100-199`, with an HTTP/2 upstream
///   (`HTTP/2 206`): a lower-case name there is no `header-case` finding.
struct HTTP2MixedCapture {
    let path: String

    /// The events, one JSON object a line.
    static let lines = [
        #"{"type":"capture","version":1,"tool":"rangetap test","startedAt":"2026-11-23T10:00:00.000Z","bodies":true,"redacted":true,"listen":"127.0.0.1:8080"}"#,
        #"{"type":"conn.open","t":1000000,"conn":1,"peer":"127.0.0.1:50000"}"#,
        #"{"type":"request","t":2000000,"ex":1,"conn":1,"method":"GET","target":"http://origin.example/a.mp4","version":"HTTP/1.1","url":"http://origin.example/a.mp4","headers":["Host: origin.example\r\n","Range: bytes=0-99\r\n"]}"#,
        #"{"type":"response","t":3000000,"ex":1,"status":206,"reused":false,"upstreamPort":40000,"lines":["HTTP/1.1 206 Partial Content\r\n","content-range: bytes 0-99/1000\r\n","Content-Length: 100\r\n","\r\n"]}"#,
        #"{"type":"chunk","t":4000000,"ex":1,"size":100,"off":0,"res":0,"at":0}"#,
        #"{"type":"end","t":5000000,"ex":1,"bytes":100,"sha256":"00","delivered":100,"deliveredBy":"complete"}"#,
        #"{"type":"conn.open","t":6000000,"conn":2,"peer":"127.0.0.1:50001"}"#,
        #"{"type":"request","t":7000000,"ex":2,"conn":2,"method":"GET","target":"/b.mp4","version":"HTTP/2","url":"https://cdn.example/b.mp4","stream":1,"headers":[":method: GET\r\n",":path: /b.mp4\r\n",":scheme: https\r\n",":authority: cdn.example\r\n","range: bytes=0-499\r\n","user-agent: test\r\n"]}"#,
        #"{"type":"request","t":7100000,"ex":3,"conn":2,"method":"GET","target":"/b.mp4","version":"HTTP/2","url":"https://cdn.example/b.mp4","stream":3,"headers":[":method: GET\r\n",":path: /b.mp4\r\n",":scheme: https\r\n",":authority: cdn.example\r\n","range: bytes=500-999\r\n"]}"#,
        #"{"type":"request","t":7200000,"ex":5,"conn":1,"method":"GET","target":"http://origin.example/c.mp4","version":"HTTP/1.1","url":"http://origin.example/c.mp4","headers":["Host: origin.example\r\n","Range: bytes=100-199\r\n"]}"#,
        #"{"type":"request","t":7300000,"ex":4,"conn":2,"method":"GET","target":"/b.mp4","version":"HTTP/2","url":"https://cdn.example/b.mp4","stream":5,"headers":[":method: GET\r\n",":path: /b.mp4\r\n",":scheme: https\r\n",":authority: cdn.example\r\n","range: bytes=0-\r\n"]}"#,
        #"{"type":"response","t":8000000,"ex":2,"status":206,"reused":false,"upstreamPort":40001,"lines":["HTTP/2 206\r\n","content-type: video/mp4\r\n","content-range: bytes 0-499/1000\r\n","content-length: 500\r\n","\r\n"]}"#,
        #"{"type":"response","t":8100000,"ex":3,"status":206,"reused":true,"upstreamPort":40001,"lines":["HTTP/2 206\r\n","content-type: video/mp4\r\n","content-range: bytes 500-999/1000\r\n","content-length: 500\r\n","\r\n"]}"#,
        #"{"type":"response","t":8200000,"ex":5,"status":206,"reused":false,"upstreamPort":40002,"lines":["HTTP/2 206\r\n","content-range: bytes 100-199/1000\r\n","content-length: 100\r\n","\r\n"]}"#,
        #"{"type":"response","t":8300000,"ex":4,"status":206,"reused":true,"upstreamPort":40001,"lines":["HTTP/2 206\r\n","content-type: video/mp4\r\n","content-range: bytes 0-999/1000\r\n","content-length: 1000\r\n","\r\n"]}"#,
        #"{"type":"chunk","t":9000000,"ex":2,"size":500,"off":0,"res":0,"at":100}"#,
        #"{"type":"chunk","t":9100000,"ex":3,"size":500,"off":0,"res":500,"at":600}"#,
        #"{"type":"chunk","t":9200000,"ex":5,"size":100,"off":0,"res":100,"at":1100}"#,
        #"{"type":"chunk","t":9300000,"ex":4,"size":300,"off":0,"res":0,"at":1200}"#,
        #"{"type":"end","t":10000000,"ex":2,"bytes":500,"sha256":"00","delivered":500,"deliveredBy":"h2-stream-ended"}"#,
        #"{"type":"end","t":10100000,"ex":3,"bytes":500,"sha256":"00","delivered":500,"deliveredBy":"h2-stream-ended"}"#,
        #"{"type":"end","t":10200000,"ex":5,"bytes":100,"sha256":"00","delivered":100,"deliveredBy":"complete"}"#,
        #"{"type":"cancel","t":10300000,"ex":4,"delivered":200,"received":300,"sha256":"00","deliveredBy":"h2-window-update"}"#,
        #"{"type":"conn.close","t":11000000,"conn":2,"by":"client","requests":3}"#,
        #"{"type":"conn.close","t":11100000,"conn":1,"by":"client","requests":2}"#,
    ]

    /// Writes the capture (`lines`, by default the mixed one above) to a fresh temporary directory.
    init(lines: [String] = Self.lines) throws {
        path = Paths.temporaryRoot + "/rangetap-h2-mixed-" + UUID().uuidString + ".rtap"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        try Data(lines.map { $0 + "\n" }.joined().utf8).write(to: URL(fileURLWithPath: path + "/events.jsonl"))
        try Data(repeating: 7, count: 1500).write(to: URL(fileURLWithPath: path + "/body.bin"))
    }

    /// Removes the capture.
    func remove() { try? FileManager.default.removeItem(atPath: path) }
}
