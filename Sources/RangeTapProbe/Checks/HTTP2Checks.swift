import RangeTapCore
import RangeTapCurl

/// With `--http2`, the HTTP/2 equivalent of the keep-alive area: every response over HTTP/2,
/// range requests as concurrent streams of one connection (libcurl's connect count and the
/// local port), and a stream reset mid-body that leaves the connection serving.
enum HTTP2Checks {
    /// The checks of the area, in report order.
    static func checks(_ run: ProbeRun) -> [ProbeCheck] {
        guard !run.options.h2cNeedsFreshConnections else {
            let why =
                "not run: libcurl \(CurlVersion.text) fails a second request on an h2c connection (curl issue #10634, fixed in libcurl 8.0.0), so every request went on a connection of its own; probe the https:// URL with --http2, or run rangetap with libcurl 8 or later"
            return [
                negotiated(run), ProbeCheck(.http2ConcurrentStreams, .info, why, evidence: []),
                ProbeCheck(.http2ResetStream, .info, why, evidence: []),
            ]
        }
        return [negotiated(run), concurrentStreams(run), resetStream(run)]
    }

    /// How HTTP/2 was reached: by ALPN over TLS, or with prior knowledge.
    static func how(_ run: ProbeRun) -> String {
        run.options.isHTTPS ? "h2 by ALPN" : "h2c, prior knowledge"
    }

    static func negotiated(_ run: ProbeRun) -> ProbeCheck {
        let answered = run.allResponses.filter { $0.status != nil }
        let other = answered.filter { $0.httpVersion != "2" }
        guard !other.isEmpty else {
            let ports = Set(answered.compactMap(\.localPort)).count
            return ProbeCheck(
                .http2Negotiated, .pass,
                "all \(answered.count) responses came over HTTP/2 (\(how(run))), on \(ports) connection\(ports == 1 ? "" : "s")",
                evidence: [run.probe.evidence])
        }
        let names = other.prefix(3).map { "\"\($0.request.label)\" over HTTP/\($0.httpVersion ?? "?")" }.joined(
            separator: ", ")
        let more = other.count > 3 ? " and \(other.count - 3) more" : ""
        return ProbeCheck(
            .http2Negotiated, .fail,
            "\(other.count) of \(answered.count) responses did not come over HTTP/2 although it was asked (\(how(run))): \(names)\(more); the server (or a load balancer in front of it) does not offer h2 on every connection",
            evidence: other.prefix(3).map(\.evidence))
    }

    /// The connections a set of responses used, for messages: `one connection (local port P)`.
    static func connections(_ rs: [ProbeResponse]) -> String {
        let ports = Set(rs.compactMap(\.localPort)).sorted()
        switch ports.count {
        case 0: return "an unknown connection"
        case 1: return "one connection (local port \(ports[0]))"
        default: return "\(ports.count) connections (local ports \(ports.map(String.init).joined(separator: ", ")))"
        }
    }

    static func concurrentStreams(_ run: ProbeRun) -> ProbeCheck {
        let streams = run.streams
        let ev = ([run.streamOpener].compactMap { $0 } + streams).map(\.evidence)
        guard let plan = run.plan, let length = run.length, let opener = run.streamOpener, !streams.isEmpty else {
            return ProbeCheck(.http2ConcurrentStreams, .info, SingleRangeChecks.lengthUnknown, evidence: ev)
        }
        guard opener.status != nil else {
            return ProbeCheck(
                .http2ConcurrentStreams, .fail,
                "\"\(opener.request.label)\": no response (\(opener.error ?? "unknown error"))", evidence: ev)
        }
        for r in streams where r.status == nil {
            return ProbeCheck(
                .http2ConcurrentStreams, .fail,
                "\(streams.count) range requests at once: \"\(r.request.label)\" got no response (\(r.error ?? "unknown error")): the server refused or reset a stream a player opened beside others",
                evidence: ev)
        }
        // Every stream on the connection the opener left open: no connect, the same local port.
        let newConnects = streams.filter { $0.reused != true }.count
        let shared = newConnects == 0 && streams.allSatisfy { $0.localPort != nil && $0.localPort == opener.localPort }
        let conn = connections(streams)
        guard run.rangesWork else {
            return ProbeCheck(
                .http2ConcurrentStreams, .info,
                "not judged: the server does not answer ranges (bytes=0-1 → \(run.probe.summary)); the \(streams.count) requests used \(conn)",
                evidence: ev)
        }
        var worst: (CheckResult, String)?
        for (r, expected) in zip(streams, plan.streamRanges) {
            let (result, message) = RangeJudge.partial(r, expected: expected, length: length, run: run)
            if result != .pass, result > (worst?.0 ?? .pass) {
                worst = (result, "\(r.request.label.prefix { $0 != ":" }): \(message)")
            }
        }
        if let worst {
            return ProbeCheck(
                .http2ConcurrentStreams, worst.0, "\(streams.count) range requests at once on \(conn): \(worst.1)",
                evidence: ev)
        }
        let compared = streams.allSatisfy { r in r.request.slices.first.flatMap { run.reference($0) }?.hash == r.sha256
        }
        let bytes = compared ? ", bytes equal to the same slices of the plain GET (SHA-256)" : ""
        guard shared else {
            return ProbeCheck(
                .http2ConcurrentStreams, .warn,
                "\(streams.count) range requests at once were answered right\(bytes), but over \(conn) with \(newConnects) new connect\(newConnects == 1 ? "" : "s") instead of as streams of the open connection (local port \(opener.localPort.map(String.init) ?? "?")): the server limits concurrent streams (SETTINGS_MAX_CONCURRENT_STREAMS; RFC 9113 §5.1.2 recommends at least 100) or closes connections, so a player's parallel range requests queue or pay a new TLS handshake",
                evidence: ev)
        }
        return ProbeCheck(
            .http2ConcurrentStreams, .pass,
            "\(streams.count) range requests at once, as \(streams.count) streams of the open connection (local port \(opener.localPort ?? 0), no new connect): every answer 206 with the right Content-Range\(bytes)",
            evidence: ev)
    }

