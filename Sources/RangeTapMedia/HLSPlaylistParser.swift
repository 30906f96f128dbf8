import RangeTapCore

/// The line-by-line reader behind ``HLSPlaylist/parse(_:url:rendition:)``: one pass, state
/// for the tags that apply to the next URI line.
struct HLSPlaylistParser {
    /// A byte range as written: `length[@offset]`.
    private struct WrittenRange {
        var length: Int64
        var offset: Int64?
        var value: String
        var line: Int
    }

    private let url: String
    private let resolver: MediaURLResolver
    private let rendition: String
    private var playlist: HLSPlaylist
    private var sawMasterTag = false

    private var pendingDuration: Double?
    private var pendingRange: WrittenRange?
    private var pendingVariant: (attributes: HLSAttributeList, line: Int, text: String)?
    private var segmentRangeEnds: [String: Int64] = [:]
    private var partRangeEnds: [String: Int64] = [:]
    private var mapsSeen: Set<String> = []
    private var segmentIndex = 0
    private var segmentStart = 0.0
    private var partOffset = 0.0
    private var keyNote: String?

    /// A reader for the playlist at `url` whose segments belong to `rendition`.
    init(url: String, rendition: String) {
        self.url = url
        self.resolver = MediaURLResolver(base: url)
        self.rendition = rendition
        self.playlist = HLSPlaylist(url: url, kind: .media)
    }

    /// Reads `text` into a playlist.
    mutating func parse(_ text: String) throws(MediaParseError) -> HLSPlaylist {
        let lines = text.split(omittingEmptySubsequences: false) { $0 == "\n" || $0 == "\r\n" || $0 == "\r" }
        var first = lines.first.map(String.init) ?? ""
        if first.hasPrefix("\u{FEFF}") { first.removeFirst() }
        guard first.hasPrefix("#EXTM3U") else { throw .notAPlaylist(url: url, firstLine: first) }
        for (index, raw) in lines.enumerated().dropFirst() {
            let line = String(raw).trimmingSpaces()
            if line.isEmpty { continue }
            if line.hasPrefix("#EXT") {
                try tag(line, number: index + 1)
            } else if !line.hasPrefix("#") {
                try uri(line, number: index + 1)
            }
        }
        if let pending = pendingVariant {
            throw .invalidPlaylistLine(
                url: url, line: pending.line, text: pending.text, expected: "a URI line after EXT-X-STREAM-INF")
        }
        playlist.kind = sawMasterTag ? .master : .media
        return playlist
    }

