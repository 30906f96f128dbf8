import Foundation

/// A fresh directory under ``Paths/temporaryRoot``, removed when released.
public final class TemporaryDirectory {
    /// The directory's path.
    public let path: String

    public init() throws {
        path = Paths.temporaryRoot + "/rangetap-core-tests-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }
}

/// Appends raw bytes to a file.
public func appendBytes(_ bytes: [UInt8], to file: String) throws {
    guard let handle = FileHandle(forWritingAtPath: file) else {
        throw TestFailure("cannot open \(file) to append")
    }
    defer { try? handle.close() }
    try handle.seekToEnd()
    try handle.write(contentsOf: Data(bytes))
}
