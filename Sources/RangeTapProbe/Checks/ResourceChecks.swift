import RangeTapCore

/// HEAD and plain GET: status, length, Accept-Ranges, Content-Type, validators.
enum ResourceChecks {
    /// The checks of the area, in report order.
    static func checks(_ run: ProbeRun) -> [ProbeCheck] {
        [head(run), get(run), acceptRanges(run), contentType(run), validators(run)]
    }

    static func head(_ run: ProbeRun) -> ProbeCheck {
        let r = run.head
        let ev = [r.evidence]
        guard let status = r.status else {
            return ProbeCheck(
                .head, .warn,
                "HEAD got no response (\(r.error ?? "unknown error")): tools that check a file with HEAD first fail",
                evidence: ev)
        }
        guard status == 200 else {
            return ProbeCheck(
                .head, .warn,
                "HEAD → \(status) where GET gives the file: clients that check a file with HEAD first think it missing",
                evidence: ev)
        }
        guard let cl = r.contentLength else {
            return ProbeCheck(
                .head, .warn,
                "HEAD → 200 without Content-Length: a HEAD should carry the header fields a GET would (length for download sizes)",
                evidence: ev)
        }
        if let length = run.length, cl != length {
            return ProbeCheck(
                .head, .warn, "HEAD → Content-Length \(cl), but the resource has \(length) bytes", evidence: ev)
        }
        return ProbeCheck(.head, .pass, "HEAD → 200, Content-Length \(cl)", evidence: ev)
    }

    static func get(_ run: ProbeRun) -> ProbeCheck {
        guard let r = run[.get] else { return ProbeCheck(.get, .info, "not run", evidence: []) }
        let ev = [r.evidence]
        guard let status = r.status else {
            return ProbeCheck(.get, .fail, "GET got no response (\(r.error ?? "unknown error"))", evidence: ev)
        }
        guard status == 200 else { return ProbeCheck(.get, .fail, "GET → \(status) instead of 200", evidence: ev) }
        if let error = r.error {
            return ProbeCheck(
                .get, .fail,
                "GET → 200, but the body broke off after \(r.bodyBytes)\(r.contentLength.map { " of \($0)" } ?? "") bytes: \(error)",
                evidence: ev)
        }
        guard let cl = r.contentLength else {
            if r.complete {
                return ProbeCheck(
                    .get, .warn,
                    "GET → 200 without Content-Length (\(r.header("Transfer-Encoding").map { "Transfer-Encoding: \($0)" } ?? "length known only at the end")): \(r.bodyBytes) bytes; a player learns the length only from Content-Range",
                    evidence: ev)
            }
            return ProbeCheck(
                .get, .warn, "GET → 200 without Content-Length: a player learns the length only from Content-Range",
                evidence: ev)
        }
        if let length = run.length, cl != length {
            return ProbeCheck(
                .get, .fail,
                "GET → Content-Length \(cl), but Content-Range says the resource has \(length) bytes: players and caches disagree on the file's size",
                evidence: ev)
        }
        if let cr = r.contentRangeValue {
            return ProbeCheck(
                .get, .warn,
                "GET → 200 with Content-Range: \(cr): a 200 carries the whole body, and a client that trusts Content-Range takes it for a part",
                evidence: ev)
        }
        if r.complete, r.bodyBytes != cl {
            return ProbeCheck(.get, .fail, "GET → Content-Length \(cl), but \(r.bodyBytes) bytes came", evidence: ev)
        }
        let read =
            r.stoppedEarly
            ? "; rangetap read the first \(r.bodyBytes) bytes as the reference" : ", read whole as the reference"
        return ProbeCheck(.get, .pass, "GET → 200, Content-Length \(cl)\(read)", evidence: ev)
    }

    /// Whether an Accept-Ranges value lists `bytes`.
    static func listsBytes(_ value: String?) -> Bool {
        guard let value else { return false }
        return value.split(separator: ",").contains { $0.trimmingHTTPWhitespace().lowercased() == "bytes" }
    }

