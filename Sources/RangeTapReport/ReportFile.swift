import Foundation

/// Writes a finished report to disk.
enum ReportFile {
    /// Writes `data` to `path` atomically (a temporary file renamed over it).
    static func write(_ data: Data, to path: String) throws(ReportError) {
        do {
            try data.write(to: URL(fileURLWithPath: path), options: .atomic)
        } catch {
            let reason = (error as NSError).localizedFailureReason ?? (error as NSError).localizedDescription
            throw .cannotWrite(path: path, reason: reason)
        }
    }
}
