import RangeTapCore

/// Header spelling over every response head of the probe, with RangeTapCore's knowledge of
/// usual spellings: names in another case, fields sent twice, bare-LF line endings; and the
/// syntax of every head line (``HeaderLine/syntax``).
///
/// Spelling, line endings and line syntax are judged on HTTP/1.x heads only: HTTP/2 sends
/// fields as lower-case name/value pairs (RFC 9113 §8.2), and the lines libcurl writes for them
/// are its own. Duplicates and conflicting values are judged on every head.
enum HeaderChecks {
    /// The checks of the area, in report order.
    static func checks(_ run: ProbeRun) -> [ProbeCheck] {
        let responses = run.allResponses.filter { !$0.heads.isEmpty }
        let lines = responses.filter { $0.httpVersion != "2" }
        // Each distinct finding once, with the first response that showed it (HTTP/1.x first).
        var seen: Set<String> = []
        var found: [(Finding, ProbeResponse)] = []
        for r in lines + responses.filter({ $0.httpVersion == "2" }) {
            for head in r.heads {
                for f in HeaderSpelling.findings(in: head) where seen.insert(f.code + "\u{0}" + f.message).inserted {
                    found.append((f, r))
                }
            }
        }
        let count = responses.count
        let duplicateChecks = duplicates(
            found.filter {
                $0.0.code == FindingCode.headerDuplicateCase.rawValue
                    || $0.0.code == FindingCode.headerConflict.rawValue
            }, responses: count)
        if lines.isEmpty, !responses.isEmpty {
            let names =
                "not judged: every response came over HTTP/2, whose field names are lower-case by definition (RFC 9113 §8.2.1); HTTP/1.1 clients of the same server see the names it sends on HTTP/1.1: probe without --http2 to check them"
            let lines =
                "not judged: every response came over HTTP/2, which sends fields as HPACK-coded pairs, not lines (RFC 9113 §8.2); probe without --http2 for the lines HTTP/1.1 clients get"
            return [
                ProbeCheck(.headerCase, .info, names, evidence: []),
                duplicateChecks,
                ProbeCheck(.headerLineEndings, .info, lines, evidence: []),
                ProbeCheck(.headerSyntax, .info, lines, evidence: []),
            ]
        }
        let inLines = found.filter { $0.1.httpVersion != "2" }
        return [
            headerCase(inLines.filter { $0.0.code == FindingCode.headerCase.rawValue }, responses: lines.count),
            duplicateChecks,
            lineEndings(inLines.filter { $0.0.code == FindingCode.bareLF.rawValue }, responses: lines.count),
            syntax(lines),
        ]
    }

    static func evidence(_ found: [(Finding, ProbeResponse)]) -> [ProbeEvidence] {
        var labels: Set<String> = []
        return found.compactMap { labels.insert($0.1.request.label).inserted ? $0.1.evidence : nil }
    }

    static func headerCase(_ found: [(Finding, ProbeResponse)], responses: Int) -> ProbeCheck {
        guard !found.isEmpty else {
            return ProbeCheck(
                .headerCase, .pass, "every field rangetap knows is in its usual case, over \(responses) responses",
                evidence: [])
        }
        var names: [String] = []
        var lines: [String] = []
        for (f, _) in found {
            guard let raw = f.evidence.first, let name = HeaderLine(raw: raw).name,
                let usual = HeaderSpelling.usualSpelling(of: name)
            else { continue }
            let item = "\"\(name)\" (usual \"\(usual)\", allHeaderFields[\"\(usual)\"] misses it)"
            if !names.contains(item) { names.append(item) }
            lines.append(String(HeaderLine(raw: raw).content))
        }
        return ProbeCheck(
            .headerCase, .warn,
            "\(names.joined(separator: ", ")): a client that looks header names up case-sensitively (NSHTTPURLResponse.allHeaderFields on older iOS, hand-written parsers, some cache keys) does not find them; raw: \(Set(lines).sorted().joined(separator: " | "))",
            evidence: evidence(found))
    }

    static func duplicates(_ found: [(Finding, ProbeResponse)], responses: Int) -> ProbeCheck {
        guard !found.isEmpty else {
            return ProbeCheck(
                .headerDuplicates, .pass,
                "no field sent twice with different spellings or conflicting values, over \(responses) responses",
                evidence: [])
        }
        let worst: CheckResult = found.contains { $0.0.severity == .error } ? .fail : .warn
        let messages = found.map {
            "\($0.0.message) [\($0.0.evidence.map { String($0.trimmingHTTPWhitespace()).replacingCRLF() }.joined(separator: " | "))]"
        }
        return ProbeCheck(.headerDuplicates, worst, messages.joined(separator: "; "), evidence: evidence(found))
    }

    static func lineEndings(_ found: [(Finding, ProbeResponse)], responses: Int) -> ProbeCheck {
        guard !found.isEmpty else {
            return ProbeCheck(
                .headerLineEndings, .pass, "every head line ends in CRLF, over \(responses) responses", evidence: [])
        }
        let messages = Set(found.map { "\($0.1.request.label): \($0.0.message)" }).sorted()
        return ProbeCheck(
            .headerLineEndings, .warn,
            "heads end their lines in a bare LF (strict parsers, some proxies and HTTP libraries reject the response): "
                + messages.prefix(3).joined(separator: "; ")
                + (messages.count > 3 ? "; and \(messages.count - 3) more" : ""), evidence: evidence(found))
    }
}

extension String {
    /// The text with CR and LF shown as `\r` and `\n`.
    func replacingCRLF() -> String {
        var out = ""
        for c in unicodeScalars {
            switch c {
            case "\r": out += "\\r"
            case "\n": out += "\\n"
            default: out.unicodeScalars.append(c)
            }
        }
        return out
    }
}
