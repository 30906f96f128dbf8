import Foundation
import RangeTapCore

/// Ties the exchanges of a capture to what they fetched in media terms (``MediaSpan``): the
/// HLS playlists and DASH MPDs the capture holds are parsed, their segments looked up by URL
/// and byte range; MP4 resources no manifest lists are mapped through their own index (`moov`,
/// `moof` or `sidx` in the captured bytes).
///
/// Needs a capture recorded with bodies: without them there is nothing to parse and the map is
/// empty. A manifest that cannot be read is a `media-manifest-invalid` finding, never an error
/// of the whole analysis.
public struct MediaMap: Sendable {
    /// The span of each mapped exchange, by exchange id.
    public var spans: [Int: MediaSpan] = [:]
    /// Bits per second of each rendition, as the master playlist or MPD declares it.
    public var bandwidths: [String: Int] = [:]
    /// The kind of stream each rendition carries (`video`, `audio`, `subtitles`, or `media`
    /// when the manifest does not say): a switch is between renditions of one kind.
    public var groups: [String: String] = [:]
    /// Findings about the manifests themselves (`media-manifest-invalid`).
    public var findings: [Finding] = []

    /// Creates an empty map.
    public init() {}

    /// Largest manifest body read, 32 MiB: a "playlist" past that is not one.
    static let manifestLimit: Int64 = 32 << 20

    /// Maps the exchanges of `analysis`, reading bodies through `reader`.
    public static func build(_ analysis: CaptureAnalysis, reader: CaptureReader) -> MediaMap {
        var map = MediaMap()
        guard reader.header.bodies else { return map }
        var manifests: [(exchange: CaptureAnalysis.Exchange, format: String)] = []
        var mp4Candidates: Set<Int> = []
        for e in analysis.exchanges where e.record.method == "GET" && e.record.url != nil {
            guard let status = e.record.status, status == 200 || status == 206 else { continue }
            switch MediaResourceKind(e.record) {
            case .hls: manifests.append((e, "hls"))
            case .dash: manifests.append((e, "dash"))
            case .mp4: mp4Candidates.insert(e.record.id)
            case .other: break
            }
        }
        guard !manifests.isEmpty || !mp4Candidates.isEmpty else { return map }
        let manifestIDs = Set(manifests.map(\.exchange.record.id))
        var chunks: [Int: [ChunkEvent]] = [:]
        try? reader.forEachEvent { event in
            if case .chunk(let c) = event, manifestIDs.contains(c.exchange) || mp4Candidates.contains(c.exchange) {
                chunks[c.exchange, default: []].append(c)
            }
        }
        let lengths = Dictionary(analysis.resources.map { ($0.url, $0.length) }, uniquingKeysWith: { a, _ in a })

        var refs = MediaRefIndex()
        var resources: [String: CapturedResourceBytes] = [:]
        var exchangesOf: [String: [Int]] = [:]
        for e in analysis.exchanges where chunks[e.record.id] != nil {
            if let url = e.record.url { exchangesOf[MediaRefIndex.key(url), default: []].append(e.record.id) }
        }
        /// The captured bytes of `url`: every chunk of every exchange of it that was read.
        func resource(_ url: String) -> CapturedResourceBytes {
            if let r = resources[url] { return r }
            let ids = exchangesOf[MediaRefIndex.key(url)] ?? []
            let r = CapturedResourceBytes(
                reader: reader, chunks: ids.flatMap { chunks[$0] ?? [] }, length: lengths[url] ?? nil)
            resources[url] = r
            return r
        }

        // Master playlists first: they name the renditions their media playlists play.
        var hlsTexts: [(CaptureAnalysis.Exchange, String)] = []
        for (e, format) in manifests where e.record.outcome == .complete {
            if let coding = e.record.responseLines.first(named: "Content-Encoding"), coding.lowercased() != "identity" {
                map.findings.append(
                    Finding(
                        .mediaManifestInvalid,
                        "cannot read the manifest \(e.record.url ?? e.record.target): it came with Content-Encoding: \(coding), and rangetap records bodies as sent without decoding them; its segments are not mapped",
                        exchange: e.record.id))
                continue
            }
            guard let text = body(of: e, chunks: chunks[e.record.id] ?? [], reader: reader) else { continue }
            if format == "hls" {
                hlsTexts.append((e, text))
            } else {
                map.readDASH(text, exchange: e, refs: &refs, resource: resource)
            }
        }
        var variantNames: [String: String] = [:]
        var mediaPlaylists: [(CaptureAnalysis.Exchange, String)] = []
        for (e, text) in hlsTexts {
            do {
                let playlist = try HLSPlaylist.parse(text, url: e.record.url!)
                guard playlist.kind == .master else {
                    mediaPlaylists.append((e, text))
                    continue
                }
                map.spans[e.record.id] = MediaSpan(kind: .manifest, format: "hls", note: "master")
                for v in playlist.variants {
                    variantNames[MediaRefIndex.key(v.uri)] = v.name
                    map.bandwidths[v.name] = v.bandwidth
                    map.groups[v.name] = v.isIFrameOnly ? "iframes" : "video"
                }
                for r in playlist.renditions {
                    guard let uri = r.uri else { continue }
                    variantNames[MediaRefIndex.key(uri)] = r.name
                    map.groups[r.name] = r.type.rawValue.lowercased()
                }
            } catch {
                map.invalid(e, error)
            }
        }
        // A live playlist reloaded lists a sliding window, each copy timed from its own first
        // segment: later copies are shifted so that a sequence number keeps the time it was
        // first given, and times run on across reloads.
        var starts: [String: [Int: Double]] = [:]
        for (e, text) in mediaPlaylists {
            let key = MediaRefIndex.key(e.record.url!)
            let rendition = variantNames[key]
            do {
                var playlist = try HLSPlaylist.parse(text, url: e.record.url!, rendition: rendition)
                let known = starts[key, default: [:]]
                if let shift = playlist.segments.lazy.filter({ $0.span.kind == .segment }).compactMap({ r in
                    r.span.sequence.flatMap { known[$0] }.flatMap { old in r.span.start.map { old - $0 } }
                }).first, shift != 0 {
                    for i in playlist.segments.indices {
                        playlist.segments[i].span.start = playlist.segments[i].span.start.map { $0 + shift }
                        playlist.segments[i].span.end = playlist.segments[i].span.end.map { $0 + shift }
                    }
                }
                for r in playlist.segments where r.span.kind == .segment {
                    if let sequence = r.span.sequence, let start = r.span.start,
                        starts[key, default: [:]][sequence] == nil
                    {
                        starts[key, default: [:]][sequence] = start
                    }
                }
                let name = playlist.segments.first?.span.rendition ?? rendition
                map.spans[e.record.id] = MediaSpan(kind: .manifest, format: "hls", rendition: name)
                if let name, map.groups[name] == nil { map.groups[name] = "media" }
                refs.add(playlist.segments)
            } catch {
                map.invalid(e, error)
            }
        }

        var mp4Indexes: [String: MP4Index?] = [:]
        for e in analysis.exchanges where e.record.method == "GET" && map.spans[e.record.id] == nil {
            guard let url = e.record.url, let status = e.record.status, status == 200 || status == 206 else { continue }
            if let span = refs.span(url: url, bytes: e.resourceSpan) {
                map.spans[e.record.id] = span
                continue
            }
            guard mp4Candidates.contains(e.record.id), let bytes = e.resourceSpan, !bytes.isEmpty else { continue }
            let key = MediaRefIndex.key(url)
            if mp4Indexes[key] == nil { mp4Indexes[key] = .some(try? MP4Index.read(resource(url))) }
            guard let index = mp4Indexes[key] ?? nil else { continue }
            if index.isIndex(bytes) {
                map.spans[e.record.id] = MediaSpan(
                    kind: .index, format: "mp4", note: index.moovAtEnd ? "moov at end" : nil)
            } else if index.isIndexAtEnd(bytes), let moov = index.moov {
                // The index, fetched from a little before it: the media bytes are noted, the
                // exchange is not counted as media time.
                map.spans[e.record.id] = MediaSpan(
                    kind: .index, format: "mp4", note: "moov at end, +\(moov.lowerBound - bytes.lowerBound) B media")
            } else if let t = index.timeSpan(of: bytes) {
                map.spans[e.record.id] = MediaSpan(kind: .segment, format: "mp4", start: t.start, end: t.end)
            }
        }
        return map
    }

