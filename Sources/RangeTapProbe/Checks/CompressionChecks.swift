import RangeTapCore

/// A Range sent with `Accept-Encoding: gzip`: does the range apply to the encoded bytes of the
/// same representation a 200 would carry, or to the identity bytes, and do the two agree?
enum CompressionChecks {
    /// The checks of the area, in report order.
    static func checks(_ run: ProbeRun) -> [ProbeCheck] { [judge(run)] }

    static func isGzip(_ r: ProbeResponse) -> Bool {
        r.values("Content-Encoding").flatMap { $0.split(separator: ",") }.contains {
            ["gzip", "x-gzip"].contains($0.trimmingHTTPWhitespace().lowercased())
        }
    }

    static func judge(_ run: ProbeRun) -> ProbeCheck {
        var check = judgeRanges(run)
        // The gzip and identity representations must not share a strong ETag (RFC 9110 §8.8.3):
        // If-Range and caches would take one for the other.
        if let b = run[.gzipFull], b.status == 200, isGzip(b), let tag = b.header("ETag"), !tag.hasPrefix("W/"),
            let identityTag = run.etag, identityTag == tag
        {
            check.message +=
                "; the gzip 200 has the identity's strong ETag \(tag): If-Range and caches take one encoding for the other"
            if check.result < .warn { check.result = .warn }
        }
        return check
    }

    static func judgeRanges(_ run: ProbeRun) -> ProbeCheck {
        guard let length = run.length, let a = run[.gzipRange], let b = run[.gzipFull] else {
            return ProbeCheck(.compressionRange, .info, SingleRangeChecks.lengthUnknown, evidence: [])
        }
        let ev = [a.evidence, b.evidence]
        guard a.status != nil, b.status != nil else {
            let bad = a.status == nil ? a : b
            return ProbeCheck(
                .compressionRange, .fail, "\(bad.request.label): no response (\(bad.error ?? "unknown error"))",
                evidence: ev)
        }
        let aGzip = isGzip(a)
        let bGzip = isGzip(b)
        let identity = RangeSpec.closed(first: 0, last: 99).resolved(length: length) ?? ByteRange(first: 0, last: 0)
        if !aGzip {
            if a.status == 200 {
                guard run.rangesWork else {
                    return ProbeCheck(
                        .compressionRange, .info,
                        "not judged: the server does not answer ranges (with gzip → \(a.summary))", evidence: ev)
                }
                return ProbeCheck(
                    .compressionRange, .warn,
                    "Range with Accept-Encoding: gzip → 200 \(bGzip ? "gzip" : "identity") body, though ranges work without gzip: clients that accept gzip download the whole body for every range (rangetap stopped after \(a.bodyBytes) bytes)",
                    evidence: ev)
            }
            let (result, message) = RangeJudge.partial(a, expected: identity, length: length, run: run)
            guard result == .pass else {
                return ProbeCheck(.compressionRange, result, "with Accept-Encoding: gzip, " + message, evidence: ev)
            }
            if bGzip {
                if let tag = a.header("ETag"), !tag.hasPrefix("W/"), tag == b.header("ETag") {
                    return ProbeCheck(
                        .compressionRange, .warn,
                        "with Accept-Encoding: gzip the 200 is gzip-encoded but a Range gets identity bytes under the same strong ETag: a cache that stored the gzip 200 and fills it with these ranges corrupts the file",
                        evidence: ev)
                }
                return ProbeCheck(
                    .compressionRange, .info,
                    "with Accept-Encoding: gzip the 200 is gzip-encoded but a Range gets identity bytes (bytes \(identity)/\(length), right), under another ETag: consistent, but clients accepting gzip fetch ranges uncompressed",
                    evidence: ev)
            }
            return ProbeCheck(
                .compressionRange, .pass,
                "the server does not compress this resource; Range with Accept-Encoding: gzip → 206 bytes \(identity)/\(length) of the identity body",
                evidence: ev)
        }
        // The range came gzip-encoded.
        guard a.status == 206 else {
            if a.status == 200, run.rangesWork {
                return ProbeCheck(
                    .compressionRange, .warn,
                    "Range with Accept-Encoding: gzip → 200 gzip body, though ranges work without gzip: clients that accept gzip download the whole body for every range (rangetap stopped after \(a.bodyBytes) bytes)",
                    evidence: ev)
            }
            return ProbeCheck(
                .compressionRange, .info, "Range with Accept-Encoding: gzip → \(a.summary), gzip-encoded", evidence: ev)
        }
        guard case .success(let cr)? = a.contentRange, let got = cr.range else {
            return ProbeCheck(
                .compressionRange, .fail,
                "Range with Accept-Encoding: gzip → 206 gzip without a usable Content-Range (\(a.contentRangeValue ?? "none"))",
                evidence: ev)
        }
        guard bGzip, b.status == 200 else {
            return ProbeCheck(
                .compressionRange, .fail,
                "Range with Accept-Encoding: gzip → 206 gzip bytes \(got)/\(cr.completeLength.map(String.init) ?? "*"), but a GET with the same Accept-Encoding → \(b.summary) \(bGzip ? "gzip" : "identity"): the range does not belong to the representation a 200 sends",
                evidence: ev)
        }
        let gzipLength = b.contentLength ?? (b.complete ? b.bodyBytes : nil)
        if let total = cr.completeLength, let gzipLength, total != gzipLength {
            return ProbeCheck(
                .compressionRange, .fail,
                "Range with Accept-Encoding: gzip → 206 Content-Encoding: gzip with Content-Range bytes \(got)/\(total), but the gzip 200 has \(gzipLength) bytes\(total == length ? " (\(total) is the identity length)" : ""): the server compressed an identity range by itself, so a client or cache joining ranges gets garbage",
                evidence: ev)
        }
        if got.upperBound <= Int64(b.kept.count) {
            let slice = b.kept[Int(got.first)..<Int(got.upperBound)]
            if !slice.elementsEqual(a.kept) {
                return ProbeCheck(
                    .compressionRange, .fail,
                    "Range with Accept-Encoding: gzip → 206 gzip bytes \(got), but they differ from the same bytes of the gzip 200: the range is not over the encoded representation",
                    evidence: ev)
            }
        }
        return ProbeCheck(
            .compressionRange, .pass,
            "Range with Accept-Encoding: gzip → 206 bytes \(got) of the gzip-encoded body, equal to the same bytes of the gzip 200",
            evidence: ev)
    }
}