    static func acceptRanges(_ run: ProbeRun) -> ProbeCheck {
        let full = [run[.get], run.head].compactMap { $0 }.filter { $0.status == 200 }
        let ev = full.map(\.evidence) + (run.probe.status == 206 ? [run.probe.evidence] : [])
        let missing = full.filter { !listsBytes($0.header("Accept-Ranges")) }
        let onPartial = run.probe.status == 206 ? run.probe.header("Accept-Ranges") : nil
        let units = Set(
            full.flatMap { $0.values("Accept-Ranges") }.flatMap { $0.split(separator: ",") }.map {
                $0.trimmingHTTPWhitespace().lowercased()
            })
        let unknown = units.subtracting(["bytes", "none"])
        if !unknown.isEmpty {
            return ProbeCheck(
                .acceptRanges, .warn,
                "Accept-Ranges lists \(unknown.sorted().joined(separator: ", ")), a range unit no client knows (only bytes, or none)",
                evidence: ev)
        }
        if run.rangesWork {
            guard !full.isEmpty else {
                return ProbeCheck(.acceptRanges, .info, "no 200 response to judge Accept-Ranges on", evidence: ev)
            }
            guard missing.isEmpty else {
                let which = missing.map { r in
                    "\(r.request.method == "HEAD" ? "HEAD" : "GET") has \(r.header("Accept-Ranges").map { "\"Accept-Ranges: \($0)\"" } ?? "none")"
                }.joined(separator: ", ")
                let partialNote = listsBytes(onPartial) ? " (only the 206 carries it)" : ""
                return ProbeCheck(
                    .acceptRanges, .warn,
                    "the server answers ranges, but \(which)\(partialNote): clients that decide from a 200 or HEAD whether a file is seekable treat it as unseekable",
                    evidence: ev)
            }
            return ProbeCheck(
                .acceptRanges, .pass,
                "Accept-Ranges: bytes on \(full.map { $0.request.method == "HEAD" ? "HEAD" : "GET" }.joined(separator: " and ")), and ranges work",
                evidence: ev)
        }
        if full.contains(where: { listsBytes($0.header("Accept-Ranges")) }) {
            return ProbeCheck(
                .acceptRanges, .warn,
                "Accept-Ranges: bytes is advertised, but bytes=0-1 got \(run.probe.status.map(String.init) ?? "nothing"): clients trust the header and then download whole bodies",
                evidence: ev)
        }
        return ProbeCheck(
            .acceptRanges, .info, "no Accept-Ranges: bytes, consistent with a server that does not answer ranges",
            evidence: ev)
    }

    /// Media types expected for common media file extensions.
    static let expectedTypes: [String: [String]] = [
        "mp4": ["video/mp4", "audio/mp4", "application/mp4"], "m4v": ["video/mp4", "video/x-m4v"],
        "m4a": ["audio/mp4", "audio/x-m4a", "audio/m4a"],
        "mov": ["video/quicktime"], "mp3": ["audio/mpeg", "audio/mp3"], "aac": ["audio/aac", "audio/x-aac"],
        "ts": ["video/mp2t"],
        "m4s": ["video/iso.segment", "video/mp4", "audio/mp4"],
        "m3u8": ["application/vnd.apple.mpegurl", "application/x-mpegurl", "audio/mpegurl"],
        "webm": ["video/webm", "audio/webm"], "mkv": ["video/x-matroska", "video/matroska"],
        "ogg": ["audio/ogg", "video/ogg", "application/ogg"],
        "oga": ["audio/ogg"], "ogv": ["video/ogg"], "opus": ["audio/ogg", "audio/opus"],
        "flac": ["audio/flac", "audio/x-flac"],
        "wav": ["audio/wav", "audio/x-wav", "audio/wave", "audio/vnd.wave"], "mpd": ["application/dash+xml"],
    ]

    static func contentType(_ run: ProbeRun) -> ProbeCheck {
        let candidates: [ProbeResponse?] = [run[.get], run.probe]
        guard let r = candidates.compactMap({ $0 }).first(where: { $0.status == 200 || $0.status == 206 }) else {
            return ProbeCheck(.contentType, .info, "no 200 or 206 response to judge", evidence: [])
        }
        let ev = [r.evidence]
        guard let raw = r.header("Content-Type") else {
            return ProbeCheck(
                .contentType, .warn, "no Content-Type: a player has to sniff the bytes or guess from the URL",
                evidence: ev)
        }
        let type = r.mediaType ?? ""
        let pieces = type.split(separator: "/", omittingEmptySubsequences: false)
        guard pieces.count == 2, !pieces[0].isEmpty, !pieces[1].isEmpty else {
            return ProbeCheck(
                .contentType, .warn, "Content-Type \"\(raw)\" is not a type/subtype media type", evidence: ev)
        }
        let path = run.options.url.split(separator: "?").first.map(String.init) ?? run.options.url
        let last = path.split(separator: "/").last.map(String.init) ?? ""
        let ext = last.contains(".") ? String(last.split(separator: ".").last ?? "").lowercased() : ""
        if let expected = expectedTypes[ext] {
            if expected.contains(type) {
                return ProbeCheck(.contentType, .pass, "Content-Type: \(raw), as expected for .\(ext)", evidence: ev)
            }
            if type == "application/octet-stream" || type == "binary/octet-stream" {
                return ProbeCheck(
                    .contentType, .info,
                    "Content-Type: \(raw) for a .\(ext) file: players fall back on the extension; \(expected[0]) is usual",
                    evidence: ev)
            }
            return ProbeCheck(
                .contentType, .warn,
                "Content-Type: \(raw) for a .\(ext) file (expected \(expected.joined(separator: " or "))): a player that trusts the type picks the wrong demuxer or refuses the file",
                evidence: ev)
        }
        if type.hasPrefix("text/html") {
            return ProbeCheck(
                .contentType, .warn, "Content-Type: \(raw): an HTML page, not media (a login or error page?)",
                evidence: ev)
        }
        return ProbeCheck(.contentType, .pass, "Content-Type: \(raw)", evidence: ev)
    }

    /// Whether `value` is an entity-tag (RFC 9110 §8.8.3): optional `W/`, then a quoted string of etagc.
    static func isEntityTag(_ value: String) -> Bool {
        var v = Substring(value)
        if v.hasPrefix("W/") { v = v.dropFirst(2) }
        guard v.count >= 2, v.first == "\"", v.last == "\"" else { return false }
        return v.dropFirst().dropLast().unicodeScalars.allSatisfy {
            $0.value == 0x21 || (0x23...0x7E).contains($0.value) || $0.value >= 0x80
        }
    }

    static func validators(_ run: ProbeRun) -> ProbeCheck {
        let all: [ProbeResponse?] = [run[.get], run.head, run.probe]
        let rs = all.compactMap { $0 }.filter { $0.status == 200 || $0.status == 206 }
        let ev = rs.map(\.evidence)
        var problems: [String] = []
        var notes: [String] = []
        let etags = Set(rs.compactMap { $0.header("ETag") })
        let dates = Set(rs.compactMap { $0.header("Last-Modified") })
        for e in etags.sorted() where !isEntityTag(e) {
            problems.append(
                "ETag \(e) is malformed, neither weak nor strong: not a quoted entity-tag (RFC 9110 §8.8.3: \"…\" or W/\"…\"), so If-Range and If-None-Match never match it"
            )
        }
        if etags.count > 1 {
            problems.append(
                "the ETag differs between responses (\(etags.sorted().joined(separator: ", "))): a cache sees a new version on every request"
            )
        }
        for d in dates.sorted() {
            guard let t = HTTPDate.parse(d) else {
                problems.append(
                    "Last-Modified \"\(d)\" is not an IMF-fixdate such as \"Sun, 06 Nov 1994 08:49:37 GMT\"")
                continue
            }
            if let now = rs.compactMap({ $0.header("Date") }).compactMap({ HTTPDate.parse($0) }).max(), t > now {
                problems.append("Last-Modified \(d) lies after the response's Date")
            }
        }
        if dates.count > 1 { problems.append("Last-Modified differs between responses") }
        let strongETag = etags.contains { isEntityTag($0) && !$0.hasPrefix("W/") }
        if etags.isEmpty && dates.isEmpty {
            problems.append(
                "neither ETag nor Last-Modified: a client resuming a download cannot tell whether the file changed (If-Range is impossible)"
            )
        } else if !strongETag && dates.isEmpty {
            problems.append(
                "only a weak ETag and no Last-Modified: If-Range needs a strong validator, so resumes cannot be validated"
            )
        }
        if let e = etags.first { notes.append("ETag \(e)") }
        if let d = dates.first { notes.append("Last-Modified \(d)") }
        if !problems.isEmpty { return ProbeCheck(.validators, .warn, problems.joined(separator: "; "), evidence: ev) }
        return ProbeCheck(.validators, .pass, notes.joined(separator: ", "), evidence: ev)
    }
}
