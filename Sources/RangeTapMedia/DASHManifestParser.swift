import Foundation
import RangeTapCore

/// The walk behind ``DASHManifest/parse(_:url:)``: periods, adaptation sets and
/// representations, each representation's segment addressing expanded into references.
struct DASHManifestParser {
    /// Where a representation sits: its names, URL base and period.
    private struct Place {
        var id: String
        var bandwidth: Int?
        var name: String
        var base: String
        var resolver: MediaURLResolver
        var periodStart: Double
        var periodEnd: Double?
        var line: Int
    }

    /// One kind of segment addressing with the attributes and children it inherits from the
    /// period and adaptation set levels.
    private struct Addressing {
        var element: String
        var line: Int
        var attributes: [String: String] = [:]
        var timeline: MiniXML.Element?
        var initialization: MiniXML.Element?
        var segmentURLs: [MiniXML.Element] = []
    }

    /// A segment's time and duration in timescale units, as the MPD counts them.
    private struct SegmentTime {
        var time: Int64
        var duration: Int64
    }

    private let url: String
    private var manifest: DASHManifest
    private var total = 0

    /// A reader for the MPD fetched from `url`.
    init(url: String) {
        self.url = url
        self.manifest = DASHManifest(url: url)
    }

    /// Reads the document whose root is `root`.
    mutating func parse(_ root: MiniXML.Element) throws(MediaParseError) -> DASHManifest {
        guard root.name == "MPD" else {
            throw invalid(root, "is not an MPD: the document's root element must be <MPD>")
        }
        manifest.isDynamic = root["type"] == "dynamic"
        manifest.mediaPresentationDuration = try duration(root, "mediaPresentationDuration")
        let mpdBase = Self.base(of: root, against: url)
        let periods = root.children("Period")
        var previousEnd: Double? = 0
        for (index, period) in periods.enumerated() {
            guard let start = try duration(period, "start") ?? previousEnd else {
                throw invalid(
                    period, "has no @start and follows a period whose duration is unknown; give the period a start")
            }
            var end: Double?
            if let length = try duration(period, "duration") {
                end = start + length
            } else if index + 1 < periods.count {
                end = try duration(periods[index + 1], "start")
            } else if let whole = manifest.mediaPresentationDuration {
                end = whole
            }
            previousEnd = end
            let periodBase = Self.base(of: period, against: mpdBase)
            for set in period.children("AdaptationSet") {
                let setBase = Self.base(of: set, against: periodBase)
                for representation in set.children("Representation") {
                    try read(representation, set: set, period: period, base: setBase, start: start, end: end)
                }
            }
        }
        return manifest
    }

    private mutating func read(
        _ rep: MiniXML.Element, set: MiniXML.Element, period: MiniXML.Element, base: String, start: Double, end: Double?
    ) throws(MediaParseError) {
        let id = rep["id"] ?? ""
        let bandwidth = try integer(rep, "bandwidth").map { Int(clamping: $0) }
        var width = try integer(rep, "width")
        if width == nil { width = try integer(set, "width") }
        var height = try integer(rep, "height")
        if height == nil { height = try integer(set, "height") }
        let mimeType = rep["mimeType"] ?? set["mimeType"]
        let contentType =
            rep["contentType"] ?? set["contentType"]
            ?? mimeType.flatMap { $0.split(separator: "/").first.map(String.init) }
        let name =
            RenditionName.make(
                width: width.map { Int(clamping: $0) }, height: height.map { Int(clamping: $0) }, bandwidth: bandwidth,
                kind: contentType)
            ?? "representation \(id)"
        manifest.representations.append(
            DASHRepresentation(
                id: id, bandwidth: bandwidth, width: width.map { Int(clamping: $0) },
                height: height.map { Int(clamping: $0) },
                mimeType: mimeType, contentType: contentType, codecs: rep["codecs"] ?? set["codecs"], name: name))
        let representationBase = Self.base(of: rep, against: base)
        let place = Place(
            id: id, bandwidth: bandwidth, name: name, base: representationBase,
            resolver: MediaURLResolver(base: representationBase), periodStart: start, periodEnd: end, line: rep.line)
        let levels = [period, set, rep]
        for level in levels.reversed() {
            if level.child("SegmentTemplate") != nil {
                return try template(Self.addressing("SegmentTemplate", levels), place)
            }
            if level.child("SegmentList") != nil {
                return try list(Self.addressing("SegmentList", levels), place)
            }
            if level.child("SegmentBase") != nil {
                return try segmentBase(Self.addressing("SegmentBase", levels), place)
            }
        }
        if rep.child("BaseURL") != nil {
            try append(
                MediaSegmentRef(
                    url: place.base,
                    span: MediaSpan(kind: .segment, format: "dash", rendition: name, start: start, end: end)), place)
        }
    }

