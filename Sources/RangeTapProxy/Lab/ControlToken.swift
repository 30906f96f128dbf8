import Foundation
import RangeTapCore
import RangeTapSystem

/// The secret of one `record` run that `rangetap shape` must show to change the link, so a web
/// page in a browser using the proxy cannot (mitmproxy's CVE-2025-23217 was that). Random per
/// run, written for the listening port to a file only this user can read, removed at the stop.
public enum ControlToken {
    /// A new token: 128 random bits as 32 hex digits.
    public static func generate() -> String { RandomToken.hex128() }

    /// The directory for this user's tokens: `$XDG_RUNTIME_DIR/rangetap`, else `/tmp/rangetap-UID`.
    public static var directory: String {
        if let run = ProcessInfo.processInfo.environment["XDG_RUNTIME_DIR"], !run.isEmpty {
            return run + "/rangetap"
        }
        return "/tmp/rangetap-\(System.userID)"
    }

    /// Where the token of the `record` listening on `port` is kept.
    public static func path(port: Int) -> String { directory + "/control-\(port).token" }

    /// The control socket of the `record` listening on `port` (``ControlListener``), beside its
    /// token in the same private directory.
    public static func socketPath(port: Int) -> String { directory + "/control-\(port).sock" }

    /// Why a token could not be written.
    public struct WriteError: Error, CustomStringConvertible {
        public let description: String
    }

    /// Writes `token` for `port`: the directory made (or found) private to this user, the file
    /// mode 0600, replaced atomically.
    public static func write(_ token: String, port: Int) throws(WriteError) {
        let dir = directory
        do throws(SystemError) {
            try System.makeDirectory(dir, mode: 0o700)
        } catch {
            throw WriteError(description: "cannot create \(dir): \(error.text)")
        }
        guard let st = System.status(dir, followLinks: false), st.kind == .directory, st.owner == System.userID,
            st.permissions & 0o077 == 0
        else {
            throw WriteError(
                description:
                    "\(dir) is not a directory private to this user (mode 0700, owned by uid \(System.userID)); remove it and start again"
            )
        }
        let file = path(port: port)
        let temporary = file + ".\(System.processID)"
        System.remove(temporary)
        let fd: Int32
        do throws(SystemError) {
            fd = try System.createExclusively(temporary, mode: 0o600)
        } catch {
            throw WriteError(description: "cannot write \(temporary): \(error.text)")
        }
        let bytes = Array((token + "\n").utf8)
        do throws(SystemError) {
            defer { System.close(fd) }
            try System.writeAll(fd, bytes: bytes)
            try System.rename(temporary, to: file)
        } catch {
            System.remove(temporary)
            throw WriteError(description: "cannot write \(file): \(error.text)")
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
        if read(port: port) == token {
            System.remove(path(port: port))
            System.remove(socketPath(port: port))
        }
    }

    /// Whether `given` is `token`, compared in time independent of where they differ.
    static func matches(_ given: String?, _ token: String) -> Bool {
        given.map { ConstantTime.equal($0, token) } ?? false
    }

}
