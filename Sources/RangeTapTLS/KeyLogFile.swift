import RangeTapSystem

/// A TLS key log in NSS's format (`CLIENT_HANDSHAKE_TRAFFIC_SECRET <random> <secret>` …, one
/// line per secret), which Wireshark and tshark read (`-o tls.keylog_file:FILE`) to decrypt a
/// packet capture of the same sessions. Lines are appended with one `write` each on a
/// descriptor opened with `O_APPEND`, so libcurl, writing its own sessions' keys to the same file
/// (`SSLKEYLOGFILE`), never interleaves within a line. Created with mode 0600: it holds secrets.
public final class KeyLogFile: Sendable {
    /// The file.
    public let path: String
    private let fd: Int32

    /// Opens `path` for appending, creating it.
    public init(path: String) throws(TLSError) {
        self.path = path
        do {
            fd = try System.openForAppendingPrivately(path)
        } catch {
            throw .keyLog(path, error.description)
        }
    }

    deinit { System.close(fd) }

    /// Appends one line as libssl hands it over, with a newline, in one write. A failed write
    /// loses that line only: the handshake it belongs to goes on.
    public func append(line: UnsafePointer<CChar>) {
        var bytes = Array(String(cString: line).utf8)
        bytes.append(UInt8(ascii: "\n"))
        bytes.withUnsafeBytes { raw in try? System.writeAll(fd, raw) }
    }
}
