import Foundation
import RangeTapCore

/// Media files generated with ffmpeg's test sources (nothing is downloaded), made once for
/// all the suite processes of a test run and shared: in a directory of `$TMPDIR` (which
/// `tools/test.sh` makes for the run) named after the script that makes them and a hash of its
/// text, so a changed script makes new files. `flock` serialises the processes that need them
/// at once: the first makes them (about 15 CPU seconds), the others wait and reuse them.
public enum Media {
    private static let lock = NSLock()
    private nonisolated(unsafe) static var made: [String: String] = [:]

    /// A directory holding `moov-at-end.mp4` (index after the media data, so players seek to
    /// the end first), `faststart.mp4` and `fragmented.mp4`, made by `tools/make-media.sh`.
    public static func directory() throws -> String {
        try shared(script: "make-media.sh", name: "rangetap-media")
    }

    /// A directory holding HLS and DASH renditions of 12 s of test media (`hls-fmp4/`,
    /// `hls-ts/`, `dash/`, `dash-single/`, `dash-base/`), made by `tools/make-streams.sh`.
    public static func streams() throws -> String {
        try shared(script: "make-streams.sh", name: "rangetap-streams")
    }

    /// The directory `tools/<script>` fills, made (or completed: the scripts keep what exists)
    /// under an exclusive lock on `<directory>.lock`.
    private static func shared(script: String, name: String) throws -> String {
        lock.lock()
        defer { lock.unlock() }
        if let d = made[script] { return d }
        let path = Paths.root + "/tools/" + script
        let stamp = SHA256Hasher.hex(try Data(contentsOf: URL(fileURLWithPath: path))).prefix(12)
        let dir = (NSTemporaryDirectory() as NSString).appendingPathComponent("\(name)-\(stamp)")
        let r = try runCommand("/usr/bin/flock", [dir + ".lock", "/bin/bash", path, dir], timeout: 300)
        guard r.status == 0 else { throw TestFailure("tools/\(script) failed: \(r.stderr)") }
        made[script] = dir
        return dir
    }
}

/// SHA-256 as lowercase hex.
public func sha256Hex<D: DataProtocol>(_ data: D) -> String {
    SHA256Hasher.hex(data)
}
