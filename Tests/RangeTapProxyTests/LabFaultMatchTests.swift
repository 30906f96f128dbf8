import RangeTapCore
import RangeTapProxy
import Testing

/// Whether a rule with `path=pattern` matches a GET of `path`.
private func pathMatches(_ pattern: String, _ path: String) -> Bool {
    FaultMatch(path: pattern).matches(host: "h", path: path, method: "GET", hasRange: false)
}

@Suite("Lab: which requests a fault rule matches")
struct LabFaultMatchTests {
    @Test func aGlobWithoutASlashMatchesTheLastSegment() {
        #expect(pathMatches("*.ts", "/a/b/seg1.ts"))
        #expect(pathMatches("*.ts", "/seg1.ts"))
        #expect(pathMatches("*.ts", "/a/b/seg1.ts?token=abc.m4s"))
        #expect(!pathMatches("*.ts", "/a/b/seg1.ts.bak"))
        #expect(!pathMatches("*.ts", "/a.ts/b"))
        #expect(!pathMatches("*.ts", "/a/b/seg1.m4s?x=.ts"))
        #expect(pathMatches("seg?.ts", "/x/seg1.ts"))
        #expect(!pathMatches("seg?.ts", "/x/seg10.ts"))
        #expect(pathMatches("index.m3u8", "/live/index.m3u8"))
        #expect(!pathMatches("index.m3u8", "/live/index.m3u8x"))
        #expect(pathMatches("*", "/"))
        #expect(pathMatches("*seg*", "/v/init-seg-1.mp4"))
        #expect(!pathMatches("*.TS", "/a.ts"))
    }

    @Test func aGlobWithASlashMatchesTheWholePath() {
        #expect(pathMatches("/seg-*.m4s", "/seg-12.m4s"))
        #expect(!pathMatches("/seg-*.m4s", "/v/seg-12.m4s"))
        #expect(pathMatches("/index.m3u8", "/index.m3u8?token=1"))
        #expect(!pathMatches("/index.m3u8", "/live/index.m3u8"))
        // `*` crosses `/`.
        #expect(pathMatches("/video/*.ts", "/video/720p/seg1.ts"))
        #expect(pathMatches("/v/???.mp4", "/v/abc.mp4"))
        #expect(!pathMatches("/v/???.mp4", "/v/abcd.mp4"))
        #expect(pathMatches("/a*b*c", "/aXbYbZc"))
        #expect(!pathMatches("/a*b*c", "/aXbYbZ"))
    }

    @Test func hostsCompareWithoutCaseAndWithThePortWhenTheRuleHasOne() {
        let any = FaultMatch(host: "cdn.example.com")
        #expect(any.matches(host: "CDN.Example.com:443", path: "/", method: "GET", hasRange: false))
        #expect(any.matches(host: "cdn.example.com", path: "/", method: "GET", hasRange: false))
        #expect(!any.matches(host: "cdn.example.com.evil", path: "/", method: "GET", hasRange: false))
        #expect(!any.matches(host: "other.example.com:443", path: "/", method: "GET", hasRange: false))
        let port = FaultMatch(host: "cdn.example.com:8443")
        #expect(port.matches(host: "cdn.example.com:8443", path: "/", method: "GET", hasRange: false))
        #expect(!port.matches(host: "cdn.example.com:443", path: "/", method: "GET", hasRange: false))
        #expect(!port.matches(host: "cdn.example.com", path: "/", method: "GET", hasRange: false))
        let v6 = FaultMatch(host: "[::1]")
        #expect(v6.matches(host: "[::1]:8080", path: "/", method: "GET", hasRange: false))
        #expect(!FaultMatch(host: "[::1]:9090").matches(host: "[::1]:8080", path: "/", method: "GET", hasRange: false))
    }

    @Test func methodRangeAndAllKeysTogether() throws {
        let rule = try FaultRule(parsing: "host=cdn.example.com,path=*.ts,method=get,range=yes,nth=5,status=503")
        #expect(rule.match.matches(host: "cdn.example.com:443", path: "/a/1.ts", method: "GET", hasRange: true))
        #expect(!rule.match.matches(host: "cdn.example.com:443", path: "/a/1.ts", method: "HEAD", hasRange: true))
        #expect(!rule.match.matches(host: "cdn.example.com:443", path: "/a/1.ts", method: "GET", hasRange: false))
        #expect(!rule.match.matches(host: "cdn.example.com:443", path: "/a/1.m4s", method: "GET", hasRange: true))
        #expect(!rule.match.matches(host: "img.example.com:443", path: "/a/1.ts", method: "GET", hasRange: true))
        #expect(FaultMatch(range: false).matches(host: "h", path: "/", method: "GET", hasRange: false))
        #expect(!FaultMatch(range: false).matches(host: "h", path: "/", method: "GET", hasRange: true))
    }
}
