import Crypto
import Foundation

/// Media files generated with ffmpeg's test sources (nothing is downloaded), made once per
/// test run and shared.
public enum Media {
    private static let lock = NSLock()
    private nonisolated(unsafe) static var made: [String: String] = [:]

    /// A directory holding `moov-at-end.mp4` (index after the media data, so players seek to
    /// the end first), `faststart.mp4` and `fragmented.mp4`.
    public static func directory() throws -> String {
        lock.lock()
        defer { lock.unlock() }
        if let d = made["dir"] { return d }
        let dir = NSTemporaryDirectory() + "rangetap-media-\(getpid())"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let ffmpeg = try Paths.tool("ffmpeg")
        let source = ["-hide_banner", "-loglevel", "error", "-y", "-f", "lavfi", "-i", "testsrc=duration=20:size=640x360:rate=25", "-f", "lavfi", "-i", "sine=frequency=440:duration=20", "-c:v", "libx264", "-preset", "ultrafast", "-b:v", "3M", "-g", "25", "-c:a", "aac", "-b:a", "64k", "-shortest"]
        for (name, extra) in [("moov-at-end.mp4", [String]()), ("faststart.mp4", ["-movflags", "+faststart"]), ("fragmented.mp4", ["-movflags", "+frag_keyframe+empty_moov"])] {
            let r = try runCommand(ffmpeg, source + extra + [dir + "/" + name], timeout: 120)
            guard r.status == 0 else { throw TestFailure("ffmpeg could not make \(name): \(r.stderr)") }
        }
        made["dir"] = dir
        return dir
    }
}

/// SHA-256 as lowercase hex.
public func sha256Hex<D: DataProtocol>(_ data: D) -> String {
    SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined()
}