    private mutating func tag(_ line: String, number: Int) throws(MediaParseError) {
        let name: Substring
        let value: Substring
        if let colon = line.firstIndex(of: ":") {
            name = line[..<colon]
            value = line[line.index(after: colon)...]
        } else {
            name = Substring(line)
            value = ""
        }
        let playlistURL = url
        let fail = { (expected: String) -> MediaParseError in
            .invalidPlaylistLine(url: playlistURL, line: number, text: line, expected: expected)
        }
        func attributes() throws(MediaParseError) -> HLSAttributeList {
            guard let list = HLSAttributeList(value) else {
                throw fail("an attribute list (NAME=value,NAME=\"quoted, value\")")
            }
            return list
        }
        switch name {
        case "#EXTINF":
            let durationText = value.split(separator: ",", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
            guard let duration = Double(durationText.trimmingSpaces()), duration.isFinite, duration >= 0 else {
                throw fail("a duration in seconds, as in #EXTINF:6.006,")
            }
            pendingDuration = duration
        case "#EXT-X-TARGETDURATION":
            guard let d = Double(value.trimmingSpaces()), d.isFinite, d >= 0 else {
                throw fail("a duration in seconds")
            }
            playlist.targetDuration = d
        case "#EXT-X-MEDIA-SEQUENCE":
            guard let n = Int(value.trimmingSpaces()), n >= 0, n <= Int.max / 2 else {
                throw fail("a whole sequence number from 0 to 2^62")
            }
            playlist.mediaSequence = n
        case "#EXT-X-ENDLIST":
            playlist.endList = true
        case "#EXT-X-PLAYLIST-TYPE":
            playlist.playlistType = HLSPlaylist.PlaylistType(rawValue: value.trimmingSpaces())
        case "#EXT-X-BYTERANGE":
            guard let range = Self.writtenRange(Substring(value.trimmingSpaces()), line: number) else {
                throw fail("length[@offset] in bytes")
            }
            pendingRange = range
        case "#EXT-X-KEY":
            let list = try attributes()
            let method = list["METHOD"] ?? "NONE"
            keyNote = method == "NONE" ? nil : "key \(method)"
        case "#EXT-X-MAP":
            try map(try attributes(), fail: fail)
        case "#EXT-X-PART":
            try part(try attributes(), line: number, fail: fail)
        case "#EXT-X-STREAM-INF":
            sawMasterTag = true
            let list = try attributes()
            guard list.integer("BANDWIDTH") != nil else { throw fail("a BANDWIDTH attribute (bits per second)") }
            pendingVariant = (list, number, line)
        case "#EXT-X-I-FRAME-STREAM-INF":
            sawMasterTag = true
            let list = try attributes()
            guard let uri = list["URI"] else { throw fail("a URI attribute") }
            guard let variant = variant(list, uri: uri, iFrames: true) else {
                throw fail("a BANDWIDTH attribute (bits per second)")
            }
            playlist.variants.append(variant)
        case "#EXT-X-MEDIA":
            sawMasterTag = true
            let list = try attributes()
            guard let typeName = list["TYPE"], let groupID = list["GROUP-ID"], let name = list["NAME"] else {
                throw fail("TYPE, GROUP-ID and NAME attributes")
            }
            guard let type = HLSRendition.MediaType(rawValue: typeName) else { return }
            playlist.renditions.append(
                HLSRendition(
                    type: type, groupID: groupID, name: name, language: list["LANGUAGE"],
                    uri: list["URI"].map { resolver.resolve($0) }, isDefault: list["DEFAULT"] == "YES"))
        default:
            return
        }
    }

    private mutating func uri(_ line: String, number: Int) throws(MediaParseError) {
        if let pending = pendingVariant {
            pendingVariant = nil
            if let variant = variant(pending.attributes, uri: line, iFrames: false) {
                playlist.variants.append(variant)
            }
            return
        }
        guard let duration = pendingDuration else {
            throw .invalidPlaylistLine(
                url: url, line: number, text: line, expected: "an #EXTINF (or #EXT-X-STREAM-INF) line before this URI")
        }
        let resolved = resolver.resolve(line)
        var byteRange: Range<Int64>?
        if let written = pendingRange {
            guard let offset = written.offset ?? segmentRangeEnds[resolved] else {
                throw .byteRangeWithoutOffset(url: url, line: written.line, value: written.value, uri: line)
            }
            guard offset <= Int64.max - written.length else {
                throw .invalidPlaylistLine(
                    url: url, line: written.line, text: written.value, expected: "a byte range that ends before 2^63")
            }
            byteRange = offset..<(offset + written.length)
            segmentRangeEnds[resolved] = offset + written.length
        }
        let span = MediaSpan(
            kind: .segment, format: "hls", rendition: rendition, sequence: playlist.mediaSequence + segmentIndex,
            start: segmentStart, end: segmentStart + duration, note: keyNote)
        playlist.segments.append(MediaSegmentRef(url: resolved, byteRange: byteRange, span: span))
        segmentIndex += 1
        segmentStart += duration
        partOffset = 0
        pendingDuration = nil
        pendingRange = nil
    }

    private mutating func map(_ list: HLSAttributeList, fail: (String) -> MediaParseError) throws(MediaParseError) {
        guard let uri = list["URI"] else { throw fail("a URI attribute") }
        let resolved = resolver.resolve(uri)
        var byteRange: Range<Int64>?
        if let written = list["BYTERANGE"] {
            guard let range = Self.writtenRange(Substring(written), line: 0) else {
                throw fail("BYTERANGE=\"length[@offset]\" in bytes")
            }
            let offset = range.offset ?? 0
            byteRange = offset..<(offset + range.length)
        }
        let key = resolved + " " + (byteRange.map { "\($0.lowerBound)-\($0.upperBound)" } ?? "")
        guard mapsSeen.insert(key).inserted else { return }
        let span = MediaSpan(kind: .initialization, format: "hls", rendition: rendition, note: keyNote)
        playlist.segments.append(MediaSegmentRef(url: resolved, byteRange: byteRange, span: span))
    }

    private mutating func part(
        _ list: HLSAttributeList, line: Int, fail: (String) -> MediaParseError
    ) throws(MediaParseError) {
        guard let uri = list["URI"] else { throw fail("a URI attribute") }
        guard let duration = list.decimal("DURATION"), duration >= 0 else {
            throw fail("a DURATION attribute in seconds")
        }
        let resolved = resolver.resolve(uri)
        var byteRange: Range<Int64>?
        if let written = list["BYTERANGE"] {
            guard let range = Self.writtenRange(Substring(written), line: line) else {
                throw fail("BYTERANGE=\"length[@offset]\" in bytes")
            }
            guard let offset = range.offset ?? partRangeEnds[resolved] else {
                throw .byteRangeWithoutOffset(url: url, line: line, value: written, uri: uri)
            }
            guard offset <= Int64.max - range.length else { throw fail("a byte range that ends before 2^63") }
            byteRange = offset..<(offset + range.length)
            partRangeEnds[resolved] = offset + range.length
        }
        let notes = [list["INDEPENDENT"] == "YES" ? "independent" : nil, keyNote].compactMap { $0 }
        let start = segmentStart + partOffset
        let span = MediaSpan(
            kind: .part, format: "hls", rendition: rendition, sequence: playlist.mediaSequence + segmentIndex,
            start: start, end: start + duration, note: notes.isEmpty ? nil : notes.joined(separator: ", "))
        playlist.segments.append(MediaSegmentRef(url: resolved, byteRange: byteRange, span: span))
        partOffset += duration
    }

    /// A variant from its attributes, nil without `BANDWIDTH`.
    private func variant(_ list: HLSAttributeList, uri: String, iFrames: Bool) -> HLSVariant? {
        guard let bandwidth = list.integer("BANDWIDTH") else { return nil }
        let resolution = list.resolution("RESOLUTION").map { HLSVariant.Resolution(width: $0.width, height: $0.height) }
        let codecs = list["CODECS"]
        let audioOnly = resolution == nil && codecs.map(RenditionName.isAudioOnly) == true
        var name =
            RenditionName.make(
                width: resolution?.width, height: resolution?.height, bandwidth: bandwidth,
                kind: audioOnly ? "audio" : nil)
            ?? MediaURL.lastPathComponent(uri)
        if iFrames { name += " I-frames" }
        return HLSVariant(
            uri: resolver.resolve(uri), bandwidth: bandwidth, averageBandwidth: list.integer("AVERAGE-BANDWIDTH"),
            resolution: resolution, codecs: codecs, frameRate: list.decimal("FRAME-RATE"), isIFrameOnly: iFrames,
            audioGroup: list["AUDIO"], videoGroup: list["VIDEO"], name: name)
    }

    /// `length[@offset]`, both decimal; nil otherwise.
    private static func writtenRange(_ text: Substring, line: Int) -> WrittenRange? {
        let parts = text.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 1 || parts.count == 2 else { return nil }
        guard let length = Int64(parts[0]), length >= 0 else { return nil }
        var offset: Int64?
        if parts.count == 2 {
            guard let o = Int64(parts[1]), o >= 0, o <= Int64.max - length else { return nil }
            offset = o
        }
        return WrittenRange(length: length, offset: offset, value: String(text), line: line)
    }
}

extension StringProtocol {
    /// The text without leading and trailing spaces and tabs.
    fileprivate func trimmingSpaces() -> String {
        var s = Substring(self)
        while let f = s.first, f == " " || f == "\t" { s = s.dropFirst() }
        while let l = s.last, l == " " || l == "\t" { s = s.dropLast() }
        return String(s)
    }
}
