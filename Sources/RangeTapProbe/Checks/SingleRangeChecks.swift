import RangeTapCore

/// One satisfiable range per request: 206, Content-Range, Content-Length and bytes exactly right.
enum SingleRangeChecks {
    /// The checks of the area, in report order.
    static func checks(_ run: ProbeRun) -> [ProbeCheck] {
        [probe(run)]
            + [
                (ProbeCheckID.rangeMiddle, ProbeSlot.middle), (.rangeOpen, .open), (.rangeSuffix, .suffix),
                (.rangeLastByte, .lastByte), (.rangeFromZero, .fromZero), (.rangeClamped, .clamped),
            ].map { single($0.0, $0.1, run) } + [partialHeaders(run)]
    }

    /// The message of a check that could not run because the length is unknown.
    static let lengthUnknown =
        "not run: the server told no length (no Content-Length, no Content-Range total), so no range can be planned"

    static func probe(_ run: ProbeRun) -> ProbeCheck {
        let r = run.probe
        guard let length = run.length else {
            if r.status == 206 {
                return ProbeCheck(
                    .rangeProbe, .fail,
                    "bytes=0-1 → 206 with Content-Range \(r.contentRangeValue.map { "\"\($0)\"" } ?? "missing"): no complete length, so a player cannot learn the file's size",
                    evidence: [r.evidence])
            }
            return ProbeCheck(
                .rangeProbe, .fail,
                "bytes=0-1 → \(r.summary), and the server tells no length at all: a player cannot stream or seek",
                evidence: [r.evidence])
        }
        let expected = RangeSpec.closed(first: 0, last: 1).resolved(length: length) ?? ByteRange(first: 0, last: 0)
        let (result, message) = RangeJudge.partial(r, expected: expected, length: length, run: run)
        return ProbeCheck(.rangeProbe, result, message, evidence: [r.evidence])
    }

    /// Fields a 206 must carry when the 200 would (RFC 9110 §15.3.7).
    static let partialFields = ["Date", "Cache-Control", "ETag", "Expires", "Content-Location", "Vary"]

    static func partialHeaders(_ run: ProbeRun) -> ProbeCheck {
        guard run.probe.status == 206, let get = run[.get], get.status == 200 else {
            return ProbeCheck(.partialHeaders, .info, "not judged: no 206 and 200 answers to compare", evidence: [])
        }
        let ev = [run.probe.evidence, get.evidence]
        let missing = partialFields.filter { get.header($0) != nil && run.probe.header($0) == nil }
        guard missing.isEmpty else {
            let why =
                missing.contains("ETag")
                ? "a cache cannot tell that partial answers belong to the same version, so it cannot combine them into the file"
                : "caches treat the partial answer differently from the whole one"
            return ProbeCheck(
                .partialHeaders, .warn,
                "the 206 to bytes=0-1 lacks \(missing.joined(separator: ", ")), which the 200 carries: \(why)",
                evidence: ev)
        }
        let present = partialFields.filter { get.header($0) != nil }
        return ProbeCheck(
            .partialHeaders, .pass,
            present.isEmpty
                ? "the 200 carries none of \(partialFields.joined(separator: ", "))"
                : "the 206 carries \(present.joined(separator: ", ")) like the 200", evidence: ev)
    }

    static func single(_ id: ProbeCheckID, _ slot: ProbeSlot, _ run: ProbeRun) -> ProbeCheck {
        guard let plan = run.plan, let length = run.length else {
            return ProbeCheck(id, .info, lengthUnknown, evidence: [])
        }
        guard let (_, expected) = plan.single(slot), let r = run[slot] else {
            return ProbeCheck(id, .info, "not run: the resource is too short for this range", evidence: [])
        }
        var (result, message) = RangeJudge.partial(
            r, expected: expected, length: length, run: run, on200: slot == .fromZero ? .warn : .fail)
        if slot == .fromZero, r.status == 200, result == .warn {
            message =
                "bytes=0- → 200 instead of 206 bytes 0-\(length - 1)/\(length): the body is the same, but clients that treat any non-206 answer as \"no range support\" stop seeking (rangetap stopped after \(r.bodyBytes) bytes)"
        }
        if slot == .clamped, r.status == 206, result == .pass {
            message = "end past the length, clamped: " + message
        }
        return ProbeCheck(id, result, message, evidence: [r.evidence])
    }
}
