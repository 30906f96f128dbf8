import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The secret of one `record` run that `rangetap shape` must show to change the link, so a web
/// page in a browser using the proxy cannot (mitmproxy's CVE-2025-23217 was that). Random per
/// run, written for the listening port to a file only this user can read, removed at the stop.
public enum ControlToken {
    /// A new token: 128 random bits as 32 hex digits.
    public static func generate() -> String {
        var g = SystemRandomNumberGenerator()
        return (0..<4).map { _ in String(format: "%08x", UInt32.random(in: .min ... .max, using: &g)) }.joined()
    }

    /// The directory for this user's tokens: `$XDG_RUNTIME_DIR/rangetap`, else `/tmp/rangetap-UID`.
    public static var directory: String {
        if let run = ProcessInfo.processInfo.environment["XDG_RUNTIME_DIR"], !run.isEmpty {
            return run + "/rangetap"
        }
        return "/tmp/rangetap-\(getuid())"
    }

    /// Where the token of the `record` listening on `port` is kept.
    public static func path(port: Int) -> String { directory + "/control-\(port).token" }

    /// Why a token could not be written.
    public struct WriteError: Error, CustomStringConvertible {
        public let description: String
    }

    /// Writes `token` for `port`: the directory made (or found) private to this user, the file
    /// mode 0600, replaced atomically.
    public static func write(_ token: String, port: Int) throws(WriteError) {
        let dir = directory
        if mkdir(dir, 0o700) != 0 && errno != EEXIST {
            throw WriteError(description: "cannot create \(dir): \(String(cString: strerror(errno)))")
        }
        var st = stat()
        guard lstat(dir, &st) == 0, (st.st_mode & S_IFMT) == S_IFDIR, st.st_uid == getuid(), st.st_mode & 0o077 == 0
        else {
            throw WriteError(
                description:
                    "\(dir) is not a directory private to this user (mode 0700, owned by uid \(getuid())); remove it and start again"
            )
        }
        let file = path(port: port)
        let temporary = file + ".\(getpid())"
        unlink(temporary)
        let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0o600)
        guard fd >= 0 else {
            throw WriteError(description: "cannot write \(temporary): \(String(cString: strerror(errno)))")
        }
        let bytes = Array((token + "\n").utf8)
        let written = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        close(fd)
        guard written == bytes.count, rename(temporary, file) == 0 else {
            unlink(temporary)
            throw WriteError(description: "cannot write \(file): \(String(cString: strerror(errno)))")
        }
    }

    /// The token of the `record` listening on `port`, if this user has one.
    public static func read(port: Int) -> String? {
        guard let text = try? String(contentsOfFile: path(port: port), encoding: .utf8) else { return nil }
        let token = text.trimmingCharacters(in: .whitespacesAndNewlines)
        return token.isEmpty ? nil : token
    }

    /// Removes the token of `port`, if it is `token` (a later run on the same port keeps its own).
    public static func remove(_ token: String, port: Int) {
        if read(port: port) == token { unlink(path(port: port)) }
    }

    /// Whether `given` is `token`, compared in time independent of where they differ.
    static func matches(_ given: String?, _ token: String) -> Bool {
        guard let given else { return false }
        let a = Array(given.utf8), b = Array(token.utf8)
        guard a.count == b.count else { return false }
        var difference: UInt8 = 0
        for i in a.indices { difference |= a[i] ^ b[i] }
        return difference == 0
    }
}
