import Foundation

/// Line-at-a-time writes to stderr (stdout is kept for reports).
struct StandardError: Sendable {
    func write(_ line: String) {
        FileHandle.standardError.write(Data((line + "\n").utf8))
    }
}
