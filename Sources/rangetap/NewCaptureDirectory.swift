import Foundation
import Logging

/// The capture directory `record` is about to create, so that a recording that never started
/// (the port was taken) leaves nothing behind: the directory is removed if `record` created it,
/// or emptied again if it was an empty directory before.
struct NewCaptureDirectory {
    /// The capture path.
    let path: String
    /// Whether it existed (as an empty directory, the only kind a capture may be written to).
    private let existed: Bool

    /// Notes whether `path` exists, before the capture is created.
    init(path: String) {
        self.path = path
        existed = FileManager.default.fileExists(atPath: path)
    }

    /// Removes what the capture writer created there.
    func discard(logger: Logger) {
        let files = FileManager.default
        if existed {
            for name in (try? files.contentsOfDirectory(atPath: path)) ?? [] {
                try? files.removeItem(atPath: path + "/" + name)
            }
        } else {
            try? files.removeItem(atPath: path)
        }
        logger.debug("removed the unused capture \(path)")
    }
}
