import ArgumentParser
import Foundation
import RangeTapReplay

/// `rangetap replay`: prove a cache hands back exactly the bytes the origin sent.
struct ReplayCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "replay",
        abstract: "Feed a capture to a cache, play the same requests again, verify every byte.",
        discussion: "Exit 0 when every byte served from the cache is exact, 1 when not, 2 on bad input."
    )

    @Argument(help: "Capture directory (NAME.rtap), recorded with bodies.")
    var capture: String

    @Option(name: .long, help: "Built-in strategy: prefix, whole, fragments or sparse.")
    var cache: String?

    @Option(name: .customLong("cache-cmd"), help: "An external cache speaking docs/cache-protocol.md on stdin/stdout (run with /bin/sh -c).")
    var cacheCommand: String?

    @Option(name: .long, help: "Capacity of a built-in cache in bytes (oldest entries are evicted first).")
    var capacity: Int64 = 1 << 40

    @Option(name: .long, help: "Directory for the built-in cache's files (default: a new temporary one, removed afterwards).")
    var cacheDir: String?

    @Option(name: .long, help: "Seconds an external cache may take to answer one message.")
    var cacheTimeout: Double = 10

    @Flag(name: .long, help: "Print JSON (docs/replay-json.md).")
    var json = false

    func validate() throws {
        if (cache == nil) == (cacheCommand == nil) { throw ValidationError("give exactly one of --cache STRATEGY or --cache-cmd CMD") }
        if let cache, CacheStrategy(rawValue: cache) == nil { throw ValidationError(ReplayError.unknownStrategy(cache).description) }
        if capacity <= 0 { throw ValidationError("--capacity must be positive") }
    }

    func run() throws {
        let replayer: Replayer
        do {
            replayer = try Replayer(path: capture)
        } catch {
            StandardError().write("rangetap: \(error)")
            throw ExitCode(2)
        }
        var report: ReplayReport
        if let cacheCommand {
            do {
                let external = try ExternalCache(command: cacheCommand, timeout: cacheTimeout)
                report = try replayer.run(external)
            } catch let e as ReplayError {
                report = .failed(cache: "command: \(cacheCommand)", error: e.description)
            }
        } else {
            let strategy = CacheStrategy(rawValue: cache!)!
            let dir = cacheDir ?? NSTemporaryDirectory() + "rangetap-replay-\(UUID().uuidString.prefix(8))"
            defer { if cacheDir == nil { try? FileManager.default.removeItem(atPath: dir) } }
            do {
                report = try replayer.run(try strategy.make(directory: dir, capacity: capacity))
            } catch {
                StandardError().write("rangetap: \(error)")
                throw ExitCode(2)
            }
        }
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            FileHandle.standardOutput.write(try encoder.encode(report))
            print()
        } else {
            print(report.text, terminator: "")
        }
        if !report.verified { throw ExitCode(1) }
    }
}
