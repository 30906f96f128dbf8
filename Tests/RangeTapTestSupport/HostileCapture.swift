import Foundation

/// A capture written line by line with numbers no sane origin sends but a faithful recorder
/// keeps: `Content-Range` starts and lengths next to `Int64.max`.
public struct HostileCapture {
    /// One exchange of the capture.
    public enum Exchange: CaseIterable, Sendable {
        /// `Content-Range: bytes 9223372036854775806-9223372036854775807/*`: 2 bytes whose end overflows.
        case far
        /// `Content-Range: bytes 0-1/9223372036854775807`, cancelled after 1 byte delivered.
        case huge
        /// `Content-Range: bytes 0-3/4`: an ordinary resource.
        case ok

        public var path: String {
            switch self {
            case .far: "/far"
            case .huge: "/huge"
            case .ok: "/ok"
            }
        }
    }

    /// The capture directory.
    public let path: String

    /// A capture in a new temporary directory holding `exchanges`, in order.
    public init(_ exchanges: [Exchange]) throws {
        path = Paths.temporaryRoot + "/rangetap-hostile-" + UUID().uuidString + ".rtap"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        var lines = [
            #"{"type":"capture","version":1,"tool":"rangetap test","startedAt":"2026-11-22T18:16:44.846Z","bodies":true,"redacted":true,"listen":"127.0.0.1:8080"}"#,
            #"{"type":"conn.open","t":1000,"conn":1,"peer":"127.0.0.1:50000","sndbuf":2626560}"#,
        ]
        var body: [UInt8] = []
        var t = 2000
        for (i, e) in exchanges.enumerated() {
            let ex = i + 1
            let (range, contentRange, res, size): (String, String, Int64, Int) =
                switch e {
                case .far:
                    (
                        "bytes=9223372036854775806-", "bytes 9223372036854775806-9223372036854775807/*",
                        9_223_372_036_854_775_806, 2
                    )
                case .huge: ("bytes=0-1", "bytes 0-1/9223372036854775807", 0, 2)
                case .ok: ("bytes=0-3", "bytes 0-3/4", 0, 4)
                }
            let url = "http://127.0.0.1:8081" + e.path
            lines.append(
                #"{"type":"request","t":\#(t),"ex":\#(ex),"conn":1,"method":"GET","target":"\#(url)","version":"HTTP/1.1","url":"\#(url)","headers":["Host: 127.0.0.1:8081\r\n","Range: \#(range)\r\n"]}"#
            )
            lines.append(
                #"{"type":"response","t":\#(t + 1000),"ex":\#(ex),"status":206,"reused":\#(i > 0),"upstreamPort":40000,"lines":["HTTP/1.1 206 Partial Content\r\n","Content-Range: \#(contentRange)\r\n","Content-Length: \#(size)\r\n","\r\n"]}"#
            )
            lines.append(
                #"{"type":"chunk","t":\#(t + 2000),"ex":\#(ex),"size":\#(size),"off":0,"res":\#(res),"at":\#(body.count)}"#
            )
            body += (0..<size).map { UInt8(truncatingIfNeeded: ex * 16 + $0) }
            if e == .huge {
                lines.append(
                    #"{"type":"cancel","t":\#(t + 3000),"ex":\#(ex),"delivered":1,"received":\#(size),"sha256":"00"}"#)
            } else {
                lines.append(#"{"type":"end","t":\#(t + 3000),"ex":\#(ex),"bytes":\#(size),"sha256":"00"}"#)
            }
            t += 10000
        }
        lines.append(#"{"type":"conn.close","t":\#(t),"conn":1,"by":"client","requests":\#(exchanges.count)}"#)
        try Data(lines.map { $0 + "\n" }.joined().utf8).write(to: URL(fileURLWithPath: path + "/events.jsonl"))
        try Data(body).write(to: URL(fileURLWithPath: path + "/body.bin"))
    }

    /// Removes the capture.
    public func remove() { try? FileManager.default.removeItem(atPath: path) }
}
