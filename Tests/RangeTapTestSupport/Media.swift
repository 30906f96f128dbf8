import Foundation
import RangeTapCore

/// Media files generated with ffmpeg's test sources (nothing is downloaded), made once per
/// test run and shared.
public enum Media {
    private static let lock = NSLock()
    private nonisolated(unsafe) static var made: [String: String] = [:]

    /// A directory holding `moov-at-end.mp4` (index after the media data, so players seek to
    /// the end first), `faststart.mp4` and `fragmented.mp4`, made by `tools/make-media.sh`.
    public static func directory() throws -> String {
        lock.lock()
        defer { lock.unlock() }
        if let d = made["dir"] { return d }
        let dir = Paths.temporaryRoot + "/rangetap-media-\(getpid())"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let r = try runCommand("/bin/bash", [Paths.root + "/tools/make-media.sh", dir], timeout: 300)
        guard r.status == 0 else { throw TestFailure("tools/make-media.sh failed: \(r.stderr)") }
        made["dir"] = dir
        return dir
    }

    /// A directory holding HLS and DASH renditions of 12 s of test media (`hls-fmp4/`,
    /// `hls-ts/`, `dash/`, `dash-single/`, `dash-base/`), made by `tools/make-streams.sh`.
    public static func streams() throws -> String {
        lock.lock()
        defer { lock.unlock() }
        if let d = made["streams"] { return d }
        let dir = Paths.temporaryRoot + "/rangetap-streams-\(getpid())"
        let r = try runCommand("/bin/bash", [Paths.root + "/tools/make-streams.sh", dir], timeout: 300)
        guard r.status == 0 else { throw TestFailure("tools/make-streams.sh failed: \(r.stderr)") }
        made["streams"] = dir
        return dir
    }
}

/// SHA-256 as lowercase hex.
public func sha256Hex<D: DataProtocol>(_ data: D) -> String {
    SHA256Hasher.hex(data)
}
