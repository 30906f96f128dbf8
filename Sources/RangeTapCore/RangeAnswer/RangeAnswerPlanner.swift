/// RFC 9110 range handling, the one engine behind every answer rangetap gives itself (`serve
/// --ideal` from a capture, `record --map` from a file): 200 for the whole representation (when
/// every byte is there), 206 for one range, `multipart/byteranges` for several, 416 with
/// `Content-Range: bytes */LENGTH` for ranges past the end or not held, an If-Range that fails
/// sends the whole; HEAD gets the head of a whole GET (Range is for GET only), even when only
/// part of the bytes are held.
public enum RangeAnswerPlanner {
    /// The boundary of multipart/byteranges bodies (fixed, so fixtures are deterministic).
    public static let boundary = "rangetap-byteranges-5f2c9e1a7b3d"

    /// The answer to `method` with the request's `range` and `ifRange` values for
    /// `representation`; `who` names the answerer in text bodies (`rangetap serve --ideal`).
    public static func answer(
        method: String, range: String?, ifRange: String?, representation res: RangeRepresentation, who: String
    ) -> RangeAnswer {
        guard method == "GET" || method == "HEAD" else {
            return .text(
                405, "\(who) answers GET and HEAD only, not \(method)\n", extra: [("Allow", "GET, HEAD")])
        }
        let request = (
            method: method, range: range, summary: "\(method) \(res.name)\(range.map { " range=\($0)" } ?? "")"
        )
        var common: [(name: String, value: String)] = [("Accept-Ranges", "bytes")]
        if let e = res.etag { common.append(("ETag", e)) }
        if let m = res.lastModified { common.append(("Last-Modified", m)) }
        let type = res.contentType ?? "application/octet-stream"

        // Range applies to GET only; one that does not parse, is not in bytes, or fails its
        // If-Range is ignored (§14.2).
        var ranges: RangeRequest?
        if request.method == "GET", let value = request.range, let parsed = try? RangeRequest.parse(value),
            parsed.isBytes, ifRangeHolds(ifRange, res)
        {
            ranges = parsed
        }
        guard let ranges else {
            // HEAD needs no bytes: the head a complete GET would get, once the length is known.
            if request.method == "HEAD", let length = res.length {
                return RangeAnswer(
                    status: 200, fields: [("Content-Type", type)] + common,
                    body: length > 0 ? [.resource(0..<length)] : [])
            }
            guard let length = res.length, res.covered.contains(0..<length) else {
                return .text(
                    503,
                    "\(who): the capture holds \(res.covered.count) of \(res.length.map(String.init) ?? "an unknown number of") bytes of \(res.name), so it cannot send the whole representation; ask for a captured range.\n\(describe(res))",
                    extra: common,
                    uncaptured:
                        "\(request.summary): the whole representation was never captured (\(describe(res).dropLast()))")
            }
            return RangeAnswer(
                status: 200, fields: [("Content-Type", type)] + common, body: length > 0 ? [.resource(0..<length)] : [])
        }

        // Resolve against the length; ranges past the end are dropped, and with none left: 416.
        let length = res.length
        let resolved: [ByteRange] = ranges.specs.compactMap { spec in
            if let length { return spec.resolved(length: length) }
            if case .closed(let first, let last) = spec { return ByteRange(first: first, last: last) }
            return nil
        }
        // A 416 selects no representation: no validators (as nginx answers), Accept-Ranges kept.
        let unsatisfied: [(name: String, value: String)] =
            (length.map { [("Content-Range", "bytes */\($0)")] } ?? []) + [("Accept-Ranges", "bytes")]
        guard !resolved.isEmpty else {
            return .text(
                416,
                "\(who): \(request.range ?? "") selects no byte of \(res.name) (\(length.map { "\($0) bytes" } ?? "length unknown"))\n",
                extra: unsatisfied)
        }
        let spans = coalesce(resolved)
        for r in spans where !res.covered.contains(r.first..<r.upperBound) {
            return .text(
                416,
                "\(who): bytes \(r.first)-\(r.last) of \(res.name) were not all captured\n\(describe(res))",
                extra: unsatisfied,
                uncaptured:
                    "\(request.summary): bytes \(r.first)-\(r.last) were not all captured (\(describe(res).dropLast()))"
            )
        }
        let total = length.map(String.init) ?? "*"
        if spans.count == 1 {
            let r = spans[0]
            return RangeAnswer(
                status: 206,
                fields: [("Content-Type", type), ("Content-Range", "bytes \(r.first)-\(r.last)/\(total)")] + common,
                body: [.resource(r.first..<r.upperBound)])
        }
        var body: [RangeAnswer.Part] = []
        for (i, r) in spans.enumerated() {
            let partHead =
                "\(i == 0 ? "" : "\r\n")--\(boundary)\r\nContent-Type: \(type)\r\nContent-Range: bytes \(r.first)-\(r.last)/\(total)\r\n\r\n"
            body.append(.literal(Array(partHead.utf8)))
            body.append(.resource(r.first..<r.upperBound))
        }
        body.append(.literal(Array("\r\n--\(boundary)--\r\n".utf8)))
        return RangeAnswer(
            status: 206, fields: [("Content-Type", "multipart/byteranges; boundary=\(boundary)")] + common,
            body: body)
    }

    /// Whether an If-Range condition holds (RFC 9110 §13.1.5): a strong ETag match, or the
    /// exact Last-Modified date. No If-Range always holds.
    public static func ifRangeHolds(_ value: String?, _ res: RangeRepresentation) -> Bool {
        guard let v = value?.trimmingHTTPSpaces, !v.isEmpty else { return true }
        if v.hasPrefix("W/") { return false }
        if v.hasPrefix("\"") { return res.etag.map { !$0.hasPrefix("W/") && $0 == v } ?? false }
        return res.lastModified == v
    }

    /// Ranges in the order asked, or sorted and merged when any overlap or touch (§14.2 allows
    /// coalescing).
    public static func coalesce(_ ranges: [ByteRange]) -> [ByteRange] {
        let sorted = ranges.sorted { $0.first < $1.first }
        let overlapping = zip(sorted, sorted.dropFirst()).contains { $1.first <= $0.upperBound }
        guard overlapping else { return ranges }
        var set = ByteRangeSet()
        for r in ranges { set.insert(r.first..<r.upperBound) }
        return set.spans.map { ByteRange(first: $0.lowerBound, last: $0.upperBound - 1) }
    }

    private static func describe(_ res: RangeRepresentation) -> String {
        let spans = res.covered.spans.prefix(20).map { "\($0.lowerBound)-\($0.upperBound - 1)" }
        return "captured: "
            + (spans.isEmpty ? "nothing" : spans.joined(separator: ", ") + (res.covered.spans.count > 20 ? ", …" : ""))
            + "\n"
    }
}

extension String {
    /// Without leading and trailing spaces and tabs.
    public var trimmingHTTPSpaces: String {
        var s = Substring(self)
        while let c = s.first, c == " " || c == "\t" { s = s.dropFirst() }
        while let c = s.last, c == " " || c == "\t" { s = s.dropLast() }
        return String(s)
    }
}
