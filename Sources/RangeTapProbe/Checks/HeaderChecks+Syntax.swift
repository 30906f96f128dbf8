import RangeTapCore

extension HeaderChecks {
    /// A way a head line breaks HTTP/1.1's syntax, in report order.
    enum LineDefect: CaseIterable {
        case spaceBeforeColon, obsFold, bareLF, notAField

        /// What it is and the rule it breaks.
        var label: String {
            switch self {
            case .spaceBeforeColon:
                "whitespace between field name and colon (RFC 9112 §5.1: strict parsers do not see the field or reject the response, a proxy must remove it)"
            case .obsFold:
                "obs-fold, a value continued on a line starting with SP or HTAB (RFC 9112 §5.2: obsolete, most parsers reject or misread it)"
            case .bareLF: "bare LF line ending (RFC 9112 §2.2: strict parsers reject it)"
            case .notAField: "a line that is no Name: value field line (RFC 9112 §5)"
            }
        }

        /// The defects of one line of a head.
        static func of(_ line: HeaderLine) -> [LineDefect] {
            var out: [LineDefect] = []
            switch line.syntax {
            case .spaceBeforeColon: out.append(.spaceBeforeColon)
            case .obsFoldContinuation: out.append(.obsFold)
            case .noColon, .invalidName: out.append(.notAField)
            case .field, .statusLine, .blank: break
            }
            if line.lineEnding == .bareLF { out.append(.bareLF) }
            return out
        }
    }

    /// `header-syntax`: fails on any head line with whitespace before the colon, an obs-fold,
    /// a bare LF or no field syntax at all, quoting the raw lines.
    static func syntax(_ responses: [ProbeResponse]) -> ProbeCheck {
        var lines: [LineDefect: [String]] = [:]
        var labels: [LineDefect: [String]] = [:]
        var found: [ProbeResponse] = []
        var seenLabels: Set<String> = []
        for r in responses {
            for line in r.heads.joined() {
                for defect in LineDefect.of(line) {
                    if !(lines[defect]?.contains(line.raw) ?? false) { lines[defect, default: []].append(line.raw) }
                    if !(labels[defect]?.contains(r.request.label) ?? false) {
                        labels[defect, default: []].append(r.request.label)
                    }
                    if seenLabels.insert(r.request.label).inserted { found.append(r) }
                }
            }
        }
        guard !lines.isEmpty else {
            return ProbeCheck(
                .headerSyntax, .pass,
                "every head line is a status line, a Name: value field line or the blank line, CRLF-terminated, over \(responses.count) responses",
                evidence: [])
        }
        let parts = LineDefect.allCases.compactMap { defect -> String? in
            guard let raws = lines[defect], let seen = labels[defect] else { return nil }
            let quoted = raws.prefix(3).map { "\"\($0.replacingCRLF())\"" }.joined(separator: ", ")
            let more = raws.count > 3 ? " and \(raws.count - 3) more" : ""
            return
                "\(defect.label): \(quoted)\(more) (in \(seen.count) of \(responses.count) responses, first \(seen[0]))"
        }
        return ProbeCheck(
            .headerSyntax, .fail, parts.joined(separator: "; "), evidence: found.prefix(3).map(\.evidence))
    }
}
