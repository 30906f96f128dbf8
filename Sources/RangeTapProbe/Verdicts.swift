/// Turns check results into statements about what clients will experience.
enum Verdicts {
    static func verdicts(_ checks: [ProbeCheck]) -> [PlayerVerdict] {
        var byID: [ProbeCheckID: ProbeCheck] = [:]
        for c in checks { if let id = c.id.known { byID[id] = c } }
        func result(_ id: ProbeCheckID) -> CheckResult? { byID[id]?.result }
        func failing(_ ids: [ProbeCheckID], at least: CheckResult = .fail) -> [String] {
            ids.filter { (result($0) ?? .pass) >= least }.map(\.rawValue)
        }
        var out: [PlayerVerdict] = []

        let streaming: [ProbeCheckID] = [
            .get, .rangeProbe, .rangeOpen, .rangeMiddle, .rangeFromZero, .rangeSuffix, .rangeLastByte, .rangeClamped,
        ]
        let broken = failing(streaming)
        out.append(
            PlayerVerdict(
                id: "stream-and-seek", ok: broken.isEmpty,
                text: broken.isEmpty
                    ? "an AVPlayer-style client can stream and seek: the bytes=0-1 probe, open-ended requests and seeks are answered right"
                    : "an AVPlayer-style client cannot stream and seek reliably: \(broken.joined(separator: ", ")) failed",
                basedOn: streaming.map(\.rawValue)))

        let probeStatus = byID[.rangeProbe]?.evidence.first?.status
        out.append(
            PlayerVerdict(
                id: "seek-cost", ok: probeStatus == 206,
                text: probeStatus == 206
                    ? "seeks fetch only the bytes asked for"
                    : "seeks will download from byte 0: a range request gets \(probeStatus.map { "a \($0)" } ?? "no answer") instead of a 206",
                basedOn: [ProbeCheckID.rangeProbe.rawValue]))

        if let past = byID[.unsatisfiablePastEnd] {
            let status = past.evidence.first?.status
            let text: String
            switch (past.result, status) {
            case (.pass, _): text = "a client that overshoots the end learns the length from the 416 (bytes */LEN)"
            case (_, 416?): text = "length unknown after a 416: the refusal does not carry bytes */LEN"
            case (_, 200?): text = "a client that overshoots the end gets the whole body instead of a 416"
            default: text = "a client that overshoots the end gets \(status.map { "a \($0)" } ?? "no answer")"
            }
            out.append(
                PlayerVerdict(id: "length-after-416", ok: past.result == .pass, text: text, basedOn: [past.id.rawValue])
            )
        }

        let conditional: [ProbeCheckID] = [.ifRangeETag, .ifRangeDate]
        let ifFail = failing(conditional)
        let ifRan = conditional.filter { result($0) != nil && result($0) != .info }
        out.append(
            PlayerVerdict(
                id: "safe-resume", ok: ifFail.isEmpty && !ifRan.isEmpty,
                text: !ifFail.isEmpty
                    ? "a download resumed after the file changed can splice bytes of two versions: \(ifFail.joined(separator: ", ")) failed"
                    : ifRan.isEmpty
                        ? "resumes cannot be validated: If-Range could not be checked (no strong validator, or no range support)"
                        : "a download resumed with If-Range gets the new file whole when it changed",
                basedOn: conditional.map(\.rawValue)))

        if let streams = result(.http2ConcurrentStreams) {
            out.append(http2Connection(streams: streams, reset: result(.http2ResetStream)))
        } else {
            let reuse = result(.keepAliveReuse)
            let recover = result(.keepAliveAfterCancel)
            let connText: String
            switch (reuse, recover) {
            case (_, .fail?):
                connText = "after a client hangs up mid-body, as players do on every seek, the server stops answering"
            case (.fail?, _):
                connText =
                    "the server closes kept-alive connections without saying so: the next request on them fails and must be retried"
            case (.warn?, _): connText = "every range request opens a new connection (a TCP and TLS handshake per seek)"
            case (.pass?, _):
                connText = "sequential range requests share one connection, and a hang-up mid-body does no harm"
            default: connText = "connection reuse could not be judged"
            }
            out.append(
                PlayerVerdict(
                    id: "connection-reuse", ok: reuse == .pass && recover != .fail, text: connText,
                    basedOn: [ProbeCheckID.keepAliveReuse.rawValue, ProbeCheckID.keepAliveAfterCancel.rawValue]))
        }

        // Not judged over HTTP/2 (lower-case names by definition): no statement then.
        let caseResult = result(.headerCase) ?? .pass
        if caseResult != .info {
            out.append(
                PlayerVerdict(
                    id: "header-lookups", ok: caseResult == .pass,
                    text: caseResult == .pass
                        ? "case-sensitive header lookups find every field"
                        : "case-sensitive header lookups (allHeaderFields[\"Content-Range\"]) miss fields: see header-case",
                    basedOn: [ProbeCheckID.headerCase.rawValue]))
        }

        if let h10 = result(.http10Range), h10 != .info {
            out.append(
                PlayerVerdict(
                    id: "http10-hop", ok: h10 == .pass,
                    text: h10 == .pass
                        ? "ranges survive an HTTP/1.0 hop (nginx proxy_pass speaks HTTP/1.0 by default)"
                        : "behind an HTTP/1.0 hop (nginx proxy_pass speaks HTTP/1.0 by default), ranges become full downloads",
                    basedOn: [ProbeCheckID.http10Range.rawValue]))
        }

        let cacheIDs: [ProbeCheckID] = [
            .rangeProbe, .rangeMiddle, .rangeOpen, .rangeSuffix, .rangeLastByte, .rangeClamped, .partialHeaders,
            .multiRange, .multiOverlap, .compressionRange, .ifRangeETag, .ifRangeDate,
        ]
        let cacheBad = failing(cacheIDs)
        out.append(
            PlayerVerdict(
                id: "range-caches", ok: cacheBad.isEmpty,
                text: cacheBad.isEmpty
                    ? "a cache that stores ranges (player caches, slice caches) gets consistent bytes and offsets"
                    : "a cache that stores ranges can store wrong bytes or offsets: \(cacheBad.joined(separator: ", ")) failed",
                basedOn: cacheIDs.map(\.rawValue)))
        return out
    }

    /// `connection-reuse` with `--http2`: from the concurrent-streams and reset-stream checks.
    static func http2Connection(streams: CheckResult, reset: CheckResult?) -> PlayerVerdict {
        let text: String
        switch (streams, reset) {
        case (_, .fail?):
            text =
                "after a client resets a stream mid-body, as HTTP/2 players do on every seek, the connection stops serving"
        case (.fail, _): text = "range requests sent at once as HTTP/2 streams get wrong answers or none"
        case (.warn, _):
            text = "range requests sent at once need more than one HTTP/2 connection (a TLS handshake each)"
        case (_, .warn?): text = "a reset stream costs the HTTP/2 connection: every seek pays a new TLS handshake"
        case (.pass, _):
            text = "range requests share one HTTP/2 connection as concurrent streams, and a reset stream does no harm"
        default: text = "HTTP/2 connection use could not be judged"
        }
        return PlayerVerdict(
            id: "connection-reuse", ok: streams == .pass && (reset ?? .pass) < .warn, text: text,
            basedOn: [ProbeCheckID.http2ConcurrentStreams.rawValue, ProbeCheckID.http2ResetStream.rawValue])
    }
}
