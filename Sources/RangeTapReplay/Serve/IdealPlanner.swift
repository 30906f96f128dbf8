import RangeTapCore

/// `serve --ideal`: finds the capture's resource for a request (404 with a listing when there is
/// none) and answers it with ``RangeAnswerPlanner``, RFC 9110 range handling over the bytes the
/// capture holds.
struct IdealPlanner: Sendable {
    /// The capture's resources.
    let index: ResourceIndex

    /// The response to `request`.
    func plan(_ request: FixtureRequest) -> RangeAnswer {
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
        return RangeAnswerPlanner.answer(
            method: request.method, range: request.range, ifRange: request.ifRange,
            representation: RangeRepresentation(
                name: res.path, length: res.length, covered: res.covered, contentType: res.contentType, etag: res.etag,
                lastModified: res.lastModified),
            who: "rangetap serve --ideal")
    }
}
