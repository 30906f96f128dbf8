import RangeTapCore

/// Why an MP4 file's boxes could not be read. The description names the box and the byte it
/// starts at, and says what to do about it.
///
/// Thrown by ``MP4Index/read(_:)``, ``MP4Box`` and ``MP4SegmentIndex/parse(_:at:)`` for
/// malformed or hostile input; a capture that merely lacks bytes is not an error (the readers
/// stop where the bytes end).
public struct MP4Error: Error, Sendable, Hashable, CustomStringConvertible {
    private enum Code: Sendable, Hashable {
        case boxTooSmall(size: UInt64)
        case largeSizeTooSmall(size: UInt64)
        case pastEnd(end: Int64, limit: Int64)
        case truncated(needed: Int, available: Int)
        case countTooLarge(count: UInt64, fits: Int)
        case tooLarge(size: Int64, limit: Int64)
        case inconsistent(reason: String)
    }
    private let code: Code
    /// The four-character type of the box at fault (`stsz`, `moov`, …).
    public let box: String
    /// The byte of the resource the box at fault starts at.
    public let offset: Int64

    private init(_ code: Code, box: String, offset: Int64) {
        self.code = code
        self.box = box
        self.offset = offset
    }

    /// A box declares a size smaller than its own 8-byte header.
    public static func boxTooSmall(box: String, offset: Int64, size: UInt64) -> Self {
        .init(.boxTooSmall(size: size), box: box, offset: offset)
    }
    /// A box uses a 64-bit size (`size` 1) whose value is smaller than its 16-byte header.
    public static func largeSizeTooSmall(box: String, offset: Int64, size: UInt64) -> Self {
        .init(.largeSizeTooSmall(size: size), box: box, offset: offset)
    }
    /// A box declares an end past the end of its container or of the resource.
    public static func pastEnd(box: String, offset: Int64, end: Int64, limit: Int64) -> Self {
        .init(.pastEnd(end: end, limit: limit), box: box, offset: offset)
    }
    /// A box is too short for the fields its type requires.
    public static func truncated(box: String, offset: Int64, needed: Int, available: Int) -> Self {
        .init(.truncated(needed: needed, available: available), box: box, offset: offset)
    }
    /// A box declares more entries than its bytes (or this reader's sample limit) can hold.
    public static func countTooLarge(box: String, offset: Int64, count: UInt64, fits: Int) -> Self {
        .init(.countTooLarge(count: count, fits: fits), box: box, offset: offset)
    }
    /// An index box is larger than this reader accepts.
    public static func tooLarge(box: String, offset: Int64, size: Int64, limit: Int64) -> Self {
        .init(.tooLarge(size: size, limit: limit), box: box, offset: offset)
    }
    /// The tables of a box contradict each other or hold an impossible value.
    public static func inconsistent(box: String, offset: Int64, reason: String) -> Self {
        .init(.inconsistent(reason: reason), box: box, offset: offset)
    }

    /// What is wrong, where, and what to do about it.
    public var description: String {
        let at = "the '\(box)' box at byte \(offset)"
        let damaged = "The file is damaged at that byte; fetch it again or check the origin's copy."
        switch code {
        case .boxTooSmall(let size):
            return "\(at) declares \(size) bytes, less than its 8-byte header. \(damaged)"
        case .largeSizeTooSmall(let size):
            return "\(at) declares a 64-bit size of \(size) bytes, less than its 16-byte header. \(damaged)"
        case .pastEnd(let end, let limit):
            return
                "\(at) declares that it ends at byte \(end), past the end of what holds it (byte \(limit)). The file is cut short or damaged; fetch it whole again."
        case .truncated(let needed, let available):
            return "\(at) needs \(needed) bytes for its fields but holds \(available). \(damaged)"
        case .countTooLarge(let count, let fits):
            return "\(at) declares \(count) entries but at most \(fits) fit. \(damaged)"
        case .tooLarge(let size, let limit):
            return
                "\(at) is \(size) bytes, more than the \(limit) this reader accepts for an index box; the file is damaged or not a media file meant for streaming."
        case .inconsistent(let reason):
            return "\(at) is inconsistent: \(reason). \(damaged)"
        }
    }
}
