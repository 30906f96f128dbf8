import Foundation
import RangeTapCore
@testable import RangeTapMedia
import RangeTapTestSupport
import Testing

@Suite("HLS playlists")
struct HLSPlaylistTests {
    // MARK: Hand-written

    @Test("a master playlist: variants with quoted commas, I-frame streams, renditions, URLs resolved")
    func master() throws {
        let text = """
            #EXTM3U
            #EXT-X-VERSION:6
            #EXT-X-INDEPENDENT-SEGMENTS
            #EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aac",NAME="English, stereo",LANGUAGE="en",DEFAULT=YES,URI="../audio/en.m3u8"
            #EXT-X-MEDIA:TYPE=CLOSED-CAPTIONS,GROUP-ID="cc",NAME="CC1",INSTREAM-ID="CC1"
            #EXT-X-STREAM-INF:BANDWIDTH=2100000,AVERAGE-BANDWIDTH=1900000,RESOLUTION=1280x720,FRAME-RATE=29.970,CODECS="avc1.64001f,mp4a.40.2",AUDIO="aac"
            720p/index.m3u8#frag
            #EXT-X-STREAM-INF:BANDWIDTH=128000,CODECS="mp4a.40.2"
            https://cdn.example.org/audio-only/index.m3u8?token=a,b

            #EXT-X-I-FRAME-STREAM-INF:BANDWIDTH=300000,RESOLUTION=1280x720,CODECS="avc1.64001f",URI="720p/iframes.m3u8"
            #EXT-X-SOME-FUTURE-TAG:X=1
            """
        let playlist = try HLSPlaylist.parse(text, url: "https://media.test/show/hls/master.m3u8?session=9")
        #expect(playlist.kind == .master)
        #expect(playlist.segments.isEmpty)
        try #require(playlist.variants.count == 3)
        let hd = playlist.variants[0]
        #expect(hd.uri == "https://media.test/show/hls/720p/index.m3u8")
        #expect(hd.bandwidth == 2_100_000)
        #expect(hd.averageBandwidth == 1_900_000)
        #expect(hd.resolution == HLSVariant.Resolution(width: 1280, height: 720))
        #expect(hd.codecs == "avc1.64001f,mp4a.40.2")
        #expect(hd.frameRate == 29.97)
        #expect(hd.audioGroup == "aac")
        #expect(!hd.isIFrameOnly)
        #expect(hd.name == "1280x720 2.1 Mb/s")
        let audio = playlist.variants[1]
        #expect(audio.uri == "https://cdn.example.org/audio-only/index.m3u8?token=a,b")
        #expect(audio.name == "audio 128 kb/s")
        #expect(audio.resolution == nil)
        let iframes = playlist.variants[2]
        #expect(iframes.isIFrameOnly)
        #expect(iframes.uri == "https://media.test/show/hls/720p/iframes.m3u8")
        #expect(iframes.name == "1280x720 300 kb/s I-frames")
        try #require(playlist.renditions.count == 2)
        #expect(
            playlist.renditions[0]
                == HLSRendition(
                    type: .audio, groupID: "aac", name: "English, stereo", language: "en",
                    uri: "https://media.test/show/audio/en.m3u8", isDefault: true))
        #expect(playlist.renditions[1].type == .closedCaptions)
        #expect(playlist.renditions[1].uri == nil)
    }

    @Test(
        "a media playlist: EXTINF times, sequence from EXT-X-MEDIA-SEQUENCE, byte ranges continued per URI, maps once")
    func mediaWithRanges() throws {
        let text = """
            #EXTM3U
            #EXT-X-VERSION:7
            #EXT-X-TARGETDURATION:4
            #EXT-X-MEDIA-SEQUENCE:100
            #EXT-X-PLAYLIST-TYPE:EVENT
            #EXT-X-MAP:URI="main.mp4",BYTERANGE="800@0"
            #EXT-X-PROGRAM-DATE-TIME:2026-01-01T00:00:00.000Z
            #EXTINF:4.0,first
            #EXT-X-BYTERANGE:1000@800
            main.mp4
            #EXTINF:3.5,
            #EXT-X-BYTERANGE:1200
            main.mp4
            #EXT-X-DISCONTINUITY
            #EXT-X-KEY:METHOD=AES-128,URI="https://keys.test/k1",IV=0x00000000000000000000000000000001
            #EXT-X-MAP:URI="main.mp4",BYTERANGE="800@0"
            #EXTINF:2.25,
            other/seg.ts
            #EXT-X-KEY:METHOD=NONE
            #EXT-X-UNKNOWN-TAG:whatever
            #EXTINF:1,
            #EXT-X-BYTERANGE:500
            main.mp4
            """
        let playlist = try HLSPlaylist.parse(text, url: "https://media.test/a/b/video.m3u8")
        #expect(playlist.kind == .media)
        #expect(playlist.targetDuration == 4)
        #expect(playlist.mediaSequence == 100)
        #expect(playlist.playlistType == .event)
        #expect(!playlist.endList)
        let base = "https://media.test/a/b/"
        let expected: [MediaSegmentRef] = [
            MediaSegmentRef(
                url: base + "main.mp4", byteRange: 0..<800,
                span: MediaSpan(kind: .initialization, format: "hls", rendition: "video.m3u8")),
            MediaSegmentRef(
                url: base + "main.mp4", byteRange: 800..<1800,
                span: MediaSpan(kind: .segment, format: "hls", rendition: "video.m3u8", sequence: 100, start: 0, end: 4)
            ),
            MediaSegmentRef(
                url: base + "main.mp4", byteRange: 1800..<3000,
                span: MediaSpan(
                    kind: .segment, format: "hls", rendition: "video.m3u8", sequence: 101, start: 4, end: 7.5)),
            MediaSegmentRef(
                url: base + "other/seg.ts",
                span: MediaSpan(
                    kind: .segment, format: "hls", rendition: "video.m3u8", sequence: 102, start: 7.5, end: 9.75,
                    note: "key AES-128")),
            MediaSegmentRef(
                url: base + "main.mp4", byteRange: 3000..<3500,
                span: MediaSpan(
                    kind: .segment, format: "hls", rendition: "video.m3u8", sequence: 103, start: 9.75, end: 10.75)),
        ]
        #expect(playlist.segments == expected)
    }

    @Test("the rendition argument names the segments; EXT-X-ENDLIST and VOD are read")
    func renditionArgument() throws {
        let text = "#EXTM3U\n#EXT-X-PLAYLIST-TYPE:VOD\r\n#EXTINF:6,\r\nseg0.ts\r\n#EXT-X-ENDLIST\r\n"
        let playlist = try HLSPlaylist.parse(text, url: "https://media.test/p.m3u8", rendition: "1280x720 2.1 Mb/s")
        #expect(playlist.endList)
        #expect(playlist.playlistType == .vod)
        #expect(playlist.segments.map(\.span.rendition) == ["1280x720 2.1 Mb/s"])
        #expect(playlist.segments.map(\.url) == ["https://media.test/seg0.ts"])
    }

    @Test("LL-HLS: parts precede their segment, carry its sequence and their own times, byte ranges continue")
    func lowLatencyParts() throws {
        let text = """
            #EXTM3U
            #EXT-X-TARGETDURATION:4
            #EXT-X-VERSION:9
            #EXT-X-SERVER-CONTROL:CAN-BLOCK-RELOAD=YES,PART-HOLD-BACK=3.0
            #EXT-X-PART-INF:PART-TARGET=1.0
            #EXT-X-MEDIA-SEQUENCE:7
            #EXT-X-MAP:URI="init.mp4"
            #EXTINF:4.0,
            seg7.mp4
            #EXT-X-PART:DURATION=1.0,URI="seg8.mp4",BYTERANGE="2000@0",INDEPENDENT=YES
            #EXT-X-PART:DURATION=1.0,URI="seg8.mp4",BYTERANGE="1500"
            #EXT-X-PART:DURATION=1.0,URI="seg8.mp4",BYTERANGE="1700"
            #EXT-X-PART:DURATION=1.0,URI="seg8.mp4",BYTERANGE="1600"
            #EXTINF:4.0,
            seg8.mp4
            #EXT-X-PART:DURATION=0.5,URI="../live/part9.0.mp4",INDEPENDENT=YES
            #EXT-X-PRELOAD-HINT:TYPE=PART,URI="../live/part9.1.mp4"
            """
        let playlist = try HLSPlaylist.parse(text, url: "https://media.test/live/low.m3u8")
        let summary = playlist.segments.map { ref in
            "\(ref.span.kind.rawValue) \(ref.url.dropFirst("https://media.test/".count)) \(ref.byteRange.map { "\($0.lowerBound)-\($0.upperBound)" } ?? "-") #\(ref.span.sequence.map(String.init) ?? "-") \(ref.span.start ?? -1)-\(ref.span.end ?? -1) \(ref.span.note ?? "")"
        }
        #expect(
            summary == [
                "init live/init.mp4 - #- -1.0--1.0 ",
                "segment live/seg7.mp4 - #7 0.0-4.0 ",
                "part live/seg8.mp4 0-2000 #8 4.0-5.0 independent",
                "part live/seg8.mp4 2000-3500 #8 5.0-6.0 ",
                "part live/seg8.mp4 3500-5200 #8 6.0-7.0 ",
                "part live/seg8.mp4 5200-6800 #8 7.0-8.0 ",
                "segment live/seg8.mp4 - #8 4.0-8.0 ",
                "part live/part9.0.mp4 - #9 8.0-8.5 independent",
            ])
    }

    @Test("segment URLs resolve as Foundation resolves them against the playlist's URL, fragments dropped")
    func urlResolution() throws {
        let bases = [
            "https://media.test/a/b/p.m3u8?token=1", "https://media.test:8443/a/./b/../c/p.m3u8",
            "https://media.test/dir/",
            "http://media.test", "https://media.test/a/p.m3u8#top",
        ]
        let references = [
            "seg1.ts", "sub/seg-00001.m4s", "../up/seg.ts", "./here.ts", "/root/seg.ts", "https://other.test/x/seg.ts",
            "//cdn.test/proto-relative.ts", "seg.ts?sig=a%2Fb", "seg.ts#t=10", "a/../b/seg.ts", "~user/seg_1.ts",
            "..seg.ts",
        ]
        for base in bases {
            let text = "#EXTM3U\n" + references.map { "#EXTINF:1,\n\($0)\n" }.joined()
            let playlist = try HLSPlaylist.parse(text, url: base)
            let expected = references.map { reference -> String in
                let resolved = URL(string: reference, relativeTo: URL(string: base))?.absoluteString ?? reference
                return resolved.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first.map(
                    String.init) ?? resolved
            }
            #expect(playlist.segments.map(\.url) == expected, "\(base)")
        }
        let simple = try HLSPlaylist.parse(
            "#EXTM3U\n#EXTINF:1,\n../v/seg.ts\n#EXTINF:1,\nseg.ts\n", url: "https://media.test/a/b/p.m3u8")
        #expect(simple.segments.map(\.url) == ["https://media.test/a/v/seg.ts", "https://media.test/a/b/seg.ts"])
    }

    // MARK: Errors

    @Test("a file without #EXTM3U is refused, naming what it found")
    func notAPlaylist() {
        #expect(throws: MediaParseError.notAPlaylist(url: "https://x/a.m3u8", firstLine: "<html>")) {
            try HLSPlaylist.parse("<html>\n#EXTM3U\n", url: "https://x/a.m3u8")
        }
        let error = #expect(throws: MediaParseError.self) { try HLSPlaylist.parse("", url: "https://x/a.m3u8") }
        #expect(error?.description.hasPrefix("playlist https://x/a.m3u8 line 1: expected #EXTM3U") == true)
    }

    @Test("an EXTINF that is not a number names the line")
    func badExtinf() {
        let text = "#EXTM3U\n#EXT-X-TARGETDURATION:6\n\n#EXTINF:six,\nseg.ts\n"
        let error = #expect(throws: MediaParseError.self) { try HLSPlaylist.parse(text, url: "https://x/a.m3u8") }
        #expect(
            error
                == .invalidPlaylistLine(
                    url: "https://x/a.m3u8", line: 4, text: "#EXTINF:six,",
                    expected: "a duration in seconds, as in #EXTINF:6.006,"))
        #expect(
            error?.description
                == "playlist https://x/a.m3u8 line 4: \"#EXTINF:six,\": expected a duration in seconds, as in #EXTINF:6.006,"
        )
    }

    @Test("a BYTERANGE without offset and nothing to continue names the line and the URI")
    func danglingByteRange() {
        let text = """
            #EXTM3U
            #EXT-X-TARGETDURATION:6
            #EXTINF:6,
            #EXT-X-BYTERANGE:700@0
            other.ts
            #EXTINF:6,
            #EXT-X-BYTERANGE:500
            seg.ts
            """
        let error = #expect(throws: MediaParseError.self) { try HLSPlaylist.parse(text, url: "https://x/a.m3u8") }
        #expect(
            error?.description
                == "playlist https://x/a.m3u8 line 7: EXT-X-BYTERANGE \"500\" has no offset and no earlier range of seg.ts to continue; the range needs the form length@offset"
        )
    }

    @Test("malformed tags name their line: a STREAM-INF without URI, an unterminated quote, a part without duration")
    func malformedTags() {
        let noURI = #expect(throws: MediaParseError.self) {
            try HLSPlaylist.parse("#EXTM3U\n#EXT-X-STREAM-INF:BANDWIDTH=1000\n", url: "https://x/m.m3u8")
        }
        #expect(
            noURI
                == .invalidPlaylistLine(
                    url: "https://x/m.m3u8", line: 2, text: "#EXT-X-STREAM-INF:BANDWIDTH=1000",
                    expected: "a URI line after EXT-X-STREAM-INF"))
        let quote = #expect(throws: MediaParseError.self) {
            try HLSPlaylist.parse("#EXTM3U\n#EXT-X-MAP:URI=\"init.mp4\n", url: "https://x/m.m3u8")
        }
        guard case let .invalidPlaylistLine(_, line, _, _) = quote else {
            Issue.record("wrong error \(String(describing: quote))")
            return
        }
        #expect(line == 2)
        let part = #expect(throws: MediaParseError.self) {
            try HLSPlaylist.parse("#EXTM3U\n#EXTINF:2,\na.ts\n#EXT-X-PART:URI=\"p.mp4\"\n", url: "https://x/m.m3u8")
        }
        #expect(part?.description.contains("line 4") == true)
        #expect(part?.description.contains("DURATION") == true)
        let sequence = #expect(throws: MediaParseError.self) {
            try HLSPlaylist.parse(
                "#EXTM3U\n#EXT-X-MEDIA-SEQUENCE:9223372036854775807\n#EXTINF:2,\na.ts\n#EXTINF:2,\nb.ts\n",
                url: "https://x/m.m3u8")
        }
        #expect(sequence?.description.contains("line 2") == true)
    }

    // MARK: ffmpeg's playlists

    @Test("ffmpeg fMP4 single file: init map first, ranges contiguous to the file's end, EXTINF sum = duration")
    func ffmpegFragmentedSingleFile() throws {
        let dir = try MediaFixtures.make(
            "hls-fmp4",
            MediaFixtures.source + MediaFixtures.codecs + [
                "-f", "hls", "-hls_time", "2", "-hls_playlist_type", "vod", "-hls_flags", "single_file",
                "-hls_segment_type", "fmp4", "out.m3u8",
            ])
        let playlist = try HLSPlaylist.parse(
            try MediaFixtures.text(dir, "out.m3u8"), url: MediaFixtures.origin + "out.m3u8")
        #expect(playlist.kind == .media)
        #expect(playlist.endList)
        let map = try #require(playlist.segments.first)
        #expect(map.span.kind == .initialization)
        let mapRange = try #require(map.byteRange)
        #expect(mapRange.lowerBound == 0)
        let segments = Array(playlist.segments.dropFirst())
        #expect(segments.allSatisfy { $0.span.kind == .segment })
        #expect(segments.count >= 5)
        try checkContiguous(segments, from: mapRange.upperBound, dir: dir)
        try checkTimes(segments, duration: MediaFixtures.probedDuration(MediaFixtures.path(of: map.url, in: dir) ?? ""))
    }

    @Test("ffmpeg MPEG-TS single file: ranges from 0 contiguous to the file's end")
    func ffmpegTransportStreamSingleFile() throws {
        let dir = try MediaFixtures.make(
            "hls-ts",
            MediaFixtures.source + MediaFixtures.codecs + [
                "-f", "hls", "-hls_time", "2", "-hls_playlist_type", "vod", "-hls_flags", "single_file", "out.m3u8",
            ])
        let playlist = try HLSPlaylist.parse(
            try MediaFixtures.text(dir, "out.m3u8"), url: MediaFixtures.origin + "out.m3u8")
        #expect(playlist.segments.allSatisfy { $0.span.kind == .segment })
        #expect(playlist.segments.count >= 5)
        try checkContiguous(playlist.segments, from: 0, dir: dir)
        let file = try #require(MediaFixtures.path(of: playlist.segments[0].url, in: dir))
        try checkTimes(playlist.segments, duration: MediaFixtures.probedDuration(file))
    }

    @Test("ffmpeg master with two video variants and an audio rendition: every URL names a file on disk")
    func ffmpegMaster() throws {
        let dir = try MediaFixtures.make(
            "hls-master",
            MediaFixtures.source + [
                "-map", "0:v", "-map", "0:v", "-map", "1:a",
            ] + MediaFixtures.codecs + [
                "-b:v:0", "800k", "-b:v:1", "300k", "-s:v:1", "160x90",
                "-f", "hls", "-hls_time", "2", "-hls_playlist_type", "vod", "-master_pl_name", "master.m3u8",
                "-var_stream_map", "v:0,agroup:aud v:1,agroup:aud a:0,agroup:aud,default:yes",
                "-hls_segment_filename", "v%v/seg%03d.ts", "v%v/index.m3u8",
            ])
        let master = try HLSPlaylist.parse(
            try MediaFixtures.text(dir, "master.m3u8"), url: MediaFixtures.origin + "master.m3u8")
        #expect(master.kind == .master)
        #expect(
            master.variants.map(\.resolution) == [
                HLSVariant.Resolution(width: 320, height: 180), HLSVariant.Resolution(width: 160, height: 90),
            ])
        #expect(master.variants.allSatisfy { $0.name.hasSuffix(" kb/s") && $0.audioGroup != nil })
        try #require(master.renditions.count == 1)
        #expect(master.renditions[0].type == .audio)
        let playlists =
            master.variants.map { ($0.uri, $0.name) } + master.renditions.compactMap { r in r.uri.map { ($0, r.name) } }
        #expect(playlists.count == 3)
        for (uri, name) in playlists {
            let path = try #require(MediaFixtures.path(of: uri, in: dir))
            #expect(FileManager.default.fileExists(atPath: path), "\(uri)")
            let media = try HLSPlaylist.parse(
                try String(contentsOfFile: path, encoding: .utf8), url: uri, rendition: name)
            #expect(media.kind == .media)
            #expect(media.segments.count >= 5)
            #expect(media.segments.map(\.span.sequence) == Array(0..<media.segments.count).map { Optional($0) })
            #expect(
                media.segments.allSatisfy {
                    MediaFixtures.exists($0.url, in: dir) && $0.span.rendition == name && $0.byteRange == nil
                })
        }
    }

    /// The segments' ranges follow each other from `start` to the end of their one file.
    private func checkContiguous(_ segments: [MediaSegmentRef], from start: Int64, dir: String) throws {
        let url = try #require(segments.first?.url)
        #expect(segments.allSatisfy { $0.url == url })
        var next = start
        for segment in segments {
            let range = try #require(segment.byteRange)
            #expect(range.lowerBound == next, "segment \(segment.span.sequence ?? -1)")
            #expect(!range.isEmpty)
            next = range.upperBound
        }
        let file = try #require(MediaFixtures.path(of: url, in: dir))
        #expect(next == (try MediaFixtures.size(file)))
    }

    /// Sequence numbers 0..n-1, times contiguous from 0, total within 0.1 s of `duration`.
    private func checkTimes(_ segments: [MediaSegmentRef], duration: Double) throws {
        #expect(segments.map(\.span.sequence) == Array(0..<segments.count).map { Optional($0) })
        var clock = 0.0
        for segment in segments {
            #expect(segment.span.start == clock)
            clock = try #require(segment.span.end)
        }
        #expect(abs(clock - duration) < 0.1, "EXTINF sum \(clock), ffprobe \(duration)")
    }
}
