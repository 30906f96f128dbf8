import RangeTapCore

/// A capture's resources as a source of answers for a proxy that answers requests itself
/// (`record --map 'RULE,capture=CAP'`): each resource's representation for
/// ``RangeAnswerPlanner`` and its recorded bytes, by request target (path and query, the `CMCD`
/// parameter left out, as `serve --ideal` matches them).
public final class CapturedResources: Sendable {
    /// The capture directory.
    public let path: String
    private let index: ResourceIndex

    /// Indexes the capture at `path`; throws when it cannot be read or holds no bodies.
    public init(capture path: String) throws(FixtureError) {
        self.path = path
        do {
            index = try ResourceIndex(reader: try CaptureReader(path: path))
        } catch let error as FixtureError {
            throw error
        } catch {
            throw .capture("cannot read \(path): \(error)")
        }
        if !index.hasBodies { throw .noBodies(path) }
    }

    /// The representation the capture holds for the request target `url` (absolute or origin
    /// form); nil when it has no such resource, or one too large to serve.
    public func representation(for url: String) -> RangeRepresentation? {
        let key = RequestPath.originForm(url)
        guard let r = index.resource(key), r.tooLarge == nil else { return nil }
        return RangeRepresentation(
            name: "\(path) \(r.path)", length: r.length, covered: r.covered, contentType: r.contentType, etag: r.etag,
            lastModified: r.lastModified)
    }

    /// The recorded bytes of `range` of the resource of `url`.
    public func read(_ url: String, _ range: Range<Int64>) throws(FixtureError) -> [UInt8] {
        try index.read(RequestPath.originForm(url), range)
    }

    /// A line per resource: path, length and what was captured (for a 404's body).
    public var listing: [String] { index.listing }
}
