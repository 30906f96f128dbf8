import Foundation
import RangeTapTestSupport

/// HLS and DASH media made with ffmpeg from its test sources (12 s of 320x180 testsrc and a
/// sine tone), served in the tests under ``origin``.
enum MediaFixtures {
    /// The URL the tests pretend the fixture directory is served at.
    static let origin = "https://media.test/vod/"

    /// ffmpeg's inputs: 12 s of picture and tone.
    static let source = [
        "-hide_banner", "-loglevel", "error", "-y",
        "-f", "lavfi", "-i", "testsrc=duration=12:size=320x180:rate=25",
        "-f", "lavfi", "-i", "sine=duration=12",
    ]
    /// The encoders: H.264 with a key frame every 2 s, AAC.
    static let codecs = ["-c:v", "libx264", "-preset", "ultrafast", "-g", "50", "-c:a", "aac"]

    /// Runs ffmpeg with `arguments` in a new directory and returns the directory.
    static func make(_ label: String, _ arguments: [String]) throws -> String {
        let dir = Paths.temporaryDirectory(label)
        let result = try runCommand(try Paths.tool("ffmpeg"), arguments, directory: dir, timeout: 180)
        guard result.status == 0 else {
            throw TestFailure("ffmpeg \(arguments.joined(separator: " ")) failed: \(result.stderr)")
        }
        return dir
    }

    /// The text of `name` in `dir`.
    static func text(_ dir: String, _ name: String) throws -> String {
        try String(contentsOfFile: dir + "/" + name, encoding: .utf8)
    }

    /// The bytes of the file at `path`.
    static func bytes(_ path: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    /// Size of the file at `path`.
    static func size(_ path: String) throws -> Int64 {
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        return (attributes[.size] as? NSNumber)?.int64Value ?? -1
    }

    /// The duration ffprobe reads from the container at `path`, seconds.
    static func probedDuration(_ path: String) throws -> Double {
        let result = try runCommand(
            try Paths.tool("ffprobe"), ["-v", "error", "-show_entries", "format=duration", "-of", "csv=p=0", path])
        guard result.status == 0, let seconds = Double(result.text.trimmingCharacters(in: .whitespacesAndNewlines))
        else {
            throw TestFailure("ffprobe \(path) failed: \(result.stderr) \(result.text)")
        }
        return seconds
    }

    /// The file in `dir` that `url` (under ``origin``) names; nil for a URL elsewhere.
    static func path(of url: String, in dir: String) -> String? {
        guard url.hasPrefix(origin) else { return nil }
        return dir + "/" + url.dropFirst(origin.count)
    }

    /// True when `url` names a file that exists in `dir`.
    static func exists(_ url: String, in dir: String) -> Bool {
        guard let path = path(of: url, in: dir) else { return false }
        return FileManager.default.fileExists(atPath: path)
    }
}
