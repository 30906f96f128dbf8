import Foundation
import RangeTapTestSupport

/// A capture whose client and upstream sent terminal escape sequences and whose request URL
/// carries a password (`http://user:hunter2@…`), as a recorder that kept them would write it.
struct HostileTextCapture {
    let path: String

    /// `redacted`: what the header says (false: recorded with `--keep-secrets`).
    init(redacted: Bool = true) throws {
        path = Paths.temporaryRoot + "/rangetap-hostile-text-" + UUID().uuidString + ".rtap"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        let url = #"http://user:hunter2@127.0.0.1:8081/a\u001b[2J.mp4"#
        let lines = [
            #"{"type":"capture","version":1,"tool":"rangetap test\u001b]0;owned\u0007","startedAt":"2026-11-22T18:16:44.846Z","bodies":true,"redacted":\#(redacted),"listen":"127.0.0.1:8080","upstream":"http://up:hunter2@origin.example"}"#,
            #"{"type":"conn.open","t":1000,"conn":1,"peer":"127.0.0.1:50000"}"#,
            #"{"type":"request","t":2000,"ex":1,"conn":1,"method":"GET","target":"\#(url)","version":"HTTP/1.1","url":"\#(url)","headers":["Host: 127.0.0.1:8081\r\n","Range: bytes=0-3\u001b[5m\r\n"]}"#,
            #"{"type":"response","t":3000,"ex":1,"status":206,"reused":false,"upstreamPort":40000,"lines":["HTTP/1.1 206 Partial Content\r\n","Content-Range: bytes 0-3/4\r\n","Content-Length: 4\r\n","X-Evil: \u001b]2;pwned\u0007\u001b[31m\r\n","\r\n"]}"#,
            #"{"type":"chunk","t":4000,"ex":1,"size":4,"off":0,"res":0,"at":0}"#,
            #"{"type":"end","t":5000,"ex":1,"bytes":4,"sha256":"00"}"#,
            #"{"type":"request","t":6000,"ex":2,"conn":1,"method":"GET","target":"/b\u001b[1A","version":"HTTP/1.1","url":"http://user:hunter2@127.0.0.1:8081/b","headers":["Host: 127.0.0.1:8081\r\n"]}"#,
            #"{"type":"error","t":7000,"ex":2,"conn":1,"kind":"upstream","message":"upstream failed: \u001b[2K\rforged line for http://user:hunter2@127.0.0.1:8081/b (curl error 56)","curlCode":56,"status":502}"#,
            #"{"type":"error","t":8000,"conn":1,"kind":"bad-request","message":"malformed request \u001b[H\u001b[2J for http://user:hunter2@h/","status":400}"#,
            #"{"type":"conn.close","t":9000,"conn":1,"by":"client","requests":2}"#,
        ]
        try Data(lines.map { $0 + "\n" }.joined().utf8).write(to: URL(fileURLWithPath: path + "/events.jsonl"))
        try Data([1, 2, 3, 4]).write(to: URL(fileURLWithPath: path + "/body.bin"))
    }

    /// Removes the capture.
    func remove() { try? FileManager.default.removeItem(atPath: path) }
}
