import RangeTapCore

/// Header spelling over every response head of the probe, with RangeTapCore's knowledge of
/// usual spellings: names in another case, fields sent twice, bare-LF line endings; and the
/// syntax of every head line (``HeaderLine/syntax``).
enum HeaderChecks {
    /// The checks of the area, in report order.
    static func checks(_ run: ProbeRun) -> [ProbeCheck] {
        let responses = run.allResponses.filter { !$0.heads.isEmpty }
        // Each distinct finding once, with the first response that showed it.
        var seen: Set<String> = []
        var found: [(Finding, ProbeResponse)] = []
        for r in responses {
            for head in r.heads {
                for f in HeaderSpelling.findings(in: head) where seen.insert(f.code + "\u{0}" + f.message).inserted {
                    found.append((f, r))
                }
            }
        }
        let count = responses.count
        return [
            headerCase(found.filter { $0.0.code == FindingCode.headerCase.rawValue }, responses: count),
            duplicates(found.filter { $0.0.code == FindingCode.headerDuplicateCase.rawValue || $0.0.code == FindingCode.headerConflict.rawValue }, responses: count),
            lineEndings(found.filter { $0.0.code == FindingCode.bareLF.rawValue }, responses: count),
            syntax(responses),
        ]
    }

    static func evidence(_ found: [(Finding, ProbeResponse)]) -> [ProbeEvidence] {
        var labels: Set<String> = []
        return found.compactMap { labels.insert($0.1.request.label).inserted ? $0.1.evidence : nil }
    }

    static func headerCase(_ found: [(Finding, ProbeResponse)], responses: Int) -> ProbeCheck {
        guard !found.isEmpty else {
            return ProbeCheck(.headerCase, .pass, "every field rangetap knows is in its usual case, over \(responses) responses", evidence: [])
        }
        var names: [String] = []
        var lines: [String] = []
        for (f, _) in found {
            guard let raw = f.evidence.first, let name = HeaderLine(raw: raw).name, let usual = HeaderSpelling.usualSpelling(of: name) else { continue }
            let item = "\"\(name)\" (usual \"\(usual)\", allHeaderFields[\"\(usual)\"] misses it)"
            if !names.contains(item) { names.append(item) }
            lines.append(String(HeaderLine(raw: raw).content))
        }
        return ProbeCheck(.headerCase, .warn, "\(names.joined(separator: ", ")): a client that looks header names up case-sensitively (NSHTTPURLResponse.allHeaderFields on older iOS, hand-written parsers, some cache keys) does not find them; raw: \(Set(lines).sorted().joined(separator: " | "))", evidence: evidence(found))
    }

    static func duplicates(_ found: [(Finding, ProbeResponse)], responses: Int) -> ProbeCheck {
        guard !found.isEmpty else {
            return ProbeCheck(.headerDuplicates, .pass, "no field sent twice with different spellings or conflicting values, over \(responses) responses", evidence: [])
        }
        let worst: CheckResult = found.contains { $0.0.severity == .error } ? .fail : .warn
        let messages = found.map { "\($0.0.message) [\($0.0.evidence.map { String($0.trimmingHTTPWhitespace()).replacingCRLF() }.joined(separator: " | "))]" }
        return ProbeCheck(.headerDuplicates, worst, messages.joined(separator: "; "), evidence: evidence(found))
    }

    static func lineEndings(_ found: [(Finding, ProbeResponse)], responses: Int) -> ProbeCheck {
        guard !found.isEmpty else {
            return ProbeCheck(.headerLineEndings, .pass, "every head line ends in CRLF, over \(responses) responses", evidence: [])
        }
        let messages = Set(found.map { "\($0.1.request.label): \($0.0.message)" }).sorted()
        return ProbeCheck(.headerLineEndings, .warn, "heads end their lines in a bare LF (strict parsers, some proxies and HTTP libraries reject the response): " + messages.prefix(3).joined(separator: "; ") + (messages.count > 3 ? "; and \(messages.count - 3) more" : ""), evidence: evidence(found))
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
