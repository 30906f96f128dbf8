import RangeTapCore

/// Ranges that select nothing: a 416 with `Content-Range: bytes */LEN` (RFC 9110 §15.5.17).
enum UnsatisfiableChecks {
    /// The checks of the area, in report order.
    static func checks(_ run: ProbeRun) -> [ProbeCheck] {
        [
            judge(.unsatisfiablePastEnd, .pastEnd, on200: .warn, run),
            judge(.unsatisfiableSuffixZero, .suffixZero, on200: .info, run),
        ]
    }

    static func judge(_ id: ProbeCheckID, _ slot: ProbeSlot, on200: CheckResult, _ run: ProbeRun) -> ProbeCheck {
        guard let length = run.length, let r = run[slot] else {
            return ProbeCheck(id, .info, SingleRangeChecks.lengthUnknown, evidence: [])
        }
        let asked = r.request.range ?? ""
        let ev = [r.evidence]
        guard let status = r.status else {
            return ProbeCheck(id, .fail, "\(asked): no response (\(r.error ?? "unknown error"))", evidence: ev)
        }
        switch status {
        case 416:
            guard let parsed = r.contentRange else {
                return ProbeCheck(
                    id, .warn,
                    "\(asked) → 416 without Content-Range: bytes */\(length): a client that overshot cannot learn the length from the refusal",
                    evidence: ev)
            }
            guard case .success(let cr) = parsed, cr.range == nil, let total = cr.completeLength else {
                return ProbeCheck(
                    id, .warn,
                    "\(asked) → 416 with Content-Range \"\(r.contentRangeValue ?? "")\" instead of bytes */\(length)",
                    evidence: ev)
            }
            guard total == length else {
                return ProbeCheck(
                    id, .warn,
                    "\(asked) → 416 with Content-Range bytes */\(total), but the resource has \(length) bytes",
                    evidence: ev)
            }
            return ProbeCheck(id, .pass, "\(asked) → 416 with Content-Range: bytes */\(length)", evidence: ev)
        case 200:
            let why =
                slot == .suffixZero
                ? "the server ignores an unsatisfiable suffix (allowed: a server may ignore Range), the client gets the whole body"
                : "allowed (a server may ignore Range), but a client that overshot gets the whole body instead of a 416 with the length"
            return ProbeCheck(
                id, on200, "\(asked) → 200: \(why); rangetap stopped after \(r.bodyBytes) bytes", evidence: ev)
        case 206:
            return ProbeCheck(
                id, .fail,
                "\(asked) → 206 \(r.contentRangeValue.map { "Content-Range: \($0)" } ?? "without Content-Range") for a range that selects no byte of \(length): clients get bytes they did not ask for",
                evidence: ev)
        default:
            return ProbeCheck(
                id, .warn, "\(asked) → \(status) instead of 416 with Content-Range: bytes */\(length)", evidence: ev)
        }
    }
}
