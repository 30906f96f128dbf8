import RangeTapCore
import RangeTapReplay
import RangeTapSystem

/// What a `--map` rule answers one request from: the representation the range engine plans
/// over, and where its bytes are; or, when the request names nothing the rule can serve, the
/// reason (answered 404).
struct MapTarget: Sendable {
    /// Where the bytes are.
    enum Bytes: Sendable {
        /// In this file.
        case file(String)
        /// In a capture, as the resource of this URL.
        case capture(CapturedResources, url: String)
    }

    /// The representation.
    var representation: RangeRepresentation
    /// Where its bytes are.
    var bytes: Bytes

    /// What the answer came from, for the `fault` event's detail.
    var origin: String {
        switch bytes {
        case .file(let path): path
        case .capture(let c, let url): "\(c.path) (\(URLParts(url).originForm))"
        }
    }

    /// What `rule` maps `url` to (`captures`: the indexed captures of `capture=` rules), or why
    /// there is nothing.
    static func resolve(
        _ rule: MapRule, url: String, captures: [String: CapturedResources]
    ) -> Result<
        MapTarget, MapMiss
    > {
        switch rule.source {
        case .file(let path):
            return file(path)
        case .directory(let dir):
            let path = URLParts(url).path
            guard let decoded = PercentDecoding.decode(path) else {
                return .failure(MapMiss("the path \(path) is not percent-encoded UTF-8"))
            }
            let rest = relative(decoded, to: rule.match.path)
            let segments = rest.split(separator: "/", omittingEmptySubsequences: true)
            guard !segments.isEmpty, !segments.contains(where: { $0 == ".." || $0 == "." }),
                !rest.contains("\u{0}")
            else {
                return .failure(MapMiss("the path \(decoded) names no file under \(dir)"))
            }
            let candidate = dir + "/" + segments.joined(separator: "/")
            // Symbolic links may point anywhere: what they resolve to must stay under the directory.
            guard let real = System.realPath(candidate), real.hasPrefix(dir + "/") else {
                return .failure(MapMiss("\(candidate) does not exist under \(dir)"))
            }
            return file(real)
        case .capture(let path):
            guard let resources = captures[path] else { return .failure(MapMiss("the capture \(path) is not loaded")) }
            guard let representation = resources.representation(for: url) else {
                let listing = resources.listing.prefix(50).map { "  \($0)\n" }.joined()
                return .failure(
                    MapMiss("the capture \(path) has no resource \(URLParts(url).originForm)\n\nIt has:\n\(listing)"))
            }
            return .success(MapTarget(representation: representation, bytes: .capture(resources, url: url)))
        }
    }

    /// A file as a representation: its length, an ETag and Last-Modified as nginx makes them
    /// (`"<mtime>-<size>"` in hex; the modification time as an HTTP date), a Content-Type by
    /// its extension.
    static func file(_ path: String) -> Result<MapTarget, MapMiss> {
        guard let status = System.status(path), status.kind == .regular else {
            return .failure(MapMiss("\(path) is not a regular file"))
        }
        let etag = "\"\(String(status.modified, radix: 16))-\(String(status.size, radix: 16))\""
        var covered = ByteRangeSet()
        if status.size > 0 { covered.insert(0..<status.size) }
        return .success(
            MapTarget(
                representation: RangeRepresentation(
                    name: path, length: status.size, covered: covered, contentType: MediaType.of(path: path),
                    etag: etag,
                    lastModified: HTTPDate.format(status.modified)),
                bytes: .file(path)))
    }

    /// The part of `path` after the literal prefix of the rule's `path=` glob up to its last `/`
    /// before a wildcard (`/video/*` maps `/video/a/b.m4s` to `a/b.m4s`); the whole path
    /// without its leading `/` when the glob has no such prefix.
    static func relative(_ path: String, to glob: String?) -> Substring {
        var prefix = "/"
        if let glob, glob.hasPrefix("/") {
            let literal = glob.prefix { $0 != "*" && $0 != "?" && $0 != "[" }
            if let slash = literal.lastIndex(of: "/") { prefix = String(literal[...slash]) }
        }
        guard path.hasPrefix(prefix) else { return Substring(path).drop { $0 == "/" } }
        return path.dropFirst(prefix.count)
    }
}

/// Why a mapped request has nothing to be answered from (answered 404, with this reason).
struct MapMiss: Error, Sendable {
    let reason: String
    init(_ reason: String) { self.reason = reason }
}
