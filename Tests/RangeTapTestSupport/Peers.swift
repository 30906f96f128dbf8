import Foundation

/// Paths of the repository and the tools the tests drive.
public enum Paths {
    /// The repository root.
    public static let root: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.path
    }()

    /// The built `rangetap` executable (tools/test.sh builds it before `swift test`).
    public static var rangetap: String {
        let candidates = [root + "/.build/debug/rangetap", root + "/.build/release/rangetap"]
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0) } ?? candidates[0]
    }

    /// An executable on PATH or in the usual system folders.
    public static func tool(_ name: String) throws -> String {
        let dirs =
            (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map(String.init) + [
                "/usr/sbin", "/usr/bin", "/usr/local/bin",
            ]
        for d in dirs where FileManager.default.isExecutableFile(atPath: d + "/" + name) { return d + "/" + name }
        throw TestFailure("\(name) is not installed; run tools/test.sh, which installs it with apt-get")
    }

    /// A new empty temporary directory, inside ``temporaryRoot``.
    public static func temporaryDirectory(_ label: String) -> String {
        let dir = temporaryRoot + "/rangetap-\(label)-\(UUID().uuidString.prefix(8))"
        try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return dir
    }

    /// This test process's temporary files: one directory in the system's temporary directory
    /// (which `tools/test.sh` points at its run's own), removed when the process exits, so that
    /// `swift test` run by hand leaves no captures behind (they had piled up to 7 GB in /tmp).
    public static let temporaryRoot: String = {
        try? FileManager.default.createDirectory(atPath: temporaryRootPath, withIntermediateDirectories: true)
        atexit(removeTemporaryRoot)
        return temporaryRootPath
    }()
}

/// Where ``Paths/temporaryRoot`` is; `removeTemporaryRoot` reads it at exit.
private let temporaryRootPath = NSTemporaryDirectory() + "rangetap-tests-\(getpid())"

private func removeTemporaryRoot() {
    try? FileManager.default.removeItem(atPath: temporaryRootPath)
}

/// A free TCP port on 127.0.0.1 (bound to port 0, then released).
public func freePort() throws -> Int {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard fd >= 0 else { throw TestFailure("socket() failed") }
    defer { close(fd) }
    var addr = sockaddr_in()
    addr.sin_family = sa_family_t(AF_INET)
    addr.sin_port = 0
    addr.sin_addr.s_addr = inet_addr("127.0.0.1")
    var len = socklen_t(MemoryLayout<sockaddr_in>.size)
    let ok = withUnsafeMutablePointer(to: &addr) { p in
        p.withMemoryRebound(to: sockaddr.self, capacity: 1) { sa in
            bind(fd, sa, len) == 0 && getsockname(fd, sa, &len) == 0
        }
    }
    guard ok else { throw TestFailure("cannot bind a free port") }
    return Int(UInt16(bigEndian: addr.sin_port))
}

/// Waits until something accepts TCP connections on 127.0.0.1:`port`.
public func waitForPort(_ port: Int, timeout: Double = 10) throws {
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = in_port_t(UInt16(port).bigEndian)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        let rc = withUnsafePointer(to: &addr) { p in
            p.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        close(fd)
        if rc == 0 { return }
        usleep(20_000)
    }
    throw TestFailure("nothing listens on 127.0.0.1:\(port) after \(timeout)s")
}

/// nginx serving a directory on 127.0.0.1, with an access log of `$body_bytes_sent`.
public final class NginxServer: @unchecked Sendable {
    /// The served directory.
    public let root: String
    /// Its port.
    public let port: Int
    private let dir: String
    private let process: TestProcess

