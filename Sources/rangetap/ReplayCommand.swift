import ArgumentParser
import Foundation
import RangeTapSystem
import RangeTapCore
import RangeTapReplay

/// `rangetap replay`: prove a cache hands back exactly the bytes the origin sent.
struct ReplayCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "replay",
        abstract: "Feed a capture to a cache, play the same requests again, verify every byte.",
        discussion: """
            Exit 0 when every byte served from the cache is exact, 1 when not, 2 on bad input. \
            --through replays through an HTTP caching proxy placed in front of the capture served as an \
            origin (rangetap serve --ideal on 127.0.0.1:--origin-port): the proxy must forward there, \
            for example nginx with proxy_pass http://127.0.0.1:PORT. See docs/replay.md.
                Examples: rangetap replay session.rtap --cache sparse; rangetap replay session.rtap --cache-cmd "python3 /usr/share/rangetap/cache-adapter-example.py".
            """
    )

    @Argument(help: "Capture directory (NAME.rtap), recorded with bodies.", completion: .directory)
    var capture: String

    @Option(
        name: .long, help: "Built-in strategy: prefix, whole, fragments or sparse.",
        completion: .list(["prefix", "whole", "fragments", "sparse"]))
    var cache: String?

    @Option(
        name: .customLong("cache-cmd"),
        help: "An external cache speaking docs/cache-protocol.md on stdin/stdout (run with /bin/sh -c).")
    var cacheCommand: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "An HTTP caching proxy in front of the capture served as an origin: requests go through it twice.",
            valueName: "http://HOST:PORT"))
    var through: String?

    @Option(
        name: .long,
        help:
            "With --through: the 127.0.0.1 port of the origin the proxy forwards to (default: a free one, printed, and on a terminal the replay waits for Enter)."
    )
    var originPort: Int?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "With --through: how long the proxy may take for one response: 30s, 500ms, 2m, or a number of seconds.",
            valueName: "duration"))
    var timeout: String = "30s"

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Capacity of a built-in cache: bytes, or 256k, 100m, 2g (default: no limit). Oldest entries are evicted first; a resource larger than the whole capacity is not cached (the report says NOT CACHED).",
            valueName: "size"))
    var capacity: String?

    @Option(
        name: .long,
        help: "Directory for the built-in cache's files (default: a new temporary one, removed afterwards).")
    var cacheDir: String?

    @Option(
        name: .long,
        help: ArgumentHelp(
            "How long an external cache may take to answer one message: 10s, 500ms, or a number of seconds.",
            valueName: "duration"))
    var cacheTimeout: String = "10s"

    @Flag(name: .long, help: "Print JSON (docs/replay-json.md).")
    var json = false

    func validate() throws {
        if [cache != nil, cacheCommand != nil, through != nil].filter({ $0 }).count != 1 {
            throw ValidationError("give exactly one of --cache STRATEGY, --cache-cmd CMD or --through PROXY_URL")
        }
        if through == nil && originPort != nil { throw ValidationError("--origin-port goes with --through") }
        if let originPort, !(1...65535).contains(originPort) {
            throw ValidationError("--origin-port must be a TCP port (1-65535)")
        }
        if let through, !ThroughProxyReplay.isValidProxyURL(through) {
            throw ValidationError(FixtureError.badProxyURL(through).description)
        }
        if try seconds(timeout, "--timeout") <= 0 { throw ValidationError("--timeout \(timeout): must be more than 0") }
        if try seconds(cacheTimeout, "--cache-timeout") <= 0 {
            throw ValidationError("--cache-timeout \(cacheTimeout): must be more than 0")
        }
        if let cache, CacheStrategy(rawValue: cache) == nil {
            throw ValidationError(ReplayError.unknownStrategy(cache).description)
        }
        if try capacityBytes() <= 0 { throw ValidationError("--capacity \(capacity ?? ""): must be at least 1 byte") }
    }

    /// `--capacity` in bytes; 1 TiB (no practical limit) when not given.
    private func capacityBytes() throws -> Int64 {
        guard let capacity else { return 1 << 40 }
        do { return try SizeText.bytes(capacity) } catch { throw ValidationError("--capacity: \(error)") }
    }

    /// A duration flag in seconds (a plain number is seconds, as these flags always took).
    private func seconds(_ text: String, _ flag: String) throws -> Double {
        do { return try DurationText.seconds(text, bareNumber: .seconds) } catch {
            throw ValidationError("\(flag): \(error)")
        }
    }

    func run() async throws {
        if let through {
            try await runThrough(through)
            return
        }
        let replayer: Replayer
        do {
            replayer = try Replayer(path: capture)
        } catch {
            throw CommandFailure(error)
        }
        var report: ReplayReport
        if let cacheCommand {
            do {
                let external = try ExternalCache(
                    command: cacheCommand, timeout: try seconds(cacheTimeout, "--cache-timeout"))
                report = try replayer.run(external)
            } catch let e as ReplayError {
                report = .failed(cache: "command: \(cacheCommand)", error: e.description)
            }
        } else {
            let strategy = CacheStrategy(rawValue: cache!)!
            let dir = cacheDir ?? NSTemporaryDirectory() + "rangetap-replay-\(UUID().uuidString.prefix(8))"
            defer { if cacheDir == nil { try? FileManager.default.removeItem(atPath: dir) } }
            do {
                report = try replayer.run(try strategy.make(directory: dir, capacity: try capacityBytes()))
            } catch {
                throw CommandFailure(error)
            }
        }
        if replayer.truncatedTail {
            StandardError().write(
                "rangetap: warning: the last event of \(capture) is incomplete (the capture was cut off or is still being written); replayed the events before it"
            )
        }
        try output(report)
    }

    private func output(_ report: ReplayReport, extra: String = "") throws {
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            FileHandle.standardOutput.write(try encoder.encode(report))
            print()
            if !extra.isEmpty { StandardError().write("rangetap: " + extra) }
        } else {
            print(report.text + (extra.isEmpty ? "" : extra + "\n"), terminator: "")
        }
        if !report.verified { throw ExitCode(1) }
    }

    /// `--through`: the capture served as an origin, the requests sent twice through the proxy.
    private func runThrough(_ proxyURL: String) async throws {
        let stderr = StandardError()
        let replay: ThroughProxyReplay
        let port: Int
        do {
            replay = try ThroughProxyReplay(
                capturePath: capture, proxyURL: proxyURL, originPort: originPort ?? 0,
                timeout: try seconds(timeout, "--timeout"))
            port = try await replay.startOrigin()
        } catch {
            throw CommandFailure(error)
        }
        stderr.write(
            "rangetap: origin (the capture, served --ideal) on http://127.0.0.1:\(port); the proxy at \(proxyURL) must forward to it (nginx: proxy_pass http://127.0.0.1:\(port);)"
        )
        if originPort == nil && System.isTerminal(STDIN_FILENO) {
            stderr.write("rangetap: press Enter when the proxy forwards there")
            _ = readLine()
        }
        let result = await replay.run()
        await replay.stop()
        try output(result.report, extra: result.originSummary)
    }
}
