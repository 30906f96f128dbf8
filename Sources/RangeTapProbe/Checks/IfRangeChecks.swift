import RangeTapCore

/// If-Range with the server's own validators (the range must be served) and with stale ones
/// (the whole, current representation must come back as a 200).
enum IfRangeChecks {
    /// The checks of the area, in report order.
    static func checks(_ run: ProbeRun) -> [ProbeCheck] {
        [etag(run), date(run)]
    }

    static func combine(_ id: ProbeCheckID, _ parts: [(CheckResult, String)], evidence: [ProbeEvidence]) -> ProbeCheck {
        let worst = parts.map(\.0).max() ?? .pass
        return ProbeCheck(id, worst, parts.map(\.1).joined(separator: "; "), evidence: evidence)
    }

    static func etag(_ run: ProbeRun) -> ProbeCheck {
        guard let length = run.length else {
            return ProbeCheck(.ifRangeETag, .info, SingleRangeChecks.lengthUnknown, evidence: [])
        }
        guard let etag = run.etag else {
            return ProbeCheck(.ifRangeETag, .info, "not run: the server sends no ETag", evidence: [])
        }
        guard let own = run[.ifETagOwn], let stale = run[.ifETagWrong] else {
            return ProbeCheck(.ifRangeETag, .info, "not run", evidence: [])
        }
        let ev = [own.evidence, stale.evidence]
        guard run.rangesWork else {
            return ProbeCheck(
                .ifRangeETag, .info, "not judged: the server does not answer bytes=0-1 without If-Range either",
                evidence: ev)
        }
        if !ResourceChecks.isEntityTag(etag) {
            return ProbeCheck(
                .ifRangeETag, .info,
                "not judged: the ETag \(etag) is malformed, neither weak nor strong: RFC 9110 §8.8.3 wants a quoted string (\"…\" or W/\"…\"), so If-Range cannot carry it (as sent → \(own.summary), stale → \(stale.summary))",
                evidence: ev)
        }
        if etag.hasPrefix("W/") {
            return ProbeCheck(
                .ifRangeETag, .info,
                "not judged: the ETag \(etag) is weak, and If-Range only works with a strong one (current ETag → \(own.summary), stale → \(stale.summary))",
                evidence: ev)
        }
        let expected = RangeSpec.closed(first: 0, last: 1).resolved(length: length) ?? ByteRange(first: 0, last: 0)
        var ownPart = RangeJudge.partial(own, expected: expected, length: length, run: run)
        if own.status == 200 {
            ownPart = (
                .fail,
                "If-Range: \(etag) (the current ETag) → 200: the server never resumes, so every resumed download starts over (rangetap stopped after \(own.bodyBytes) bytes)"
            )
        } else if ownPart.0 == .pass {
            ownPart.1 = "current ETag → 206"
        }
        var stalePart: (CheckResult, String)
        if stale.status == 206 {
            stalePart = (
                .fail,
                "If-Range: \"rangetap-stale\" (a stale ETag) → 206 \(stale.contentRangeValue ?? ""): the server ignores If-Range, so a client resuming after the file changed splices bytes of two versions"
            )
        } else {
            stalePart = RangeJudge.whole(stale, length: length, run: run)
            if stalePart.0 == .pass { stalePart.1 = "stale ETag → 200 with the whole current body" }
        }
        return combine(.ifRangeETag, [ownPart, stalePart], evidence: ev)
    }

    static func date(_ run: ProbeRun) -> ProbeCheck {
        guard let length = run.length else {
            return ProbeCheck(.ifRangeDate, .info, SingleRangeChecks.lengthUnknown, evidence: [])
        }
        guard let lastModified = run.lastModified else {
            return ProbeCheck(.ifRangeDate, .info, "not run: the server sends no Last-Modified", evidence: [])
        }
        guard let own = run[.ifDateOwn], let old = run[.ifDateOld] else {
            return ProbeCheck(.ifRangeDate, .info, "not run", evidence: [])
        }
        let ev = [own.evidence, old.evidence]
        guard run.rangesWork else {
            return ProbeCheck(
                .ifRangeDate, .info, "not judged: the server does not answer bytes=0-1 without If-Range either",
                evidence: ev)
        }
        let strength = DateStrength(lastModified: lastModified, date: own.header("Date"))
        let expected = RangeSpec.closed(first: 0, last: 1).resolved(length: length) ?? ByteRange(first: 0, last: 0)
        var ownPart: (CheckResult, String)
        if own.status == 200 {
            if let weak = strength.weakness {
                ownPart = (
                    .info,
                    "current Last-Modified → 200, which RFC 9110 §8.8.2.2 allows: the date is a weak validator because \(weak)"
                )
            } else {
                ownPart = (
                    .warn,
                    "If-Range: \(lastModified) (the current Last-Modified, a strong date: \(strength.age ?? 0) s before Date) → 200: resumes that use dates start over"
                )
            }
        } else {
            ownPart = RangeJudge.partial(own, expected: expected, length: length, run: run)
            if ownPart.0 == .pass { ownPart.1 = "current Last-Modified → 206" }
        }
        var oldPart: (CheckResult, String)
        let oldDate = old.request.headers.first.map { String($0.dropFirst("If-Range: ".count)) } ?? ""
        if old.status == 206 {
            oldPart = (
                .fail,
                "If-Range: \(oldDate) (older than Last-Modified) → 206 \(old.contentRangeValue ?? ""): the server ignores If-Range dates, so a client resuming after the file changed splices bytes of two versions"
            )
        } else {
            oldPart = RangeJudge.whole(old, length: length, run: run)
            if oldPart.0 == .pass { oldPart.1 = "older date → 200 with the whole current body" }
        }
        return combine(.ifRangeDate, [ownPart, oldPart], evidence: ev)
    }
}