    /// A DASH MPD: its segments, and for `SegmentBase` representations the segments their
    /// `sidx` (read from the captured bytes at `indexRange`) lists.
    private mutating func readDASH(
        _ text: String, exchange e: CaptureAnalysis.Exchange, refs: inout MediaRefIndex,
        resource: (String) -> CapturedResourceBytes
    ) {
        do {
            let mpd = try DASHManifest.parse(text, url: e.record.url!)
            spans[e.record.id] = MediaSpan(kind: .manifest, format: "dash")
            for r in mpd.representations {
                if let b = r.bandwidth { bandwidths[r.name] = b }
                groups[r.name] =
                    (r.contentType ?? r.mimeType?.split(separator: "/").first.map(String.init))?.lowercased() ?? "media"
            }
            refs.add(mpd.segments)
            for rep in mpd.indexed {
                guard let sidx = resource(rep.url).bytes(rep.indexRange),
                    let entries = try? MP4SegmentIndex.parse(sidx, at: rep.indexRange.lowerBound)
                else { continue }
                let shift = rep.periodStart - Double(rep.presentationTimeOffset) / Double(max(rep.timescale, 1))
                refs.add(
                    entries.enumerated().map { i, s in
                        MediaSegmentRef(
                            url: rep.url, byteRange: s.byteRange,
                            span: MediaSpan(
                                kind: .segment, format: "dash", rendition: rep.rendition, sequence: i + 1,
                                start: s.start + shift, end: s.end + shift))
                    })
            }
        } catch {
            invalid(e, error)
        }
    }

    /// Records that the manifest `e` fetched could not be read.
    private mutating func invalid(_ e: CaptureAnalysis.Exchange, _ error: any Error) {
        findings.append(
            Finding(
                .mediaManifestInvalid,
                "cannot read the manifest \(e.record.url ?? e.record.target): \(error); its segments are not mapped",
                exchange: e.record.id))
    }

    /// The whole body of a complete manifest response, as text; nil when a chunk cannot be
    /// read or it is larger than ``manifestLimit``.
    private static func body(of e: CaptureAnalysis.Exchange, chunks: [ChunkEvent], reader: CaptureReader) -> String? {
        guard e.record.bytesSent <= manifestLimit else { return nil }
        var bytes: [UInt8] = []
        for c in chunks {
            guard let data = try? reader.bytes(of: c) else { return nil }
            bytes.append(contentsOf: data)
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
