import RangeTapCore

/// Range headers that are invalid or unusual: which ones the server ignores (200), refuses
/// (416) or honours, and whether that is allowed.
enum InvalidRangeChecks {
    /// The checks of the area, in report order.
    static func checks(_ run: ProbeRun) -> [ProbeCheck] {
        [reversed(run), unknownUnit(run), unitCase(run), straySpaces(run)]
    }

    static func answered(_ r: ProbeResponse) -> String {
        switch r.status {
        case 200?: "ignored it (200, rangetap stopped after \(r.bodyBytes) bytes)"
        case 416?: "refused it (416)"
        case let s?: "answered \(s)\(r.contentRangeValue.map { " with Content-Range: \($0)" } ?? "")"
        case nil: "did not answer (\(r.error ?? "unknown error"))"
        }
    }

    static func reversed(_ run: ProbeRun) -> ProbeCheck {
        guard let r = run[.reversed] else { return ProbeCheck(.invalidReversed, .info, "not run", evidence: []) }
        let ev = [r.evidence]
        switch r.status {
        case 200?, 416?:
            return ProbeCheck(
                .invalidReversed, .pass,
                "bytes=500-100 (last before first, invalid): the server \(answered(r)); both are allowed", evidence: ev)
        case nil:
            return ProbeCheck(.invalidReversed, .fail, "bytes=500-100: the server \(answered(r))", evidence: ev)
        default:
            return ProbeCheck(
                .invalidReversed, .warn,
                "bytes=500-100 (last before first, invalid): the server \(answered(r)); it should ignore the header (200) or refuse it (416)",
                evidence: ev)
        }
    }

    static func unknownUnit(_ run: ProbeRun) -> ProbeCheck {
        guard let r = run[.unknownUnit] else { return ProbeCheck(.invalidUnit, .info, "not run", evidence: []) }
        let ev = [r.evidence]
        switch r.status {
        case 200?:
            return ProbeCheck(
                .invalidUnit, .pass,
                "pages=0-1 (a unit the server does not know): the server \(answered(r)), as it must", evidence: ev)
        case nil:
            return ProbeCheck(.invalidUnit, .fail, "pages=0-1: the server \(answered(r))", evidence: ev)
        default:
            return ProbeCheck(
                .invalidUnit, .warn,
                "pages=0-1 (a unit the server does not know): the server \(answered(r)); an origin server must ignore a Range with an unknown unit and answer 200",
                evidence: ev)
        }
    }

    static func unitCase(_ run: ProbeRun) -> ProbeCheck {
        guard let r = run[.unitCase], let length = run.length,
            let expected = RangeSpec.closed(first: 0, last: 1).resolved(length: length)
        else {
            return ProbeCheck(.unitCase, .info, SingleRangeChecks.lengthUnknown, evidence: [])
        }
        let ev = [r.evidence]
        if !run.rangesWork {
            return ProbeCheck(
                .unitCase, .info, "not judged: the server does not answer bytes=0-1 either; Bytes=0-1 \(answered(r))",
                evidence: ev)
        }
        switch r.status {
        case 200?, 416?:
            return ProbeCheck(
                .unitCase, .warn,
                "Bytes=0-1: the server \(answered(r)), but range units are case-insensitive, so it is the same request as bytes=0-1, which it honours",
                evidence: ev)
        default:
            let (result, message) = RangeJudge.partial(r, expected: expected, length: length, run: run)
            return ProbeCheck(
                .unitCase, result, message + (result == .pass ? " (the unit is matched case-insensitively)" : ""),
                evidence: ev)
        }
    }

    static func straySpaces(_ run: ProbeRun) -> ProbeCheck {
        guard let r = run[.straySpaces], let length = run.length,
            let expected = RangeSpec.closed(first: 0, last: 1).resolved(length: length)
        else {
            return ProbeCheck(.straySpaces, .info, SingleRangeChecks.lengthUnknown, evidence: [])
        }
        let ev = [r.evidence]
        switch r.status {
        case 200?, 416?:
            return ProbeCheck(
                .straySpaces, .pass,
                "\"bytes = 0 - 1\" (spaces the grammar does not allow): the server \(answered(r)); both are allowed",
                evidence: ev)
        case 206?:
            let (result, message) = RangeJudge.partial(r, expected: expected, length: length, run: run)
            if result == .pass {
                return ProbeCheck(
                    .straySpaces, .info,
                    "\"bytes = 0 - 1\" (spaces the grammar does not allow): the server tolerates them — " + message,
                    evidence: ev)
            }
            return ProbeCheck(.straySpaces, result, message, evidence: ev)
        case nil:
            return ProbeCheck(.straySpaces, .fail, "\"bytes = 0 - 1\": the server \(answered(r))", evidence: ev)
        default:
            return ProbeCheck(
                .straySpaces, .warn,
                "\"bytes = 0 - 1\": the server \(answered(r)); it should ignore the header (200) or refuse it (416)",
                evidence: ev)
        }
    }
}
