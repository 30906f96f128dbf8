import RangeTapCore

/// RFC 9110 range handling over what a capture holds: 200 for the whole representation (when
/// every byte was captured), 206 for one range, `multipart/byteranges` for several, 416 with
/// `Content-Range: bytes */LENGTH` for ranges past the end or not captured; HEAD gets the head
/// of a whole GET (Range is for GET only), even when only part of the bytes were captured.
struct IdealPlanner: Sendable {
    /// The boundary of multipart/byteranges bodies (fixed, so fixtures are deterministic).
    static let boundary = "rangetap-byteranges-5f2c9e1a7b3d"
    /// The capture's resources.
    let index: ResourceIndex

    /// The response to `request`.
    func plan(_ request: FixtureRequest) -> IdealResponse {
        guard request.method == "GET" || request.method == "HEAD" else {
            return .text(
                405, "rangetap serve --ideal answers GET and HEAD only, not \(request.method)\n",
                extra: [("Allow", "GET, HEAD")])
        }
        guard let res = index.resource(request.path) else {
            var s = "rangetap serve --ideal: the capture has no resource \(request.path)\n\n"
            let listing = index.listing
            s +=
                listing.isEmpty
                ? "The capture holds no GET or HEAD exchanges.\n"
                : "The capture has:\n" + listing.prefix(200).map { "  \($0)\n" }.joined()
            return .text(404, s)
        }
        if let why = res.tooLarge {
            return .text(500, "rangetap serve --ideal: \(res.path) is too large to serve: \(why)\n")
        }
        var common: [(name: String, value: String)] = [("Accept-Ranges", "bytes")]
        if let e = res.etag { common.append(("ETag", e)) }
        if let m = res.lastModified { common.append(("Last-Modified", m)) }
        let type = res.contentType ?? "application/octet-stream"

        // Range applies to GET only; one that does not parse, is not in bytes, or fails its
        // If-Range is ignored (§14.2).
        var ranges: RangeRequest?
        if request.method == "GET", let value = request.range, let parsed = try? RangeRequest.parse(value),
            parsed.isBytes, ifRangeHolds(request.ifRange, res)
        {
            ranges = parsed
        }
        guard let ranges else {
            // HEAD needs no bytes: the head a complete GET would get, once the length is known.
            if request.method == "HEAD", let length = res.length {
                return IdealResponse(
                    status: 200, fields: [("Content-Type", type)] + common,
                    body: length > 0 ? [.resource(0..<length)] : [])
            }
            guard let length = res.length, res.covered.contains(0..<length) else {
                return .text(
                    503,
                    "rangetap serve --ideal: the capture holds \(res.covered.count) of \(res.length.map(String.init) ?? "an unknown number of") bytes of \(res.path), so it cannot send the whole representation; ask for a captured range.\n\(describe(res))",
                    extra: common,
                    uncaptured:
                        "\(request.summary): the whole representation was never captured (\(describe(res).dropLast()))")
            }
            return IdealResponse(
                status: 200, fields: [("Content-Type", type)] + common, body: length > 0 ? [.resource(0..<length)] : [])
        }

        // Resolve against the length; ranges past the end are dropped, and with none left: 416.
        let length = res.length
        let resolved: [ByteRange] = ranges.specs.compactMap { spec in
            if let length { return spec.resolved(length: length) }
            if case .closed(let first, let last) = spec { return ByteRange(first: first, last: last) }
            return nil
        }
        let unsatisfied: [(name: String, value: String)] = length.map { [("Content-Range", "bytes */\($0)")] } ?? []
        guard !resolved.isEmpty else {
            return .text(
                416,
                "rangetap serve --ideal: \(request.range ?? "") selects no byte of \(res.path) (\(length.map { "\($0) bytes" } ?? "length unknown"))\n",
                extra: unsatisfied + common)
        }
        let spans = Self.coalesce(resolved)
        for r in spans where !res.covered.contains(r.first..<r.upperBound) {
            return .text(
                416,
                "rangetap serve --ideal: bytes \(r.first)-\(r.last) of \(res.path) were not all captured\n\(describe(res))",
                extra: unsatisfied + common,
                uncaptured:
                    "\(request.summary): bytes \(r.first)-\(r.last) were not all captured (\(describe(res).dropLast()))"
            )
        }
        let total = length.map(String.init) ?? "*"
        if spans.count == 1 {
            let r = spans[0]
            return IdealResponse(
                status: 206,
                fields: [("Content-Type", type), ("Content-Range", "bytes \(r.first)-\(r.last)/\(total)")] + common,
                body: [.resource(r.first..<r.upperBound)])
        }
        var body: [IdealResponse.Part] = []
        for (i, r) in spans.enumerated() {
            let partHead =
                "\(i == 0 ? "" : "\r\n")--\(Self.boundary)\r\nContent-Type: \(type)\r\nContent-Range: bytes \(r.first)-\(r.last)/\(total)\r\n\r\n"
            body.append(.literal(Array(partHead.utf8)))
            body.append(.resource(r.first..<r.upperBound))
        }
        body.append(.literal(Array("\r\n--\(Self.boundary)--\r\n".utf8)))
        return IdealResponse(
            status: 206, fields: [("Content-Type", "multipart/byteranges; boundary=\(Self.boundary)")] + common,
            body: body)
    }

    /// Whether an If-Range condition holds (RFC 9110 §13.1.5): a strong ETag match, or the
    /// exact Last-Modified date. No If-Range always holds.
    func ifRangeHolds(_ value: String?, _ res: ResourceIndex.Resource) -> Bool {
        guard let v = value?.trimmingHTTPSpaces, !v.isEmpty else { return true }
        if v.hasPrefix("W/") { return false }
        if v.hasPrefix("\"") { return res.etag.map { !$0.hasPrefix("W/") && $0 == v } ?? false }
        return res.lastModified == v
    }

    /// Ranges in the order asked, or sorted and merged when any overlap or touch (§14.2 allows
    /// coalescing).
    static func coalesce(_ ranges: [ByteRange]) -> [ByteRange] {
        let sorted = ranges.sorted { $0.first < $1.first }
        let overlapping = zip(sorted, sorted.dropFirst()).contains { $1.first <= $0.upperBound }
        guard overlapping else { return ranges }
        var set = ByteRangeSet()
        for r in ranges { set.insert(r.first..<r.upperBound) }
        return set.spans.map { ByteRange(first: $0.lowerBound, last: $0.upperBound - 1) }
    }

    private func describe(_ res: ResourceIndex.Resource) -> String {
        let spans = res.covered.spans.prefix(20).map { "\($0.lowerBound)-\($0.upperBound - 1)" }
        return "captured: "
            + (spans.isEmpty ? "nothing" : spans.joined(separator: ", ") + (res.covered.spans.count > 20 ? ", …" : ""))
            + "\n"
    }
}

extension String {
    /// Without leading and trailing spaces and tabs.
    var trimmingHTTPSpaces: String {
        var s = Substring(self)
        while let c = s.first, c == " " || c == "\t" { s = s.dropFirst() }
        while let c = s.last, c == " " || c == "\t" { s = s.dropLast() }
        return String(s)
    }
}