    // MARK: Addressing kinds

    private mutating func template(_ info: Addressing, _ place: Place) throws(MediaParseError) {
        let timescale = try timescale(info)
        let offset = try integer(info, "presentationTimeOffset") ?? 0
        let startNumber = try startNumber(info)
        let values = DASHURLTemplate.Values(representationID: place.id, bandwidth: place.bandwidth)
        if let written = info.attributes["initialization"] {
            let path = try expand(written, "initialization", values, info)
            try append(
                MediaSegmentRef(
                    url: place.resolver.resolve(path),
                    span: MediaSpan(kind: .initialization, format: "dash", rendition: place.name)), place)
        } else if let initialization = info.initialization {
            try initializationRef(initialization, place)
        }
        guard let media = info.attributes["media"] else { return }
        let mediaTemplate = try urlTemplate(media, "media", info)
        guard let times = try segmentTimes(info, timescale: timescale, offset: offset, place: place, count: nil) else {
            var v = values
            v.number = startNumber
            v.time = offset
            let path = try expand(media, "media", v, info)
            let span = MediaSpan(
                kind: .segment, format: "dash", rendition: place.name, sequence: startNumber, start: place.periodStart,
                end: place.periodEnd)
            return try append(MediaSegmentRef(url: place.resolver.resolve(path), span: span), place)
        }
        for (index, segment) in times.enumerated() {
            var v = values
            v.number = startNumber + index
            v.time = segment.time
            let path = try expand(mediaTemplate, media, "media", v, info)
            try append(
                MediaSegmentRef(
                    url: place.resolver.resolve(path),
                    span: span(segment, number: startNumber + index, timescale: timescale, offset: offset, place)),
                place)
        }
    }

    private mutating func list(_ info: Addressing, _ place: Place) throws(MediaParseError) {
        let timescale = try timescale(info)
        let offset = try integer(info, "presentationTimeOffset") ?? 0
        let startNumber = try startNumber(info)
        if let initialization = info.initialization { try initializationRef(initialization, place) }
        guard info.segmentURLs.count <= DASHManifest.segmentLimit else {
            throw .tooManySegments(url: url, line: info.line, rendition: place.name, limit: DASHManifest.segmentLimit)
        }
        let times = try segmentTimes(
            info, timescale: timescale, offset: offset, place: place, count: info.segmentURLs.count)
        for (index, segmentURL) in info.segmentURLs.enumerated() {
            let target = segmentURL["media"].map { place.resolver.resolve($0) } ?? place.base
            let range = try byteRange(segmentURL, "mediaRange")
            var span = MediaSpan(kind: .segment, format: "dash", rendition: place.name, sequence: startNumber + index)
            if let times, index < times.count {
                span = self.span(times[index], number: startNumber + index, timescale: timescale, offset: offset, place)
            }
            try append(MediaSegmentRef(url: target, byteRange: range, span: span), place)
        }
    }

    private mutating func segmentBase(_ info: Addressing, _ place: Place) throws(MediaParseError) {
        let timescale = try timescale(info)
        let offset = try integer(info, "presentationTimeOffset") ?? 0
        var initializationRange: Range<Int64>?
        if let initialization = info.initialization {
            initializationRange = try byteRange(initialization, "range")
            try initializationRef(initialization, place)
        }
        guard let written = info.attributes["indexRange"] else { return }
        guard let indexRange = Self.inclusiveRange(written) else {
            throw .invalidManifest(
                url: url, line: info.line, element: info.element,
                problem: "@indexRange \"\(written)\" is not first-last (bytes, both included)")
        }
        try append(
            MediaSegmentRef(
                url: place.base, byteRange: indexRange,
                span: MediaSpan(kind: .index, format: "dash", rendition: place.name)), place)
        manifest.indexed.append(
            DASHIndexedRepresentation(
                url: place.base, indexRange: indexRange, initializationRange: initializationRange,
                rendition: place.name,
                timescale: timescale, presentationTimeOffset: offset, periodStart: place.periodStart))
    }

    private mutating func initializationRef(_ element: MiniXML.Element, _ place: Place) throws(MediaParseError) {
        let target = element["sourceURL"].map { place.resolver.resolve($0) } ?? place.base
        let range = try byteRange(element, "range")
        try append(
            MediaSegmentRef(
                url: target, byteRange: range,
                span: MediaSpan(kind: .initialization, format: "dash", rendition: place.name)), place)
    }

    // MARK: Times

