import Dispatch
import RangeTapCore
import RangeTapCurl

/// Sends the requests of a ``PlayerScript`` with libcurl — one multi handle on one thread, so
/// connections are kept alive between requests as a player's are — and hangs up on each
/// request the way the script says. A hang-up removes the transfer mid-body, which makes
/// libcurl close that connection: a server or proxy sees the client go away.
public struct ScriptedPlayer: Sendable {
    /// The media URL (`http://` or `https://`).
    public var url: String
    /// HTTP proxy to go through, such as `http://127.0.0.1:8080` (a `rangetap record`).
    public var proxy: String?
    /// Connect timeout in milliseconds.
    public var connectTimeoutMs: Int
    /// How long to wait for a response head before giving up, in seconds.
    public var headTimeoutSeconds: Int
    /// Skip TLS certificate verification.
    public var insecure: Bool
    /// More CA certificates to trust (PEM), such as rangetap's own when playing through an
    /// intercepting `record`.
    public var caFile: String?

    /// A player for `url`, optionally through `proxy`.
    public init(
        url: String, proxy: String? = nil, connectTimeoutMs: Int = 10_000, headTimeoutSeconds: Int = 30,
        insecure: Bool = false, caFile: String? = nil
    ) {
        self.url = url
        self.proxy = proxy
        self.connectTimeoutMs = connectTimeoutMs
        self.headTimeoutSeconds = headTimeoutSeconds
        self.insecure = insecure
        self.caFile = caFile
    }

    /// Plays `pattern` against `url` and returns every step and what the server did wrong.
    ///
    /// Throws when nothing could be fetched at all (bad URL, server or proxy unreachable);
    /// a server that answers badly is reported in ``PlayResult/problems`` instead.
    public static func run(
        url: String, pattern: PlayPattern, proxy: String? = nil, readBytes: Int64 = 256 * 1024, seed: UInt64 = 1,
        insecure: Bool = false, caFile: String? = nil, onStep: (PlayStep) -> Void = { _ in }
    ) async throws(PlayError) -> PlayResult {
        guard readBytes > 0 else { throw .badReadBytes(readBytes) }
        let script = PlayerScript(pattern: pattern, readBytes: readBytes, seed: seed)
        return try await ScriptedPlayer(url: url, proxy: proxy, insecure: insecure, caFile: caFile).play(
            script, onStep: onStep)
    }

    /// Runs `script` from its start; `onStep` sees each step as soon as its request ended.
    public func play(
        _ script: PlayerScript, onStep: (PlayStep) -> Void = { _ in }
    ) async throws(PlayError) -> PlayResult {
        guard HTTPScheme.isHTTP(url), url.count > 8 else { throw .badURL(url) }
        let multi: CurlMulti
        do {
            multi = try CurlMulti(maxConnections: 4)
        } catch {
            throw .curlSetup(error.description)
        }
        defer { multi.shutdown() }

        var script = script
        var request = script.next(after: nil)
        while let planned = request {
            let (outcome, timedOut) = await fetch(planned, pattern: script.pattern, multi: multi)
            if timedOut { throw .noResponse(url: url, seconds: headTimeoutSeconds) }
            if outcome.status == nil, outcome.end == .failed {
                throw .unreachable(
                    url: url, proxy: proxy, curlCode: outcome.curlCode ?? -1,
                    message: outcome.failure ?? "the transfer failed")
            }
            request = script.next(after: outcome)
            if let step = script.steps.last { onStep(step) }
        }
        return PlayResult(script)
    }

    private func fetch(
        _ planned: PlannedRequest, pattern: PlayPattern, multi: CurlMulti
    ) async -> (FetchOutcome, timedOut: Bool) {
        var request = CurlRequest(
            url: url,
            headers: [
                "Range: \(planned.rangeHeader)",
                "User-Agent: rangetap-play/0.1 (\(pattern.rawValue))",
                "Accept: */*",
                "Accept-Encoding: identity",
            ],
            insecure: insecure, connectTimeoutMs: connectTimeoutMs, proxy: proxy)
        request.caFile = caFile
        let timeout = headTimeoutSeconds
        let outcome = await withCheckedContinuation { (continuation: CheckedContinuation<FetchOutcome, Never>) in
            let delegate = PlayTransfer(multi: multi, readLimit: planned.readLimit, continuation: continuation)
            let transfer = CurlTransfer(request: request, delegate: delegate)
            multi.start(transfer)
            DispatchQueue.global().asyncAfter(deadline: .now() + .seconds(timeout)) {
                guard !delegate.headSeen.load(ordering: .acquiring) else { return }
                delegate.timedOut.store(true, ordering: .releasing)
                multi.cancel(transfer)
            }
        }
        return (outcome, outcome.status == nil && outcome.failure == PlayTransfer.timeoutFailure)
    }
}
