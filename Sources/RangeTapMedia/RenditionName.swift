import Foundation
import RangeTapCore

/// Display names of renditions as a person reads them: `1280x720 2.1 Mb/s`, `audio 128 kb/s`.
enum RenditionName {
    /// A name from what the playlist or manifest says about the rendition. `kind` names a
    /// rendition without a picture size (`audio`, `text`); nil when unknown.
    static func make(width: Int?, height: Int?, bandwidth: Int?, kind: String?) -> String? {
        var parts: [String] = []
        if let width, let height {
            parts.append("\(width)x\(height)")
        } else if let kind {
            parts.append(kind)
        }
        if let bandwidth, bandwidth > 0 { parts.append(rate(bandwidth)) }
        return parts.isEmpty ? nil : parts.joined(separator: " ")
    }

    /// A bit rate: `2.1 Mb/s` from one million bits per second up, else `128 kb/s`.
    static func rate(_ bitsPerSecond: Int) -> String {
        if bitsPerSecond >= 1_000_000 {
            let tenths = (bitsPerSecond + 50_000) / 100_000
            return "\(tenths / 10).\(tenths % 10) Mb/s"
        }
        if bitsPerSecond >= 1_000 { return "\((bitsPerSecond + 500) / 1_000) kb/s" }
        return "\(bitsPerSecond) b/s"
    }

    /// True when an HLS `CODECS` list names only audio codecs.
    static func isAudioOnly(codecs: String) -> Bool {
        let audio = ["mp4a", "ac-3", "ec-3", "ac-4", "opus", "flac", "alac", "mp3", ".mp3", "dtsc", "dtse", "dtsx"]
        let list = codecs.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        return !list.isEmpty && list.allSatisfy { codec in audio.contains { codec.hasPrefix($0) } }
    }
}
