/// Connection reuse as libcurl saw it (`CURLINFO_NUM_CONNECTS` and the local port): ranges and
/// a 416 on one connection, a hang-up mid-body, `Connection: close`, HTTP/1.0 keep-alive.
enum KeepAliveChecks {
    /// The checks of the area, in report order.
    static func checks(_ run: ProbeRun) -> [ProbeCheck] {
        [reuse(run), afterCancel(run), connectionClose(run), http10(run)]
    }

    /// The "announced" part of a message: how the server said it closes.
    static func howAnnounced(_ r: ProbeResponse) -> String {
        r.connectionTokens.contains("close")
            ? "Connection: close" : "an \(r.version ?? "HTTP/1.0") response without keep-alive"
    }

    static func reuse(_ run: ProbeRun) -> ProbeCheck {
        let seq = Array(run.keepAlive.prefix(4))
        let ev = seq.map(\.evidence)
        guard seq.count >= 2 else {
            return ProbeCheck(.keepAliveReuse, .info, SingleRangeChecks.lengthUnknown, evidence: ev)
        }
        for r in seq where r.status == nil {
            return ProbeCheck(
                .keepAliveReuse, .fail, "\(r.request.label): no response (\(r.error ?? "unknown error"))", evidence: ev)
        }
        for i in 1..<seq.count {
            let prev = seq[i - 1]
            let cur = seq[i]
            if cur.reused == true, cur.localPort == seq[0].localPort { continue }
            if prev.announcedClose {
                return ProbeCheck(
                    .keepAliveReuse, .warn,
                    "the server closed the connection after \"\(prev.request.label)\" (\(howAnnounced(prev))): every range request pays a new connection (a TCP, and with https a TLS, handshake per seek)",
                    evidence: ev)
            }
            if prev.stoppedEarly {
                return ProbeCheck(
                    .keepAliveReuse, .info,
                    "not judged: rangetap hung up on \"\(prev.request.label)\" (\(prev.summary), a whole body where a range was asked), which closes the connection",
                    evidence: ev)
            }
            return ProbeCheck(
                .keepAliveReuse, .fail,
                "the server closed the connection after \"\(prev.request.label)\" without saying so (no Connection: close): a client that sends its next request on it gets a reset (AVPlayer: \"the network connection was lost\") and must retry",
                evidence: ev)
        }
        let port = seq[0].localPort.map { " (local port \($0))" } ?? ""
        return ProbeCheck(
            .keepAliveReuse, .pass,
            "\(seq.count) requests (\(seq.map { $0.summary }.joined(separator: ", "))) on one connection\(port)",
            evidence: ev)
    }

    static func afterCancel(_ run: ProbeRun) -> ProbeCheck {
        guard run.keepAlive.count >= 6 else {
            return ProbeCheck(
                .keepAliveAfterCancel, .info, SingleRangeChecks.lengthUnknown, evidence: run.keepAlive.map(\.evidence))
        }
        let cancel = run.keepAlive[4]
        let after = run.keepAlive[5]
        let ev = [cancel.evidence, after.evidence]
        guard cancel.status != nil else {
            return ProbeCheck(
                .keepAliveAfterCancel, .fail,
                "\"\(cancel.request.label)\": no response (\(cancel.error ?? "unknown error"))", evidence: ev)
        }
        let what =
            cancel.stoppedEarly
            ? "after rangetap hung up mid-body (\(cancel.bodyBytes) of \(cancel.contentLength.map(String.init) ?? "?") bytes read)"
            : "after a whole response (\(cancel.bodyBytes) bytes: the file is too small to hang up in the middle)"
        guard let status = after.status else {
            return ProbeCheck(
                .keepAliveAfterCancel, .fail,
                "\(what), the next request got no response (\(after.error ?? "unknown error")): the server did not recover from a client going away, as players do on every seek",
                evidence: ev)
        }
        guard status < 500 else {
            return ProbeCheck(
                .keepAliveAfterCancel, .fail,
                "\(what), the next request → \(status): the server did not recover from a client going away",
                evidence: ev)
        }
        let conn = after.reused == true ? "on the same connection" : "on a new connection"
        return ProbeCheck(
            .keepAliveAfterCancel, cancel.stoppedEarly ? .pass : .info,
            "\(what), the next request was served \(conn) → \(after.summary)", evidence: ev)
    }

    static func connectionClose(_ run: ProbeRun) -> ProbeCheck {
        guard let r = run.close.first else { return ProbeCheck(.connectionClose, .info, "not run", evidence: []) }
        let ev = [r.evidence]
        guard r.status != nil else {
            return ProbeCheck(
                .connectionClose, .fail, "request with Connection: close: no response (\(r.error ?? "unknown error"))",
                evidence: ev)
        }
        if r.connectionTokens.contains("close") {
            return ProbeCheck(
                .connectionClose, .pass, "Connection: close → answered with Connection: close", evidence: ev)
        }
        if r.version == "HTTP/1.0", !r.connectionTokens.contains("keep-alive") {
            return ProbeCheck(
                .connectionClose, .pass, "Connection: close → an HTTP/1.0 response without keep-alive, which closes",
                evidence: ev)
        }
        return ProbeCheck(
            .connectionClose, .warn,
            "Connection: close → the response does not say Connection: close\(r.connectionTokens.isEmpty ? "" : " (it says Connection: \(r.values("Connection").joined(separator: ", ")))"): a server should announce that it closes",
            evidence: ev)
    }

    static func http10(_ run: ProbeRun) -> ProbeCheck {
        let seq = run.http10
        let ev = seq.map(\.evidence)
        guard seq.count >= 2 else { return ProbeCheck(.http10KeepAlive, .info, "not run", evidence: ev) }
        let (first, second) = (seq[0], seq[1])
        guard first.status != nil, second.status != nil else {
            let bad = first.status == nil ? first : second
            return ProbeCheck(
                .http10KeepAlive, .fail, "\"\(bad.request.label)\": no response (\(bad.error ?? "unknown error"))",
                evidence: ev)
        }
        var without = ""
        if seq.count >= 4, seq[2].status != nil {
            without =
                seq[3].reused == true
                ? "; without keep-alive the server kept the connection open too (it answered \(seq[2].values("Connection").joined(separator: ", ").isEmpty ? "\(seq[2].version ?? "")" : "Connection: " + seq[2].values("Connection").joined(separator: ", ")))"
                : "; without keep-alive it closed, as it should"
        }
        if second.reused == true, second.localPort == first.localPort {
            return ProbeCheck(
                .http10KeepAlive, .pass,
                "HTTP/1.0 with Connection: keep-alive: two requests on one connection\(without)", evidence: ev)
        }
        if first.stoppedEarly {
            return ProbeCheck(
                .http10KeepAlive, .info,
                "not judged: rangetap hung up on \"\(first.request.label)\" (\(first.summary)), which closes the connection\(without)",
                evidence: ev)
        }
        if first.connectionTokens.contains("keep-alive"), !first.connectionTokens.contains("close") {
            return ProbeCheck(
                .http10KeepAlive, .fail,
                "HTTP/1.0 with Connection: keep-alive: the server answered Connection: keep-alive, then closed the connection: the client's next request on it fails\(without)",
                evidence: ev)
        }
        return ProbeCheck(
            .http10KeepAlive, .info,
            "HTTP/1.0 with Connection: keep-alive: the server closes anyway (\(howAnnounced(first))); HTTP/1.0 clients and proxies pay a connection per request, HTTP/1.1 is unaffected\(without)",
            evidence: ev)
    }
}
