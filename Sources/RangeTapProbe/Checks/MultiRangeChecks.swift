import RangeTapCore

/// Several ranges in one request: a multipart/byteranges body checked part by part, a single
/// coalesced range, or a 200 — each reported as what it is.
enum MultiRangeChecks {
    /// The checks of the area, in report order.
    static func checks(_ run: ProbeRun) -> [ProbeCheck] {
        [
            judge(.multiRange, .multi, ProbePlan.multiValue, run),
            judge(.multiOverlap, .overlap, ProbePlan.overlapValue, run),
        ]
    }

    static func judge(_ id: ProbeCheckID, _ slot: ProbeSlot, _ value: String, _ run: ProbeRun) -> ProbeCheck {
        guard let plan = run.plan, let length = run.length, let r = run[slot] else {
            return ProbeCheck(id, .info, SingleRangeChecks.lengthUnknown, evidence: [])
        }
        let ev = [r.evidence]
        let expected = plan.expectedParts(value)
        var wanted = ByteRangeSet()
        for e in expected { wanted.insert(e.first..<e.upperBound) }
        let wantedText = expected.map { "\($0)" }.joined(separator: ",")
        guard let status = r.status else {
            return ProbeCheck(id, .fail, "\(value): no response (\(r.error ?? "unknown error"))", evidence: ev)
        }
        switch status {
        case 200:
            return ProbeCheck(
                id, .warn,
                "\(value) → 200 with the whole body: allowed (a server may ignore Range), but a client asking for \(expected.count) ranges downloads everything; rangetap stopped after \(r.bodyBytes) bytes",
                evidence: ev)
        case 416:
            return ProbeCheck(
                id, .fail, "\(value) → 416, but bytes \(wantedText) of \(length) are satisfiable", evidence: ev)
        case 206:
            break
        default:
            return ProbeCheck(id, .fail, "\(value) → \(status) instead of 206", evidence: ev)
        }
        if r.stoppedEarly || r.error != nil {
            return ProbeCheck(
                id, .fail,
                "\(value) → 206 whose body \(r.error.map { "broke off: \($0)" } ?? "runs past 64 KiB for \(wanted.count) bytes of ranges")",
                evidence: ev)
        }
        if r.mediaType == "multipart/byteranges" {
            return multipart(id, r, value: value, expected: expected, wanted: wanted, length: length, run: run)
        }
        // One part: coalesced, or only some of the ranges.
        guard case .success(let cr)? = r.contentRange, let got = cr.range else {
            return ProbeCheck(
                id, .fail,
                "\(value) → 206 \(r.mediaType ?? "") that is neither multipart/byteranges nor carries a usable Content-Range (\(r.contentRangeValue ?? "none"))",
                evidence: ev)
        }
        if cr.completeLength != length {
            return ProbeCheck(
                id, .fail,
                "\(value) → Content-Range bytes \(got)/\(cr.completeLength.map(String.init) ?? "*"), but the resource has \(length) bytes",
                evidence: ev)
        }
        if r.bodyBytes != got.count {
            return ProbeCheck(
                id, .fail, "\(value) → Content-Range bytes \(got) promises \(got.count) bytes, \(r.bodyBytes) came",
                evidence: ev)
        }
        if let reference = run.referenceBytes(got), !reference.elementsEqual(r.kept) {
            return ProbeCheck(
                id, .fail,
                "\(value) → 206 bytes \(got)/\(length), but the bytes differ from the same slice of the plain GET",
                evidence: ev)
        }
        var covered = ByteRangeSet()
        covered.insert(got.first..<got.upperBound)
        let missing = expected.filter { !covered.contains($0.first..<$0.upperBound) }
        if missing.isEmpty {
            return ProbeCheck(
                id, .info,
                "\(value) → one range, bytes \(got)/\(length), coalescing \(wantedText) (allowed; the bytes are right, and the client also gets the \(got.count - wanted.count) bytes between)",
                evidence: ev)
        }
        return ProbeCheck(
            id, .warn,
            "\(value) → only bytes \(got)/\(length): \(missing.map { "\($0)" }.joined(separator: ",")) never came, so the client must ask again (a server should send every satisfiable range, or ignore Range and send 200)",
            evidence: ev)
    }

    static func multipart(
        _ id: ProbeCheckID, _ r: ProbeResponse, value: String, expected: [ByteRange], wanted: ByteRangeSet,
        length: Int64, run: ProbeRun
    ) -> ProbeCheck {
        let ev = [r.evidence]
        guard let ct = r.header("Content-Type"), let boundary = MultipartByteranges.boundary(contentType: ct) else {
            return ProbeCheck(
                id, .fail, "\(value) → multipart/byteranges without a boundary parameter: the parts cannot be found",
                evidence: ev)
        }
        let body: MultipartByteranges
        switch MultipartByteranges.parse(r.kept, boundary: boundary) {
        case .success(let b): body = b
        case .failure(let error):
            return ProbeCheck(id, .fail, "\(value) → multipart/byteranges that does not parse: \(error)", evidence: ev)
        }
        var covered = ByteRangeSet()
        var described: [String] = []
        for (i, part) in body.parts.enumerated() {
            guard let raw = part.contentRange else {
                return ProbeCheck(id, .fail, "\(value) → multipart part \(i + 1) has no Content-Range", evidence: ev)
            }
            let cr: ContentRange
            do { cr = try ContentRange.parse(raw) } catch {
                return ProbeCheck(id, .fail, "\(value) → multipart part \(i + 1): \(error)", evidence: ev)
            }
            guard let got = cr.range, cr.completeLength == length else {
                return ProbeCheck(
                    id, .fail,
                    "\(value) → multipart part \(i + 1) Content-Range \"\(raw)\" does not name a range of the \(length)-byte resource",
                    evidence: ev)
            }
            guard Int64(part.body.count) == got.count else {
                return ProbeCheck(
                    id, .fail,
                    "\(value) → multipart part \(i + 1) says bytes \(got) (\(got.count) bytes) but carries \(part.body.count)",
                    evidence: ev)
            }
            if let reference = run.referenceBytes(got), !reference.elementsEqual(part.body) {
                return ProbeCheck(
                    id, .fail,
                    "\(value) → multipart part \(i + 1) (bytes \(got)) differs from the same slice of the plain GET: a client reassembling the parts gets corrupt data",
                    evidence: ev)
            }
            covered.insert(got.first..<got.upperBound)
            described.append("\(got)")
        }
        let missing = expected.filter { !covered.contains($0.first..<$0.upperBound) }
        guard missing.isEmpty else {
            return ProbeCheck(
                id, .warn,
                "\(value) → multipart/byteranges with parts \(described.joined(separator: ", ")): \(missing.map { "\($0)" }.joined(separator: ",")) missing, so the client must ask again",
                evidence: ev)
        }
        if let top = r.contentRangeValue {
            return ProbeCheck(
                id, .warn,
                "\(value) → multipart/byteranges with correct parts \(described.joined(separator: ", ")), but also a top-level Content-Range: \(top), which a multipart response must not carry (clients may take it for a single part)",
                evidence: ev)
        }
        let compared =
            run.referenceBytes(ByteRange(first: 0, last: max(0, (covered.spans.last?.upperBound ?? 1) - 1))) != nil
            ? ", bytes equal to the plain GET" : ""
        return ProbeCheck(
            id, .pass,
            "\(value) → multipart/byteranges, \(body.parts.count) parts \(described.joined(separator: ", ")), each Content-Range right\(compared)",
            evidence: ev)
    }
}
