/// One run of `tools/conn-load.py burst` (the client of tools/bench-conns.sh): `connections`
/// short connections through a proxy, at most `inFlight` at once, each one GET of `path` checked
/// for status 200, `size` bytes and `sha256` by the client itself.
public struct ConnLoadBurst {
    /// The client's exit status, its output and its error output.
    public let run: CommandResult
    /// Its `key=value` lines (`ok`, `errors`, `connections`, `seconds`, …).
    public let figures: [String: String]

    /// Runs the burst. `scheme` is `http` (absolute-form GETs), `https` or `h2` (CONNECT, TLS
    /// trusting `ca`, then one GET over HTTP/1.1 or as one HTTP/2 stream).
    public init(
        scheme: String = "http", ca: String? = nil, proxyPort: Int, originPort: Int, path: String, size: Int,
        sha256: String,
        connections: Int, inFlight: Int
    ) throws {
        var args = [Paths.root + "/tools/conn-load.py", "burst", "--scheme", scheme]
        if let ca { args += ["--ca", ca] }
        args += [
            "--proxy-port", String(proxyPort), "--origin-port", String(originPort),
            "--path", path, "--size", String(size), "--sha256", sha256,
            "--count", String(connections), "--concurrency", String(inFlight),
            "--op-timeout", "60", "--deadline", "280",
        ]
        run = try runCommand(try Paths.tool("python3"), args, timeout: 300)
        figures = Dictionary(
            run.text.split(separator: "\n").compactMap { line -> (String, String)? in
                let parts = line.split(separator: "=", maxSplits: 1).map(String.init)
                return parts.count == 2 ? (parts[0], parts[1]) : nil
            }, uniquingKeysWith: { first, _ in first })
    }

    /// Whether every connection was served exactly: exit status 0, `ok` = `connections`, no error.
    public func servedAll(_ connections: Int) -> Bool {
        run.status == 0 && figures["ok"] == String(connections) && figures["errors"] == "0"
    }

    /// What to show when ``servedAll(_:)`` is false.
    public var report: String { "conn-load.py exit \(run.status): \(run.text) \(run.stderr.suffix(2000))" }
}
