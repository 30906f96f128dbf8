/// Every call rangetap makes into the operating system: clocks, files and descriptors, sockets,
/// addresses, signals and terminals. Nothing else in the project imports the C library, so the
/// porting surface is this module: one file per platform (`System+Linux.swift`, the only one
/// there is; rangetap builds and runs on Linux only).
///
/// The functions are thin: one system call or a loop around one (short writes, `EINTR`), errors
/// as ``SystemError`` values carrying `errno` and its text.
public enum System {}

/// A system call that failed: the call, the `errno` it left and the C library's text for it.
public struct SystemError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The `errno` value.
    public let code: Int32
    /// The C library's text for ``code`` ("No space left on device").
    public let text: String

    /// A failure with `errno` value `code`.
    public init(code: Int32) {
        self.code = code
        self.text = System.errorText(code)
    }

    /// The C library's text for the error.
    public var description: String { text }
}

/// What a path is, as `stat(2)` tells (symbolic links followed).
public enum FileKind: Sendable, Equatable {
    case regular
    case directory
    case fifo
    case socket
    case device
    case other
}

/// What `stat(2)` says about a path.
public struct FileStatus: Sendable, Equatable {
    /// The kind of file.
    public let kind: FileKind
    /// Size in bytes.
    public let size: Int64
    /// Permission bits (`st_mode & 0o7777`).
    public let permissions: UInt32
    /// The owner's user id.
    public let owner: UInt32
    /// Last modification, seconds since 1970.
    public var modified: Int64 = 0
    /// Last modification's nanoseconds within its second.
    public var modifiedNanoseconds: Int64 = 0
    /// Device and inode: which file it is, whatever its name.
    public var identity: (device: UInt64, inode: UInt64) = (0, 0)

    public static func == (a: FileStatus, b: FileStatus) -> Bool {
        a.kind == b.kind && a.size == b.size && a.permissions == b.permissions && a.owner == b.owner
            && a.modified == b.modified && a.modifiedNanoseconds == b.modifiedNanoseconds
            && a.identity == b.identity
    }
}