    /// Starts nginx (foreground, no master process) serving `root`, over TLS when `tls` names a
    /// certificate and key. `extraServerConfig` goes inside the `server` block,
    /// `extraHTTPConfig` inside the `http` block (for `proxy_cache_path` and the like).
    /// `http2` offers `h2` by ALPN next to `http/1.1` (with `tls`; nginx 1.22's `listen … http2`).
    public init(
        root: String, extraServerConfig: String = "", extraHTTPConfig: String = "",
        tls: (certificate: String, key: String)? = nil, http2: Bool = false
    ) throws {
        self.root = root
        dir = Paths.temporaryDirectory("nginx")
        port = try freePort()
        let conf = """
            daemon off;
            master_process off;
            pid \(dir)/nginx.pid;
            error_log \(dir)/error.log;
            events { worker_connections 1024; }
            http {
              log_format bytes '$request_method $uri $status $body_bytes_sent $connection $connection_requests "$http_range"';
              access_log \(dir)/access.log bytes;
              client_body_temp_path \(dir); proxy_temp_path \(dir); fastcgi_temp_path \(dir); uwsgi_temp_path \(dir); scgi_temp_path \(dir);
              types { video/mp4 mp4; application/octet-stream bin; }
              \(extraHTTPConfig)
              server { listen 127.0.0.1:\(port)\(tls == nil ? "" : " ssl")\(http2 ? " http2" : ""); root \(root); \(tls.map { "ssl_certificate \($0.certificate); ssl_certificate_key \($0.key);" } ?? "") \(extraServerConfig) }
            }
            """
        try conf.write(toFile: dir + "/nginx.conf", atomically: true, encoding: .utf8)
        process = try TestProcess(
            try Paths.tool("nginx"), ["-c", dir + "/nginx.conf", "-p", dir, "-e", dir + "/error.log"])
        try waitForPort(port)
    }

    /// `http://127.0.0.1:PORT/path`.
    public func url(_ path: String) -> String { "http://127.0.0.1:\(port)/\(path)" }

    /// Access log lines: `METHOD URI STATUS BODY_BYTES_SENT CONNECTION CONNECTION_REQUESTS "RANGE"`.
    public func accessLog() -> [String] {
        ((try? String(contentsOfFile: dir + "/access.log", encoding: .utf8)) ?? "").split(separator: "\n").map(
            String.init)
    }

    /// Stops nginx.
    public func stop() { process.stop(signal: SIGTERM) }
    deinit { process.stop(signal: SIGTERM) }
}

/// Python's `http.server` (ignores Range, answers HTTP/1.0) serving a directory.
public final class PythonHTTPServer: @unchecked Sendable {
    /// Its port.
    public let port: Int
    private let process: TestProcess

    /// Starts it.
    public init(root: String) throws {
        port = try freePort()
        process = try TestProcess(
            try Paths.tool("python3"), ["-m", "http.server", String(port), "--bind", "127.0.0.1", "--directory", root])
        try waitForPort(port)
    }

    /// `http://127.0.0.1:PORT/path`.
    public func url(_ path: String) -> String { "http://127.0.0.1:\(port)/\(path)" }
    /// Stops it.
    public func stop() { process.stop() }
    deinit { process.stop() }
}

/// The quirk origin of the test suite (`Tests/Origins/quirk_origin.py`): one path per defect.
public final class QuirkOrigin: @unchecked Sendable {
    /// Its port.
    public let port: Int
    /// Size of its resource.
    public let size: Int
    private let process: TestProcess

    /// Starts it with a resource of `size` bytes.
    public init(size: Int = 1 << 20) throws {
        self.size = size
        process = try TestProcess(
            try Paths.tool("python3"),
            [Paths.root + "/Tests/Origins/quirk_origin.py", "--port", "0", "--size", String(size)])
        let line = try process.waitForLine(prefix: "PORT ")
        guard let p = Int(line.dropFirst(5).trimmingCharacters(in: .whitespaces)) else {
            throw TestFailure("quirk origin said \(line)")
        }
        port = p
    }

    /// The resource's bytes: byte i = (i * 7 + i / 256) % 256.
    public static func expectedBytes(_ range: Range<Int>) -> [UInt8] {
        range.map { UInt8(truncatingIfNeeded: ($0 * 7 + $0 / 256) % 256) }
    }

    /// `http://127.0.0.1:PORT/path`.
    public func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }
    /// What it logged.
    public var log: String { process.stderrText }
    /// Stops it.
    public func stop() { process.stop() }
    deinit { process.stop() }
}

