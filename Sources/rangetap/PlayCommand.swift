import ArgumentParser
import Foundation
import RangeTapCore
import RangeTapPlay

/// `rangetap play`: a scripted player that fetches a URL the way a real one does.
struct PlayCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "play",
        abstract: "Fetch a URL the way a media player does and check that the server answers every range.",
        discussion: """
            Patterns: avplayer (\(PlayPattern.avplayer.summary)); linear (\(PlayPattern.linear.summary)); \
            seeky (\(PlayPattern.seeky.summary)). Open-ended requests are cancelled after --chunk-bytes, \
            which also bounds what a server that ignores Range can send. Pass -x/--proxy (or set \
            http_proxy/https_proxy, as for curl) to record the session with rangetap record. Exit status: 0 every answer was usable (206, or 200 for linear), \
            1 the server misbehaved, 2 bad arguments or the server could not be reached.
                Example: rangetap play http://127.0.0.1:8081/a.mp4 -x http://127.0.0.1:8080 --pattern seeky.
            """
    )

    @Argument(help: "Media URL (http:// or https://).")
    var url: String

    @Option(
        name: .long, help: "How to fetch: avplayer, linear or seeky.",
        completion: .list(PlayPattern.allCases.map(\.rawValue)))
    var pattern: String = PlayPattern.avplayer.rawValue

    @OptionGroup var proxyOptions: ProxyOptions

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Bytes to read before cancelling an open-ended request: bytes, or 256k, 1m.", valueName: "size"))
    var chunkBytes: String = "256k"

    @Option(name: .long, help: "Seed of the seek positions (the same seed gives the same requests).")
    var seed: UInt64 = 1

    @Flag(name: .long, help: "Print the steps as a JSON array instead of text lines.")
    var json = false

    @Option(
        name: .long,
        help: ArgumentHelp(
            "Also trust the CA certificates in FILE (PEM) for https:// URLs, such as rangetap's own (~/.rangetap/rangetap-ca.pem) when playing through an intercepting record.",
            valueName: "FILE"), completion: .file())
    var cacert: String?

    @Flag(name: [.customShort("k"), .long], help: "Do not verify the server's TLS certificate (as curl -k).")
    var insecure = false

    @OptionGroup var logging: VerboseOption

    /// The checked arguments. Checked in `run` rather than `validate` so that a bad value exits
    /// with status 2, as documented, instead of argument-parser's usage status.
    private func checkedArguments() throws(PlayArgumentError) -> (PlayPattern, Int64) {
        guard let pattern = PlayPattern(rawValue: pattern.lowercased()) else {
            throw .unknownPattern(pattern)
        }
        guard let bytes = try? SizeText.bytes(chunkBytes), bytes >= 1 else {
            throw .badChunkBytes(chunkBytes)
        }
        guard HTTPScheme.isHTTP(url) else {
            throw .notHTTP(url)
        }
        return (pattern, bytes)
    }

    func run() async throws {
        let stderr = StandardError()
        let pattern: PlayPattern
        let readBytes: Int64
        do {
            (pattern, readBytes) = try checkedArguments()
        } catch {
            throw CommandFailure(error)
        }
        let logger = logging.bootstrap("rangetap.play")
        let proxy = proxyOptions.selection(for: url, environment: ProcessInfo.processInfo.environment, logger: logger)
            .proxy
        logger.debug(
            "pattern \(pattern.rawValue), cancelling open-ended requests after \(readBytes) bytes, seed \(seed)")
        let result: PlayResult
        do {
            result = try await ScriptedPlayer.run(
                url: url, pattern: pattern, proxy: proxy, readBytes: readBytes, seed: seed, insecure: insecure,
                caFile: cacert, onStep: { step in if !json { print(step.line) } })
        } catch {
            throw CommandFailure(error)
        }
        if json {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            let data = try encoder.encode(result.steps)
            print(String(decoding: data, as: UTF8.self))
        }
        for problem in result.problems {
            stderr.write("rangetap: \(problem)")
        }
        stderr.write("rangetap: \(result.verdict)")
        if !result.conforms { throw ExitCode(1) }
    }
}

/// A `play` argument that does not make sense; the message says which and what to pass instead.
struct PlayArgumentError: Error, CustomStringConvertible {
    private enum Code {
        case unknownPattern(String)
        case badChunkBytes(String)
        case notHTTP(String)
    }
    private let code: Code
    private init(_ code: Code) { self.code = code }

    /// `--pattern` names no pattern.
    static func unknownPattern(_ text: String) -> Self { .init(.unknownPattern(text)) }
    /// `--chunk-bytes` is not a positive byte count.
    static func badChunkBytes(_ text: String) -> Self { .init(.badChunkBytes(text)) }
    /// The URL is not http or https.
    static func notHTTP(_ url: String) -> Self { .init(.notHTTP(url)) }

    var description: String {
        switch code {
        case .unknownPattern(let p):
            "--pattern \(p): unknown pattern; use one of \(PlayPattern.allCases.map(\.rawValue).joined(separator: ", "))"
        case .badChunkBytes(let t):
            (try? SizeText.bytes(t)) == nil
                ? "--chunk-bytes: \(SizeText.ParseError(text: t))"
                : "--chunk-bytes \(t): give at least 1 byte, such as 262144, 256k or 1m"
        case .notHTTP(let url):
            "\(url) is not an http:// or https:// URL; pass the media URL, such as http://127.0.0.1:8081/movie.mp4"
        }
    }
}
