import RangeTapCore

/// Range on HEAD (must be ignored) and on HTTP/1.0 requests (must still work; not with
/// `--http2`, where every request is HTTP/2).
enum MethodVersionChecks {
    /// The checks of the area, in report order.
    static func checks(_ run: ProbeRun) -> [ProbeCheck] {
        run.options.http2 ? [headRange(run)] : [headRange(run), http10(run)]
    }

    static func headRange(_ run: ProbeRun) -> ProbeCheck {
        guard let r = run[.headRange] else { return ProbeCheck(.headRange, .info, "not run", evidence: []) }
        let ev = [r.evidence]
        switch r.status {
        case 200?:
            return ProbeCheck(
                .headRange, .pass, "HEAD with Range: bytes=0-1 → 200: Range is ignored on HEAD", evidence: ev)
        case 206?:
            return ProbeCheck(
                .headRange, .warn,
                "HEAD with Range: bytes=0-1 → 206 \(r.contentRangeValue.map { "Content-Range: \($0)" } ?? ""): range handling is defined for GET only, a HEAD must be answered as a HEAD (200); clients that size a file with HEAD + Range see Content-Length \(r.contentLength.map(String.init) ?? "?")",
                evidence: ev)
        case nil:
            return ProbeCheck(
                .headRange, .warn, "HEAD with Range: no response (\(r.error ?? "unknown error"))", evidence: ev)
        case let s?:
            return ProbeCheck(.headRange, .warn, "HEAD with Range: bytes=0-1 → \(s) instead of 200", evidence: ev)
        }
    }

    static func http10(_ run: ProbeRun) -> ProbeCheck {
        guard let r = run[.http10Range], let length = run.length,
            let expected = RangeSpec.closed(first: 0, last: 1).resolved(length: length)
        else {
            return ProbeCheck(.http10Range, .info, SingleRangeChecks.lengthUnknown, evidence: [])
        }
        let ev = [r.evidence]
        guard run.rangesWork else {
            return ProbeCheck(
                .http10Range, .info,
                "not judged: the server does not answer ranges on HTTP/1.1 either (HTTP/1.0 → \(r.summary))",
                evidence: ev)
        }
        var (result, message) = RangeJudge.partial(r, expected: expected, length: length, run: run)
        if r.status == 200 {
            message =
                "HTTP/1.0 bytes=0-1 → 200 with the whole body, though HTTP/1.1 gets 206: behind an HTTP/1.0 hop (nginx proxy_pass speaks HTTP/1.0 by default) every range becomes a full download (rangetap stopped after \(r.bodyBytes) bytes)"
        } else if result == .pass {
            message = "HTTP/1.0 " + message
        }
        return ProbeCheck(.http10Range, result, message, evidence: ev)
    }
}
