import Foundation
import RangeTapCore
@testable import RangeTapMedia
import RangeTapTestSupport
import Testing

@Suite("DASH manifests")
struct DASHManifestTests {
    // MARK: Hand-written

    @Test(
        "SegmentTemplate with SegmentTimeline: r=-1 to the period end, identifiers and widths, BaseURL at every level, prefixes"
    )
    func templateTimeline() throws {
        let text = """
            <?xml version="1.0" encoding="UTF-8"?>
            <!-- a comment with <tags> inside -->
            <mpd:MPD xmlns:mpd="urn:mpeg:dash:schema:mpd:2011" type='static' mediaPresentationDuration="PT1M">
              <mpd:BaseURL>https://cdn.test/show/</mpd:BaseURL>
              <mpd:Period id="p1" start="PT10S" duration="PT8S">
                <mpd:BaseURL>p1/</mpd:BaseURL>
                <mpd:AdaptationSet contentType="video" mimeType="video/mp4" width="1280" height="720">
                  <mpd:BaseURL>../video/</mpd:BaseURL>
                  <mpd:SegmentTemplate timescale="1000" presentationTimeOffset="5000" startNumber="3"
                      initialization="init-$RepresentationID$.mp4"
                      media="$RepresentationID$/$Bandwidth$/seg-$Number%05d$-t$Time$.m4s?a=1&amp;b=$$">
                    <mpd:SegmentTimeline>
                      <mpd:S t="5000" d="2000" r="1"/>
                      <mpd:S d="1000"/>
                      <mpd:S d="1500" r="-1"/>
                    </mpd:SegmentTimeline>
                  </mpd:SegmentTemplate>
                  <mpd:Representation id="hd" bandwidth="2100000" codecs="avc1.64001f"><![CDATA[ignored <text>]]></mpd:Representation>
                </mpd:AdaptationSet>
              </mpd:Period>
            </mpd:MPD>
            """
        let manifest = try DASHManifest.parse(text, url: "https://origin.test/x/manifest.mpd")
        #expect(!manifest.isDynamic)
        #expect(manifest.mediaPresentationDuration == 60)
        #expect(
            manifest.representations == [
                DASHRepresentation(
                    id: "hd", bandwidth: 2_100_000, width: 1280, height: 720, mimeType: "video/mp4",
                    contentType: "video", codecs: "avc1.64001f", name: "1280x720 2.1 Mb/s")
            ])
        let base = "https://cdn.test/show/video/"
        #expect(
            manifest.segments.first
                == MediaSegmentRef(
                    url: base + "init-hd.mp4",
                    span: MediaSpan(kind: .initialization, format: "dash", rendition: "1280x720 2.1 Mb/s")))
        let media = manifest.segments.dropFirst()
        // 2000 twice from t=5000, 1000 once, then 1500 repeated up to the period's end at t=13000: 10000, 11500.
        #expect(
            media.map(\.url) == [
                base + "hd/2100000/seg-00003-t5000.m4s?a=1&b=$",
                base + "hd/2100000/seg-00004-t7000.m4s?a=1&b=$",
                base + "hd/2100000/seg-00005-t9000.m4s?a=1&b=$",
                base + "hd/2100000/seg-00006-t10000.m4s?a=1&b=$",
                base + "hd/2100000/seg-00007-t11500.m4s?a=1&b=$",
            ])
        #expect(media.map(\.span.sequence) == [3, 4, 5, 6, 7])
        #expect(media.map(\.span.start) == [10, 12, 14, 15, 16.5])
        #expect(media.map(\.span.end) == [12, 14, 15, 16.5, 18])
        #expect(
            media.allSatisfy {
                $0.span.kind == .segment && $0.span.format == "dash" && $0.span.rendition == "1280x720 2.1 Mb/s"
            })
        #expect(manifest.indexed.isEmpty)
    }

    @Test("SegmentTemplate with @duration: counted up to mediaPresentationDuration, inherited from the adaptation set")
    func templateDuration() throws {
        let text = """
            <MPD type="static" mediaPresentationDuration="PT0H0M9.5S">
              <Period>
                <AdaptationSet mimeType="audio/mp4" codecs="mp4a.40.2">
                  <SegmentTemplate timescale="48000" duration="96000" startNumber="0" media="a/$RepresentationID$_$Number$.m4a" initialization="a/$RepresentationID$_init.m4a"/>
                  <Representation id="en" bandwidth="128000"/>
                  <Representation id="fr" bandwidth="64000"><SegmentTemplate startNumber="10"/></Representation>
                </AdaptationSet>
              </Period>
            </MPD>
            """
        let manifest = try DASHManifest.parse(text, url: "https://origin.test/live/stream.mpd")
        #expect(manifest.representations.map(\.name) == ["audio 128 kb/s", "audio 64 kb/s"])
        #expect(manifest.representations.map(\.contentType) == ["audio", "audio"])
        let en = manifest.segments.filter { $0.span.rendition == "audio 128 kb/s" }
        #expect(en.map(\.url) == ["init", "0", "1", "2", "3", "4"].map { "https://origin.test/live/a/en_\($0).m4a" })
        #expect(en.dropFirst().map(\.span.start) == [0, 2, 4, 6, 8])
        #expect(en.last?.span.end == 10)
        let fr = manifest.segments.filter { $0.span.rendition == "audio 64 kb/s" }
        #expect(fr.dropFirst().map(\.span.sequence) == [10, 11, 12, 13, 14])
        #expect(fr.last?.url == "https://origin.test/live/a/fr_14.m4a")
    }

    @Test("SegmentList with mediaRange (inclusive) and Initialization sourceURL and range; entities and quotes")
    func segmentList() throws {
        let text = """
            <?xml version='1.0'?>
            <MPD mediaPresentationDuration="PT6S">
              <BaseURL>https://cdn.test/a&amp;b/</BaseURL>
              <Period duration="PT6S">
                <AdaptationSet contentType="video">
                  <Representation id="v" bandwidth="500000" width="640" height="360">
                    <BaseURL>movie&#32;one.mp4</BaseURL>
                    <SegmentList timescale="10" duration="20">
                      <Initialization sourceURL="init.mp4" range="0-99"/>
                      <SegmentURL mediaRange="100-199"/>
                      <SegmentURL mediaRange='200-349'/>
                      <SegmentURL media="last&#x2e;mp4"/>
                    </SegmentList>
                  </Representation>
                </AdaptationSet>
              </Period>
            </MPD>
            """
        let manifest = try DASHManifest.parse(text, url: "https://origin.test/m.mpd")
        let name = "640x360 500 kb/s"
        let file = "https://cdn.test/a&b/movie%20one.mp4"
        #expect(
            manifest.segments == [
                MediaSegmentRef(
                    url: "https://cdn.test/a&b/init.mp4", byteRange: 0..<100,
                    span: MediaSpan(kind: .initialization, format: "dash", rendition: name)),
                MediaSegmentRef(
                    url: file, byteRange: 100..<200,
                    span: MediaSpan(kind: .segment, format: "dash", rendition: name, sequence: 1, start: 0, end: 2)),
                MediaSegmentRef(
                    url: file, byteRange: 200..<350,
                    span: MediaSpan(kind: .segment, format: "dash", rendition: name, sequence: 2, start: 2, end: 4)),
                MediaSegmentRef(
                    url: "https://cdn.test/a&b/last.mp4",
                    span: MediaSpan(kind: .segment, format: "dash", rendition: name, sequence: 3, start: 4, end: 6)),
            ])
    }

    @Test("SegmentBase: listed as indexed, with its initialization and index references")
    func segmentBase() throws {
        let text = """
            <MPD mediaPresentationDuration="PT1H2M3.5S">
              <Period start="PT30S">
                <AdaptationSet mimeType="video/mp4">
                  <Representation id="1" bandwidth="3000000" width="1920" height="1080">
                    <BaseURL>video/1080.mp4</BaseURL>
                    <SegmentBase indexRange="1000-1499" timescale="90000" presentationTimeOffset="900">
                      <Initialization range="0-999"/>
                    </SegmentBase>
                  </Representation>
                </AdaptationSet>
              </Period>
            </MPD>
            """
        let manifest = try DASHManifest.parse(text, url: "https://origin.test/od/manifest.mpd")
        #expect(manifest.mediaPresentationDuration == 3723.5)
        let url = "https://origin.test/od/video/1080.mp4"
        #expect(
            manifest.indexed == [
                DASHIndexedRepresentation(
                    url: url, indexRange: 1000..<1500, initializationRange: 0..<1000, rendition: "1920x1080 3.0 Mb/s",
                    timescale: 90000, presentationTimeOffset: 900, periodStart: 30)
            ])
        #expect(
            manifest.segments == [
                MediaSegmentRef(
                    url: url, byteRange: 0..<1000,
                    span: MediaSpan(kind: .initialization, format: "dash", rendition: "1920x1080 3.0 Mb/s")),
                MediaSegmentRef(
                    url: url, byteRange: 1000..<1500,
                    span: MediaSpan(kind: .index, format: "dash", rendition: "1920x1080 3.0 Mb/s")),
            ])
    }

    @Test("periods: a period without @start follows the one before; Period@start is added to segment times")
    func periods() throws {
        let text = """
            <MPD type="static" mediaPresentationDuration="PT10S">
              <Period id="a" duration="PT4S">
                <AdaptationSet mimeType="video/mp4"><SegmentTemplate timescale="1" duration="2" media="a-$Number$.m4s"/>
                  <Representation id="v" bandwidth="1000000" width="640" height="360"/></AdaptationSet>
              </Period>
              <Period id="b">
                <AdaptationSet mimeType="video/mp4"><SegmentTemplate timescale="1" duration="2" media="b-$Number$.m4s"/>
                  <Representation id="v" bandwidth="1000000" width="640" height="360"/></AdaptationSet>
              </Period>
            </MPD>
            """
        let manifest = try DASHManifest.parse(text, url: "https://origin.test/m.mpd")
        #expect(manifest.representations.map(\.name) == ["640x360 1.0 Mb/s", "640x360 1.0 Mb/s"])
        #expect(
            manifest.segments.map(\.url) == ["a-1", "a-2", "b-1", "b-2", "b-3"].map { "https://origin.test/\($0).m4s" })
        #expect(manifest.segments.map(\.span.start) == [0, 2, 4, 6, 8])
        #expect(manifest.segments.last?.span.end == 10)
    }

    @Test("a live MPD: S@r=-1 with no period end lists one segment; a @duration template with no end lists none")
    func live() throws {
        let text = """
            <MPD type="dynamic" availabilityStartTime="2026-01-01T00:00:00Z">
              <Period start="PT0S">
                <AdaptationSet mimeType="audio/mp4">
                  <SegmentTemplate timescale="10" media="$Time$.m4a" initialization="init.m4a">
                    <SegmentTimeline><S t="100" d="20" r="-1"/></SegmentTimeline>
                  </SegmentTemplate>
                  <Representation id="a" bandwidth="96000"/>
                </AdaptationSet>
                <AdaptationSet mimeType="video/mp4">
                  <SegmentTemplate duration="2" media="$Number$.m4v" initialization="v.mp4"/>
                  <Representation id="b" bandwidth="900000"/>
                </AdaptationSet>
              </Period>
            </MPD>
            """
        let manifest = try DASHManifest.parse(text, url: "https://live.test/s/m.mpd")
        #expect(manifest.isDynamic)
        #expect(manifest.segments.map(\.url) == ["init.m4a", "100.m4a", "v.mp4"].map { "https://live.test/s/" + $0 })
        #expect(manifest.segments[1].span.start == 10)
        #expect(manifest.segments[1].span.end == 12)
        #expect(manifest.segments.map(\.span.rendition) == ["audio 96 kb/s", "audio 96 kb/s", "video 900 kb/s"])
    }

    // MARK: Errors

    @Test("malformed XML names the line and what was expected")
    func malformedXML() {
        let mismatched = "<MPD>\n  <Period>\n    <AdaptationSet>\n  </Period>\n</MPD>"
        let error = #expect(throws: MediaParseError.self) { try DASHManifest.parse(mismatched, url: "https://x/m.mpd") }
        #expect(
            error
                == .malformedXML(
                    url: "https://x/m.mpd", line: 4, expected: "\"</AdaptationSet>\"", found: "\"</Period>\""))
        #expect(
            error?.description
                == "MPD https://x/m.mpd line 4: malformed XML: expected \"</AdaptationSet>\", found \"</Period>\"")

        let cases: [(String, Int, String)] = [
            ("<MPD>\n<Period start=\"PT0S>\n</Period></MPD>", 2, "closing quote"),
            ("<MPD>\n\n<Period a=\"&nbsp;\"/></MPD>", 3, "&nbsp;"),
            ("<MPD>\n<Period>\n", 3, "</Period>"),
            ("<MPD a=1/>", 1, "quoted value"),
            ("<MPD/>\n<Extra/>", 2, "end of document"),
            ("no xml here", 1, "root element"),
        ]
        for (text, line, words) in cases {
            let e = #expect(throws: MediaParseError.self) { try DASHManifest.parse(text, url: "https://x/m.mpd") }
            guard case let .malformedXML(_, l, expected, found) = e else {
                Issue.record("\(text): \(String(describing: e))")
                continue
            }
            #expect(l == line, "\(text)")
            #expect((expected + found).contains(words), "\(text): \(expected) / \(found)")
        }
    }

    @Test("bounds: nesting depth, segment counts from S@r and from @duration, a root that is not MPD, bad templates")
    func bounds() {
        let deep = String(repeating: "<a>", count: 100) + String(repeating: "</a>", count: 100)
        let depth = #expect(throws: MediaParseError.self) { try DASHManifest.parse(deep, url: "https://x/m.mpd") }
        guard case .xmlLimitExceeded = depth else {
            Issue.record("\(String(describing: depth))")
            return
        }

        let repeats = """
            <MPD>
              <Period duration="PT10S"><AdaptationSet><Representation id="v" bandwidth="1000">
                <SegmentTemplate media="$Number$.m4s"><SegmentTimeline>
                  <S t="0" d="1" r="999999999999"/>
                </SegmentTimeline></SegmentTemplate>
              </Representation></AdaptationSet></Period>
            </MPD>
            """
        let many = #expect(throws: MediaParseError.self) { try DASHManifest.parse(repeats, url: "https://x/m.mpd") }
        #expect(
            many
                == .tooManySegments(
                    url: "https://x/m.mpd", line: 4, rendition: "1 kb/s", limit: DASHManifest.segmentLimit))

        let long = """
            <MPD mediaPresentationDuration="PT100000000H">
              <Period><AdaptationSet><Representation id="v">
                <SegmentTemplate timescale="1" duration="1" media="$Number$.m4s"/>
              </Representation></AdaptationSet></Period>
            </MPD>
            """
        let counted = #expect(throws: MediaParseError.self) { try DASHManifest.parse(long, url: "https://x/m.mpd") }
        #expect(
            counted
                == .tooManySegments(
                    url: "https://x/m.mpd", line: 3, rendition: "representation v", limit: DASHManifest.segmentLimit))

        let forever = """
            <MPD type="static"><Period><AdaptationSet><Representation id="v">
              <SegmentTemplate timescale="1" duration="2" media="$Number$.m4s"/>
            </Representation></AdaptationSet></Period></MPD>
            """
        let unbounded = #expect(throws: MediaParseError.self) {
            try DASHManifest.parse(forever, url: "https://x/m.mpd")
        }
        #expect(unbounded?.description.contains("cannot be counted") == true)

        let notMPD = #expect(throws: MediaParseError.self) {
            try DASHManifest.parse("<html><body/></html>", url: "https://x/m.mpd")
        }
        #expect(
            notMPD
                == .invalidManifest(
                    url: "https://x/m.mpd", line: 1, element: "html",
                    problem: "is not an MPD: the document's root element must be <MPD>"))

        let template = """
            <MPD mediaPresentationDuration="PT4S"><Period><AdaptationSet><Representation id="v">
              <SegmentTemplate duration="2" media="$SubNumber$.m4s"/>
            </Representation></AdaptationSet></Period></MPD>
            """
        let badTemplate = #expect(throws: MediaParseError.self) {
            try DASHManifest.parse(template, url: "https://x/m.mpd")
        }
        let format = template.replacingOccurrences(of: "$SubNumber$", with: "$Number%5d$")
        let badFormat = #expect(throws: MediaParseError.self) { try DASHManifest.parse(format, url: "https://x/m.mpd") }
        #expect(badFormat?.description.contains("only %0<width>d") == true)

        let number = template.replacingOccurrences(of: "$SubNumber$", with: "$Number$").replacingOccurrences(
            of: "duration=\"2\"", with: "duration=\"2\" startNumber=\"9223372036854775807\"")
        let badNumber = #expect(throws: MediaParseError.self) { try DASHManifest.parse(number, url: "https://x/m.mpd") }
        #expect(badNumber?.description.contains("@startNumber 9223372036854775807 is outside") == true)

        let huge = "<MPD>" + String(repeating: " ", count: 33 << 20) + "</MPD>"
        let size = #expect(throws: MediaParseError.self) { try DASHManifest.parse(huge, url: "https://x/m.mpd") }
        guard case .xmlLimitExceeded(_, 1, _) = size else {
            Issue.record("\(String(describing: size))")
            return
        }
        #expect(
            badTemplate?.description.hasPrefix(
                "MPD https://x/m.mpd line 2: <SegmentTemplate> @media \"$SubNumber$.m4s\" uses $SubNumber$") == true)
    }

    // MARK: ffmpeg's manifests

    @Test("ffmpeg SegmentTemplate with SegmentTimeline: every URL is a file on disk, times contiguous to the duration")
    func ffmpegTimeline() throws {
        let dir = try MediaFixtures.make(
            "dash-timeline",
            MediaFixtures.source + MediaFixtures.codecs + ["-f", "dash", "-seg_duration", "2", "out.mpd"])
        let text = try MediaFixtures.text(dir, "out.mpd")
        #expect(text.contains("<SegmentTimeline"))
        try checkFiles(try DASHManifest.parse(text, url: MediaFixtures.origin + "out.mpd"), dir: dir, timeline: true)
    }

    @Test("ffmpeg SegmentTemplate with @duration: every URL is a file on disk, times contiguous to the duration")
    func ffmpegDurationTemplate() throws {
        let dir = try MediaFixtures.make(
            "dash-duration",
            MediaFixtures.source + MediaFixtures.codecs + [
                "-f", "dash", "-seg_duration", "2", "-use_timeline", "0", "out.mpd",
            ])
        let text = try MediaFixtures.text(dir, "out.mpd")
        #expect(!text.contains("<SegmentTimeline"))
        try checkFiles(try DASHManifest.parse(text, url: MediaFixtures.origin + "out.mpd"), dir: dir, timeline: false)
    }

    @Test("ffmpeg single file: SegmentList mediaRanges follow the initialization to the file's end")
    func ffmpegSingleFile() throws {
        let dir = try MediaFixtures.make(
            "dash-single",
            MediaFixtures.source + MediaFixtures.codecs + [
                "-f", "dash", "-seg_duration", "2", "-single_file", "1", "out.mpd",
            ])
        let manifest = try DASHManifest.parse(
            try MediaFixtures.text(dir, "out.mpd"), url: MediaFixtures.origin + "out.mpd")
        #expect(manifest.representations.count == 2)
        for representation in manifest.representations {
            let refs = manifest.segments.filter { $0.span.rendition == representation.name }
            let initialization = try #require(refs.first)
            #expect(initialization.span.kind == .initialization)
            var next = try #require(initialization.byteRange).upperBound
            #expect(initialization.byteRange?.lowerBound == 0)
            for segment in refs.dropFirst() {
                #expect(segment.url == initialization.url)
                let range = try #require(segment.byteRange)
                #expect(range.lowerBound == next)
                next = range.upperBound
            }
            let file = try #require(MediaFixtures.path(of: initialization.url, in: dir))
            #expect(next == (try MediaFixtures.size(file)))
            #expect(refs.count >= 6)
        }
    }

    @Test(
        "SegmentBase over ffmpeg's single file with a global sidx: the index range holds the sidx, which ends where its references start"
    )
    func ffmpegSegmentBase() throws {
        let dir = try MediaFixtures.make(
            "dash-sidx",
            MediaFixtures.source + MediaFixtures.codecs + [
                "-f", "dash", "-seg_duration", "2", "-single_file", "1", "-global_sidx", "1", "out.mpd",
            ])
        let list = try DASHManifest.parse(try MediaFixtures.text(dir, "out.mpd"), url: MediaFixtures.origin + "out.mpd")
        let video = try #require(list.representations.first { $0.contentType == "video" })
        let fileURL = try #require(list.segments.first { $0.span.rendition == video.name }?.url)
        let path = try #require(MediaFixtures.path(of: fileURL, in: dir))
        let bytes = try MediaFixtures.bytes(path)
        // The on-demand profile's MPD for this file: the sidx box as the index, what precedes it as the initialization.
        let sidx = try #require(Self.topLevelBoxes(bytes).first { $0.type == "sidx" })
        let mpd = """
            <MPD xmlns="urn:mpeg:dash:schema:mpd:2011" profiles="urn:mpeg:dash:profile:isoff-on-demand:2011" mediaPresentationDuration="PT12S">
              <Period><AdaptationSet contentType="video"><Representation id="0" bandwidth="\(video.bandwidth ?? 0)" width="320" height="180">
                <BaseURL>\(fileURL.split(separator: "/").last ?? "")</BaseURL>
                <SegmentBase indexRange="\(sidx.offset)-\(sidx.offset + sidx.size - 1)"><Initialization range="0-\(sidx.offset - 1)"/></SegmentBase>
              </Representation></AdaptationSet></Period>
            </MPD>
            """
        let manifest = try DASHManifest.parse(mpd, url: MediaFixtures.origin + "od.mpd")
        let indexed = try #require(manifest.indexed.first)
        #expect(indexed.url == fileURL)
        #expect(manifest.segments.map(\.span.kind) == [.initialization, .index])
        #expect(manifest.segments.map(\.byteRange) == [indexed.initializationRange, indexed.indexRange])
        let index = indexed.indexRange
        #expect(index.lowerBound >= 0 && index.upperBound <= Int64(bytes.count))
        let at = Int(index.lowerBound)
        #expect(String(decoding: bytes[(at + 4)..<(at + 8)], as: UTF8.self) == "sidx")
        // The sidx's first_offset and referenced sizes, counted from the end of the box, reach the end of the file.
        let box = Array(bytes[Int(index.lowerBound)..<Int(index.upperBound)])
        let version = box[8]
        var p = 12 + 4 + 4
        let firstOffset: Int64
        if version == 0 {
            firstOffset = Self.uint(box, p + 4, 4)
            p += 8
        } else {
            firstOffset = Self.uint(box, p + 8, 8)
            p += 16
        }
        let count = Int(Self.uint(box, p + 2, 2))
        p += 4
        var referenced: Int64 = 0
        for k in 0..<count { referenced += Self.uint(box, p + 12 * k, 4) & 0x7FFF_FFFF }
        #expect(count >= 6)
        #expect(index.upperBound + firstOffset + referenced == Int64(bytes.count))
    }

    /// For each representation: the initialization and every media URL name files on disk, the
    /// segments' times follow each other from 0, and the last ends at the MPD's duration.
    private func checkFiles(_ manifest: DASHManifest, dir: String, timeline: Bool) throws {
        #expect(manifest.representations.count == 2)
        #expect(Set(manifest.representations.compactMap(\.contentType)) == ["video", "audio"])
        let duration = try #require(manifest.mediaPresentationDuration)
        #expect(abs(duration - 12) < 0.2)
        for representation in manifest.representations {
            let refs = manifest.segments.filter { $0.span.rendition == representation.name }
            #expect(refs.first?.span.kind == .initialization)
            let media = refs.dropFirst()
            #expect(media.count >= 6)
            #expect(
                refs.allSatisfy { MediaFixtures.exists($0.url, in: dir) },
                "\(refs.map(\.url).filter { !MediaFixtures.exists($0, in: dir) })")
            #expect(Set(refs.map(\.url)).count == refs.count)
            #expect(media.map(\.span.sequence) == Array(1...media.count).map { Optional($0) })
            var clock = 0.0
            for segment in media {
                let start = try #require(segment.span.start)
                #expect(abs(start - clock) < 0.001, "\(segment.url)")
                clock = try #require(segment.span.end)
            }
            #expect(
                abs(clock - duration) < 0.1, "\(representation.name): segments end at \(clock), MPD says \(duration)")
        }
        // Every segment file on disk is listed, but for a @duration template: there the MPD's
        // 12.0 s counts 6 segments, and the AAC encoder's priming leaves a 7th audio chunk of
        // some 23 ms on disk that a player never asks for.
        let listed = Set(manifest.segments.compactMap { MediaFixtures.path(of: $0.url, in: dir) })
        let onDisk = Set(
            try FileManager.default.contentsOfDirectory(atPath: dir).filter { $0.hasSuffix(".m4s") }.map {
                dir + "/" + $0
            })
        #expect(listed.isSubset(of: onDisk))
        let unlisted = onDisk.subtracting(listed)
        if timeline {
            #expect(unlisted.isEmpty)
        } else {
            #expect(unlisted.count <= 1, "\(unlisted)")
            let next = (manifest.segments.compactMap(\.span.sequence).max() ?? 0) + 1
            #expect(unlisted.allSatisfy { $0.hasSuffix(String(format: "-%05d.m4s", next)) }, "\(unlisted)")
        }
    }

    /// Top-level ISO BMFF boxes: offset, size and type.
    private static func topLevelBoxes(_ bytes: [UInt8]) -> [(offset: Int64, size: Int64, type: String)] {
        var boxes: [(offset: Int64, size: Int64, type: String)] = []
        var at = 0
        while at + 8 <= bytes.count {
            var size = uint(bytes, at, 4)
            if size == 1, at + 16 <= bytes.count { size = uint(bytes, at + 8, 8) }
            if size == 0 { size = Int64(bytes.count - at) }
            guard size >= 8 else { break }
            boxes.append((Int64(at), size, String(decoding: bytes[(at + 4)..<(at + 8)], as: UTF8.self)))
            at += Int(size)
        }
        return boxes
    }

    /// A big-endian unsigned integer of `width` bytes at `at`.
    private static func uint(_ bytes: [UInt8], _ at: Int, _ width: Int) -> Int64 {
        bytes[at..<(at + width)].reduce(Int64(0)) { $0 << 8 | Int64($1) }
    }
}
