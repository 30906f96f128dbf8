import Foundation
import RangeTapCore

/// Reads the text files the lab flags name (`--shape-trace`, `--faults`).
enum LabTextFile {
    /// The contents of `path` as UTF-8 (invalid bytes replaced).
    static func read(_ path: String) throws(LabSpecError) -> String {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw .cannotRead(path: path, reason: "no such file")
        }
        guard !isDirectory.boolValue else { throw .cannotRead(path: path, reason: "it is a directory") }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw .cannotRead(path: path, reason: "it is not readable")
        }
        return String(decoding: data, as: UTF8.self)
    }

    /// The lines of `text` (ended by LF, CRLF or CR) with their 1-based numbers, trimmed, leaving out blank lines and
    /// lines whose first non-blank character is `#`.
    static func contentLines(_ text: String) -> [(number: Int, text: Substring)] {
        var lines: [(number: Int, text: Substring)] = []
        for (index, raw) in text.split(
            omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" || $0 == "\r" }
        ).enumerated() {
            let line = raw.trimmingLabBlanks()
            if line.isEmpty || line.hasPrefix("#") { continue }
            lines.append((index + 1, line))
        }
        return lines
    }
}