    static func resetStream(_ run: ProbeRun) -> ProbeCheck {
        let ev = run.reset.map(\.evidence)
        guard let plan = run.plan, let length = run.length, run.reset.count == 3 else {
            return ProbeCheck(.http2ResetStream, .info, SingleRangeChecks.lengthUnknown, evidence: ev)
        }
        let (cancel, beside, after) = (run.reset[0], run.reset[1], run.reset[2])
        guard cancel.status != nil else {
            return ProbeCheck(
                .http2ResetStream, .fail,
                "\"\(cancel.request.label)\": no response (\(cancel.error ?? "unknown error"))", evidence: ev)
        }
        let what =
            cancel.stoppedEarly
            ? "after rangetap reset the stream of a GET mid-body (\(cancel.bodyBytes) of \(cancel.contentLength.map(String.init) ?? "?") bytes read; libcurl sends RST_STREAM)"
            : "after a whole response (\(cancel.bodyBytes) bytes: the file is too small to reset a stream mid-body)"
        guard let status = after.status else {
            return ProbeCheck(
                .http2ResetStream, .fail,
                "\(what), the next request got no response (\(after.error ?? "unknown error")): the server did not recover from a reset stream, which HTTP/2 players send on every seek",
                evidence: ev)
        }
        guard status < 500 else {
            return ProbeCheck(
                .http2ResetStream, .fail,
                "\(what), the next request → \(status): the server did not recover from a reset stream", evidence: ev)
        }
        if run.rangesWork {
            let (besideResult, besideMessage) = RangeJudge.partial(
                beside, expected: plan.resetCompanion, length: length, run: run)
            if besideResult != .pass {
                return ProbeCheck(
                    .http2ResetStream, besideResult, "\(what), the stream beside it: \(besideMessage)", evidence: ev)
            }
            let (afterResult, afterMessage) = RangeJudge.partial(after, expected: plan.middle, length: length, run: run)
            if afterResult != .pass {
                return ProbeCheck(
                    .http2ResetStream, afterResult, "\(what), the next request: \(afterMessage)", evidence: ev)
            }
        }
        let sameConnection = after.reused == true && cancel.localPort != nil && after.localPort == cancel.localPort
        guard sameConnection else {
            return ProbeCheck(
                .http2ResetStream, .warn,
                "\(what), the next request was served, but on a new connection (local port \(cancel.localPort.map(String.init) ?? "?") → \(after.localPort.map(String.init) ?? "?")): the connection did not survive the reset (a GOAWAY or a close), so every seek of an HTTP/2 player pays a new TLS handshake",
                evidence: ev)
        }
        let served =
            run.rangesWork
            ? "the range beside it completed and the next request was served" : "the next request was served"
        return ProbeCheck(
            .http2ResetStream, cancel.stoppedEarly ? .pass : .info,
            "\(what), \(served) on the same connection (local port \(after.localPort ?? 0)) → \(after.summary)",
            evidence: ev)
    }
}
