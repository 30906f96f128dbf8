import Foundation
import RangeTapCore
import RangeTapCurl

/// Sends probe requests to one URL over one libcurl multi handle (its own connection pool).
/// With ``ProbeOptions/http2`` every request asks for HTTP/2, and requests in flight together
/// share one connection as streams.
///
/// Every request carries the same base headers; the request head each returns as evidence is
/// the one libcurl writes (the Host line libcurl adds, then the header lines in order).
final class ProbeClient: Sendable {
    private let multi: CurlMulti
    private let options: ProbeOptions
    private let requestTarget: String
    private let hostLine: String?

    /// A client with its own multi handle (and so its own connections), keeping at most
    /// `maxConnections` idle ones for reuse.
    init(options: ProbeOptions, maxConnections: Int) throws(ProbeError) {
        self.options = options
        do {
            multi = try CurlMulti(maxConnections: maxConnections)
        } catch {
            throw .curlSetup(error.description)
        }
        let parts = URLComponents(string: options.url)
        var target = parts?.percentEncodedPath ?? "/"
        if target.isEmpty { target = "/" }
        if let q = parts?.percentEncodedQuery { target += "?" + q }
        requestTarget = target
        if options.headers.contains(where: { $0.lowercased().hasPrefix("host:") }) {
            hostLine = nil
        } else {
            var host = parts?.percentEncodedHost ?? ""
            if host.contains(":") && !host.hasPrefix("[") { host = "[\(host)]" }
            let scheme = parts?.scheme?.lowercased() ?? "http"
            if let port = parts?.port, !(scheme == "http" && port == 80) && !(scheme == "https" && port == 443) {
                host += ":\(port)"
            }
            hostLine = "Host: \(host)"
        }
    }

    /// Stops the multi thread; call once, after the last request returned.
    func shutdown() { multi.shutdown() }

    /// The header lines of `request`, in the order libcurl sends them after Host.
    private func headerLines(_ request: ProbeRequest) -> [String] {
        var lines = ["User-Agent: \(options.userAgent)", "Accept: */*", "Accept-Encoding: \(request.acceptEncoding)"]
        if let range = request.range { lines.append("Range: \(range)") }
        lines += request.headers
        let ours = Set(lines.compactMap { $0.split(separator: ":", maxSplits: 1).first?.lowercased() })
        // A user's header replaces one of ours with the same name.
        for user in options.headers {
            if let name = user.split(separator: ":", maxSplits: 1).first?.lowercased(), ours.contains(name) {
                lines.removeAll { $0.split(separator: ":", maxSplits: 1).first?.lowercased() == name }
            }
        }
        return lines + options.headers
    }

    /// Sends `request` and waits for the whole answer (or for the probe to hang up).
    func send(_ request: ProbeRequest) async -> ProbeResponse {
        let lines = headerLines(request)
        let version = request.http10 ? "HTTP/1.0" : "HTTP/1.1"
        var shown = ["\(request.method) \(requestTarget) \(version)\r\n"]
        if let hostLine { shown.append(hostLine + "\r\n") }
        shown += lines.map { HeaderLine(raw: $0 + "\r\n").redactedIfSecret().raw }
        shown.append("\r\n")
        var curlRequest = CurlRequest(
            url: options.url, method: request.method, headers: lines, insecure: options.insecure,
            connectTimeoutMs: options.timeoutMs, http10: request.http10, timeoutMs: options.timeoutMs)
        curlRequest.caFile = options.caFile
        curlRequest.proxy = options.proxy
        // The probe's reset check asks whether the origin keeps serving a connection on which a
        // stream was reset: the connection stays for the next request, whose frames carry the
        // RST_STREAM out.
        curlRequest.closeConnectionWhenEndedEarly = false
        if options.http2, !request.http10 {
            curlRequest.http2 = options.isHTTPS ? .overTLS : .priorKnowledge
            // Each h2c request on a connection of its own where libcurl cannot reuse one.
            curlRequest.freshConnection = options.h2cNeedsFreshConnections
        }
        return await withCheckedContinuation { (continuation: CheckedContinuation<ProbeResponse, Never>) in
            let delegate = ProbeTransfer(request: request, requestLines: shown, continuation: continuation)
            multi.start(CurlTransfer(request: curlRequest, delegate: delegate))
        }
    }

    /// Sends `requests` one after another (each waits for the previous answer), so they can
    /// share one kept-alive connection.
    func sequence(_ requests: [ProbeRequest]) async -> [ProbeResponse] {
        var out: [ProbeResponse] = []
        for r in requests { out.append(await send(r)) }
        return out
    }
}

extension HeaderLine {
    /// The line with its value redacted when it is a secret.
    func redactedIfSecret() -> HeaderLine { isSecret ? redacted() : self }
}
