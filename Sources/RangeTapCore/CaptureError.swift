/// A capture could not be written or read. The description says what to do about it.
public struct CaptureError: Error, Sendable, Hashable, CustomStringConvertible {
    private enum Code: Sendable, Hashable {
        case cannotCreate(path: String, reason: String)
        case cannotOpen(path: String, reason: String)
        case malformedEvent(line: Int, reason: String)
        case noHeader(path: String)
        case unsupportedVersion(found: Int)
        case bodiesNotRecorded(path: String)
        case bodyOutOfRange(path: String, offset: Int64, size: Int)
        case writeFailed(path: String, reason: String)
    }
    private let code: Code

    private init(_ code: Code) { self.code = code }

    /// The capture directory or one of its files could not be created.
    public static func cannotCreate(path: String, reason: String) -> Self {
        .init(.cannotCreate(path: path, reason: reason))
    }
    /// The capture could not be opened.
    public static func cannotOpen(path: String, reason: String) -> Self {
        .init(.cannotOpen(path: path, reason: reason))
    }
    /// A complete line of `events.jsonl` is not a valid event.
    public static func malformedEvent(line: Int, reason: String) -> Self {
        .init(.malformedEvent(line: line, reason: reason))
    }
    /// The first event is not a capture header.
    public static func noHeader(path: String) -> Self { .init(.noHeader(path: path)) }
    /// The capture was written by a newer format version.
    public static func unsupportedVersion(found: Int) -> Self { .init(.unsupportedVersion(found: found)) }
    /// Body bytes were asked for but the capture was recorded with `--no-bodies`.
    public static func bodiesNotRecorded(path: String) -> Self { .init(.bodiesNotRecorded(path: path)) }
    /// A chunk points past the end of `body.bin`.
    public static func bodyOutOfRange(path: String, offset: Int64, size: Int) -> Self {
        .init(.bodyOutOfRange(path: path, offset: offset, size: size))
    }
    /// Writing the capture failed (disk full, permissions).
    public static func writeFailed(path: String, reason: String) -> Self {
        .init(.writeFailed(path: path, reason: reason))
    }

    public var description: String {
        switch code {
        case .cannotCreate(let path, let reason):
            "cannot create capture \(path): \(reason). Choose a path in a writable directory, or remove the existing one."
        case .cannotOpen(let path, let reason):
            "cannot open capture \(path): \(reason). A capture is a directory NAME.rtap holding events.jsonl and body.bin."
        case .malformedEvent(let line, let reason):
            "events.jsonl line \(line) is not a valid event: \(reason). The capture is damaged at that line; events before it are intact."
        case .noHeader(let path):
            "\(path) does not start with a capture header line; it is not a rangetap capture."
        case .unsupportedVersion(let found):
            "capture format version \(found) is newer than this rangetap understands (\(CaptureHeader.currentVersion)); upgrade rangetap."
        case .bodiesNotRecorded(let path):
            "\(path) was recorded with --no-bodies: it has hashes and timings but no body bytes. Record again without --no-bodies."
        case .bodyOutOfRange(let path, let offset, let size):
            "\(path)/body.bin ends before the chunk at \(offset) (+\(size) bytes): the body file was cut short."
        case .writeFailed(let path, let reason):
            "writing capture \(path) failed: \(reason). Free disk space or choose another path; events before this point are on disk."
        }
    }
}
