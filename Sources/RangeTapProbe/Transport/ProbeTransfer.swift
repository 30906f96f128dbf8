import RangeTapCore
import RangeTapCurl

/// The libcurl side of one probe request: keeps every head raw, hashes the body as it streams
/// (the whole of what was read, and any requested slices), and hangs up through the write
/// callback's `.abort` once the read limit for the answer's status is reached.
///
/// Its mutable state is touched only on the ``CurlMulti`` thread, where every delegate call runs.
final class ProbeTransfer: CurlTransferDelegate, @unchecked Sendable {
    private var response: ProbeResponse
    private let clock = MonotonicClock()
    private var continuation: CheckedContinuation<ProbeResponse, Never>?
    private var heads = ResponseHeadAssembler()
    private var limit: Int64 = 0
    private var bodyStart: Int64 = 0
    private var hasher = SHA256Hasher()
    private var sliceHashers: [(range: ByteRange, hasher: SHA256Hasher)] = []

    /// A delegate that resumes `continuation` once, when libcurl lets go of the transfer.
    init(request: ProbeRequest, requestLines: [String], continuation: CheckedContinuation<ProbeResponse, Never>) {
        response = ProbeResponse(request: request, requestLines: requestLines)
        self.continuation = continuation
    }

    func transfer(_ transfer: CurlTransfer, didReceiveHeaderLine line: UnsafeRawBufferPointer) {
        // Trailers after a chunked body are part of no head: the assembler keeps them apart.
        let head: ResponseHead
        switch heads.add(HeaderLine(raw: Latin1.string(line))) {
        case .none: return
        case .interim(let h): head = h
        case .final(let h): head = h
        }
        response.heads.append(head.lines)
        // The head whose status is a readable 200 or more is the answer; a 101 or an unreadable
        // status line leaves the response without one.
        guard let statusLine = head.statusLine, statusLine.status >= 200 else { return }
        let status = statusLine.status
        response.status = status
        response.version = String(statusLine.version)
        limit = response.request.limits.limit(for: status)
        if status == 206, case .success(let cr)? = response.contentRange, let r = cr.range {
            bodyStart = r.first
        }
        sliceHashers = response.request.slices.map { ($0, SHA256Hasher()) }
        if let info = transfer.connectionInfo() {
            response.reused = info.reused
            response.localPort = info.localPort
        }
        response.httpVersion = transfer.responseHTTPVersion()
        if response.httpVersion == "2" { response.requestLines = Self.overHTTP2(response.requestLines) }
    }

    func transfer(_ transfer: CurlTransfer, didReceiveBody bytes: UnsafeRawBufferPointer) -> CurlWriteDecision {
        let room = limit - response.bodyBytes
        guard room > 0 else {
            response.stoppedEarly = true
            return .abort
        }
        let take = Int(min(Int64(bytes.count), room))
        let part = UnsafeRawBufferPointer(rebasing: bytes[0..<take])
        hasher.update(bufferPointer: part)
        let offset = bodyStart + response.bodyBytes
        for i in sliceHashers.indices {
            let r = sliceHashers[i].range
            let lo = max(r.first, offset)
            let hi = min(r.upperBound, offset + Int64(take))
            if lo < hi {
                sliceHashers[i].hasher.update(
                    bufferPointer: UnsafeRawBufferPointer(rebasing: part[Int(lo - offset)..<Int(hi - offset)]))
            }
        }
        let keep = response.request.keepBytes - response.kept.count
        if keep > 0 { response.kept.append(contentsOf: part.prefix(keep)) }
        response.bodyBytes += Int64(take)
        if take < bytes.count {
            response.stoppedEarly = true
            return .abort
        }
        return .consumed
    }

    func transferDidEndRound(_ transfer: CurlTransfer) {}

    func transfer(_ transfer: CurlTransfer, didFinish result: CurlResult) {
        if !heads.pending.isEmpty { response.heads.append(heads.pending) }
        switch result {
        case .ok:
            break
        case .cancelled:
            if !response.stoppedEarly { response.error = "cancelled" }
        case .failed(let code, let message):
            if !response.stoppedEarly {
                response.error = "\(message) (libcurl error \(code))"
                response.errorCode = code
            }
        }
        if response.bodyBytes > 0 { response.sha256 = HexText.lowercase(hasher.finalize()) }
        let end = bodyStart + response.bodyBytes
        for (range, h) in sliceHashers where range.first >= bodyStart && range.upperBound <= end {
            response.sliceHashes[range] = HexText.lowercase(h.finalize())
        }
        response.durationMs = Double(clock.now()) / 1e6
        let c = continuation
        continuation = nil
        c?.resume(returning: response)
    }

    /// The request head as sent over HTTP/2, written the way `curl -v` shows it: the request
    /// line ends in `HTTP/2` (libcurl sent the method, path and Host as pseudo-header fields).
    static func overHTTP2(_ lines: [String]) -> [String] {
        guard var first = lines.first, first.hasSuffix(" HTTP/1.1\r\n") else { return lines }
        first.removeLast(" HTTP/1.1\r\n".count)
        return [first + " HTTP/2\r\n"] + lines.dropFirst()
    }
}