    /// The segments' times from a `SegmentTimeline`, or from `@duration` (`count` segments, or
    /// as many as fill the period); nil when the addressing gives neither.
    private func segmentTimes(
        _ info: Addressing, timescale: Int64, offset: Int64, place: Place, count: Int?
    ) throws(MediaParseError) -> [SegmentTime]? {
        if let timeline = info.timeline {
            return try expand(timeline, timescale: timescale, offset: offset, place: place)
        }
        guard let duration = try integer(info, "duration") else { return nil }
        guard duration > 0 else {
            throw .invalidManifest(
                url: url, line: info.line, element: info.element, problem: "@duration must be above 0")
        }
        let n: Int
        if let count {
            n = count
        } else {
            guard let end = place.periodEnd else {
                if manifest.isDynamic { return [] }
                throw .invalidManifest(
                    url: url, line: info.line, element: info.element,
                    problem:
                        "has @duration but neither Period@duration nor MPD@mediaPresentationDuration says how long the period is, so its segments cannot be counted"
                )
            }
            let exact = (end - place.periodStart) * Double(timescale) / Double(duration)
            let rounded = (exact - 1e-9).rounded(.up)
            guard rounded <= Double(DASHManifest.segmentLimit) else {
                throw .tooManySegments(
                    url: url, line: info.line, rendition: place.name, limit: DASHManifest.segmentLimit)
            }
            n = max(0, Int(rounded))
        }
        var times: [SegmentTime] = []
        times.reserveCapacity(n)
        for index in 0..<n {
            guard let time = Self.multiplyAdd(Int64(index), duration, offset) else {
                throw .invalidManifest(
                    url: url, line: info.line, element: info.element,
                    problem: "@duration \(duration) overflows 64-bit time at segment \(index)")
            }
            times.append(SegmentTime(time: time, duration: duration))
        }
        return times
    }

    /// The segments a `SegmentTimeline` lists, `S@r="-1"` repeated up to the next `S@t` or
    /// the period's end.
    private func expand(
        _ timeline: MiniXML.Element, timescale: Int64, offset: Int64, place: Place
    ) throws(MediaParseError) -> [SegmentTime] {
        var times: [SegmentTime] = []
        var next: Int64 = 0
        let entries = timeline.children("S")
        for (index, entry) in entries.enumerated() {
            let start = try integer(entry, "t") ?? next
            guard let duration = try integer(entry, "d"), duration > 0 else {
                throw invalid(entry, "needs @d, a duration above 0")
            }
            let repeats = try integer(entry, "r") ?? 0
            var count: Double
            if repeats >= 0 {
                count = Double(repeats) + 1
            } else {
                var limit: Double?
                if index + 1 < entries.count, let following = try integer(entries[index + 1], "t") {
                    limit = Double(following)
                } else if let end = place.periodEnd {
                    limit = Double(offset) + (end - place.periodStart) * Double(timescale)
                }
                if let limit {
                    count = max(0, ((limit - Double(start)) / Double(duration) - 1e-9).rounded(.up))
                } else {
                    count = 1
                }
            }
            guard Double(times.count) + count <= Double(DASHManifest.segmentLimit) else {
                throw .tooManySegments(
                    url: url, line: entry.line, rendition: place.name, limit: DASHManifest.segmentLimit)
            }
            for k in 0..<Int64(count) {
                guard let time = Self.multiplyAdd(k, duration, start) else {
                    throw invalid(entry, "overflows 64-bit time")
                }
                times.append(SegmentTime(time: time, duration: duration))
            }
            guard let after = Self.multiplyAdd(Int64(count), duration, start) else {
                throw invalid(entry, "overflows 64-bit time")
            }
            next = after
        }
        return times
    }

    private func span(_ segment: SegmentTime, number: Int, timescale: Int64, offset: Int64, _ place: Place) -> MediaSpan
    {
        let start = place.periodStart + (Double(segment.time) - Double(offset)) / Double(timescale)
        return MediaSpan(
            kind: .segment, format: "dash", rendition: place.name, sequence: number,
            start: start, end: start + Double(segment.duration) / Double(timescale))
    }

    /// `a * b + c`, nil on overflow.
    private static func multiplyAdd(_ a: Int64, _ b: Int64, _ c: Int64) -> Int64? {
        let (product, overflow) = a.multipliedReportingOverflow(by: b)
        guard !overflow else { return nil }
        let (sum, overflow2) = product.addingReportingOverflow(c)
        return overflow2 ? nil : sum
    }

    // MARK: Collecting

    private mutating func append(_ ref: MediaSegmentRef, _ place: Place) throws(MediaParseError) {
        total += 1
        guard total <= DASHManifest.totalSegmentLimit else {
            throw .tooManySegments(
                url: url, line: place.line, rendition: place.name, limit: DASHManifest.totalSegmentLimit)
        }
        manifest.segments.append(ref)
    }