/// The sink origin of the test suite (`Tests/Origins/sink_origin.py`): reads every request body
/// to its end (Content-Length or chunked) and throws it away, then answers 200 `received N`;
/// counts the body bytes as they arrive and logs each request whose body ended.
public final class SinkOrigin: @unchecked Sendable {
    /// Its port.
    public let port: Int
    private let directory: String
    private let process: TestProcess

    /// Starts it.
    public init() throws {
        directory = Paths.temporaryDirectory("sink-origin")
        process = try TestProcess(
            try Paths.tool("python3"),
            [
                Paths.root + "/Tests/Origins/sink_origin.py", "--port", "0", "--total", directory + "/total", "--log",
                directory + "/log",
            ])
        let line = try process.waitForLine(prefix: "PORT ")
        guard let p = Int(line.dropFirst(5).trimmingCharacters(in: .whitespaces)) else {
            throw TestFailure("sink origin said \(line)")
        }
        port = p
    }

    /// `http://127.0.0.1:PORT/PATH`.
    public func url(_ path: String) -> String { "http://127.0.0.1:\(port)/\(path)" }

    /// Body bytes received so far, all requests together (written every 0.2 s).
    public var total: Int {
        (try? String(contentsOfFile: directory + "/total", encoding: .utf8)).flatMap {
            Int($0.trimmingCharacters(in: .whitespacesAndNewlines))
        } ?? 0
    }

    /// Requests whose body ended, one `METHOD TARGET BYTES` line each.
    public var completed: [String] {
        ((try? String(contentsOfFile: directory + "/log", encoding: .isoLatin1)) ?? "").split(separator: "\n").map(
            String.init)
    }

    /// Waits (up to `seconds`) until ``total`` reaches `bytes`; returns the last total seen.
    public func waitForTotal(_ bytes: Int, seconds: Double = 10) -> Int {
        let deadline = Date().addingTimeInterval(seconds)
        var seen = total
        while seen < bytes, Date() < deadline {
            Thread.sleep(forTimeInterval: 0.05)
            seen = total
        }
        return seen
    }

    /// Stops it.
    public func stop() { process.stop() }
}

/// The raw origin of the test suite (`Tests/Origins/raw_origin.py`): answers `/r/NAME` with the
/// exact bytes of `NAME.http` in its directory and keeps the exact request bytes in `NAME.req`.
public final class RawOrigin: @unchecked Sendable {
    /// Its port.
    public let port: Int
    /// Where responses are read from and requests written to.
    public let directory: String
    private let process: TestProcess

    /// Starts it on a fresh directory.
    public init() throws {
        directory = Paths.temporaryDirectory("raw-origin")
        process = try TestProcess(
            try Paths.tool("python3"), [Paths.root + "/Tests/Origins/raw_origin.py", "--port", "0", "--dir", directory])
        let line = try process.waitForLine(prefix: "PORT ")
        guard let p = Int(line.dropFirst(5).trimmingCharacters(in: .whitespaces)) else {
            throw TestFailure("raw origin said \(line)")
        }
        port = p
    }

    /// Sets the exact response for `/r/NAME` (Latin-1 text: one byte per character).
    public func respond(_ name: String, with text: String) throws {
        try Data(text.unicodeScalars.map { UInt8(truncatingIfNeeded: $0.value) }).write(
            to: URL(fileURLWithPath: "\(directory)/\(name).http"))
    }

    /// The exact bytes of the last request for `/r/NAME`, as Latin-1 text.
    public func request(_ name: String) throws -> String {
        let data = try Data(contentsOf: URL(fileURLWithPath: "\(directory)/\(name).req"))
        return String(String.UnicodeScalarView(data.map { Unicode.Scalar($0) }))
    }

    /// `http://127.0.0.1:PORT/r/NAME`.
    public func url(_ name: String) -> String { "http://127.0.0.1:\(port)/r/\(name)" }
    /// Stops it.
    public func stop() { process.stop() }
    deinit { process.stop() }
}