    /// The addressing element named `name` merged over `levels` (period, adaptation set,
    /// representation): attributes of the deeper level win, children come from the deepest
    /// level that has them.
    private static func addressing(_ name: String, _ levels: [MiniXML.Element]) -> Addressing {
        var info = Addressing(element: name, line: 0)
        for level in levels {
            guard let element = level.child(name) else { continue }
            info.line = element.line
            info.attributes.merge(element.attributes) { _, deeper in deeper }
            if let timeline = element.child("SegmentTimeline") { info.timeline = timeline }
            if let initialization = element.child("Initialization") { info.initialization = initialization }
            let urls = element.children("SegmentURL")
            if !urls.isEmpty { info.segmentURLs = urls }
        }
        return info
    }

    /// `element`'s `BaseURL` resolved against `base`, or `base` when it has none.
    private static func base(of element: MiniXML.Element, against base: String) -> String {
        guard let text = element.child("BaseURL")?.text.trimmingCharacters(in: .whitespacesAndNewlines), !text.isEmpty
        else { return base }
        return MediaURL.resolve(text, against: base)
    }

    // MARK: Attributes

    private func invalid(_ element: MiniXML.Element, _ problem: String) -> MediaParseError {
        .invalidManifest(url: url, line: element.line, element: element.name, problem: problem)
    }

    /// The template `written` as attribute `attribute` of the addressing `info`.
    private func urlTemplate(
        _ written: String, _ attribute: String, _ info: Addressing
    ) throws(MediaParseError) -> DASHURLTemplate {
        do {
            return try DASHURLTemplate(written)
        } catch {
            throw .invalidManifest(
                url: url, line: info.line, element: info.element, problem: "@\(attribute) \"\(written)\" \(error.text)")
        }
    }

    private func expand(
        _ written: String, _ attribute: String, _ values: DASHURLTemplate.Values, _ info: Addressing
    ) throws(MediaParseError) -> String {
        try expand(try urlTemplate(written, attribute, info), written, attribute, values, info)
    }

    private func expand(
        _ template: DASHURLTemplate, _ written: String, _ attribute: String, _ values: DASHURLTemplate.Values,
        _ info: Addressing
    ) throws(MediaParseError) -> String {
        do {
            return try template.expand(values)
        } catch {
            throw .invalidManifest(
                url: url, line: info.line, element: info.element, problem: "@\(attribute) \"\(written)\" \(error.text)")
        }
    }

    private func startNumber(_ info: Addressing) throws(MediaParseError) -> Int {
        let value = try integer(info, "startNumber") ?? 1
        guard value >= 0, value <= Int64(Int.max / 2) else {
            throw .invalidManifest(
                url: url, line: info.line, element: info.element, problem: "@startNumber \(value) is outside 0 to 2^62")
        }
        return Int(value)
    }

    private func timescale(_ info: Addressing) throws(MediaParseError) -> Int64 {
        let value = try integer(info, "timescale") ?? 1
        guard value > 0 else {
            throw .invalidManifest(
                url: url, line: info.line, element: info.element, problem: "@timescale must be above 0")
        }
        return value
    }

    private func integer(_ element: MiniXML.Element, _ name: String) throws(MediaParseError) -> Int64? {
        guard let text = element[name] else { return nil }
        guard let value = Int64(text.trimmingCharacters(in: .whitespaces)) else {
            throw invalid(element, "@\(name) \"\(text)\" is not a whole number")
        }
        return value
    }

    private func integer(_ info: Addressing, _ name: String) throws(MediaParseError) -> Int64? {
        guard let text = info.attributes[name] else { return nil }
        guard let value = Int64(text.trimmingCharacters(in: .whitespaces)) else {
            throw .invalidManifest(
                url: url, line: info.line, element: info.element, problem: "@\(name) \"\(text)\" is not a whole number")
        }
        return value
    }

    private func duration(_ element: MiniXML.Element, _ name: String) throws(MediaParseError) -> Double? {
        guard let text = element[name] else { return nil }
        guard let seconds = ISO8601Duration.seconds(text) else {
            throw invalid(element, "@\(name) \"\(text)\" is not an ISO 8601 duration such as PT1H2M3.5S")
        }
        return seconds
    }

    private func byteRange(_ element: MiniXML.Element, _ name: String) throws(MediaParseError) -> Range<Int64>? {
        guard let text = element[name] else { return nil }
        guard let range = Self.inclusiveRange(text) else {
            throw invalid(element, "@\(name) \"\(text)\" is not first-last (bytes, both included)")
        }
        return range
    }

    /// `a-b`, both included, as `a..<b+1`.
    static func inclusiveRange(_ text: String) -> Range<Int64>? {
        let parts = text.trimmingCharacters(in: .whitespaces).split(separator: "-", omittingEmptySubsequences: false)
        guard parts.count == 2, let first = Int64(parts[0]), let last = Int64(parts[1]), first >= 0, last >= first,
            last < Int64.max
        else { return nil }
        return first..<(last + 1)
    }
}
