import RangeTapCore
import Testing

@Suite("URLParts and URLAuthority")
struct URLPartsTests {
    @Test func absoluteFormSplitsIntoItsParts() throws {
        let p = URLParts("HTTPS://user:pw@Example.com:8443/a/b.mp4?x=1&y=2#frag")
        #expect(p.isAbsolute)
        #expect(p.scheme == "HTTPS")
        #expect(p.httpScheme == .https)
        #expect(p.authorityText == "user:pw@Example.com:8443")
        #expect(p.path == "/a/b.mp4")
        #expect(p.query == "x=1&y=2")
        #expect(p.fragment == "frag")
        #expect(p.originForm == "/a/b.mp4?x=1&y=2")
        let a = try #require(p.authority)
        #expect(a.userinfo == "user:pw")
        #expect(a.hostAndPort == "Example.com:8443")
        #expect(a.host == "Example.com")
        #expect(a.port == 8443)
        #expect(!a.isBracketed)
    }

    @Test func originFormHasNoAuthority() {
        let p = URLParts("/a.mp4?x=1")
        #expect(!p.isAbsolute)
        #expect(p.scheme == nil)
        #expect(p.authority == nil)
        #expect(p.path == "/a.mp4")
        #expect(p.query == "x=1")
        #expect(p.originForm == "/a.mp4?x=1")
    }

    @Test func aURLInTheQueryDoesNotMakeATargetAbsolute() {
        let p = URLParts("/go?to=http://evil.example/b")
        #expect(!p.isAbsolute)
        #expect(p.authority == nil)
        #expect(p.originForm == "/go?to=http://evil.example/b")
    }

    @Test func theAuthorityEndsAtSlashQueryOrFragment() {
        #expect(URLParts("http://h:1").authorityText == "h:1")
        #expect(URLParts("http://h:1").originForm == "/")
        #expect(URLParts("http://h?x=1").authorityText == "h")
        #expect(URLParts("http://h?x=1").originForm == "/?x=1")
        #expect(URLParts("http://h#f").authorityText == "h")
        #expect(URLParts("http://h#f").path == "")
        #expect(URLParts("http://h/a?b#c?d").query == "b")
    }

    @Test func ipv6LiteralsLoseTheirBrackets() throws {
        let a = try #require(URLParts("http://[::1]:8080/x").authority)
        #expect(a.host == "::1")
        #expect(a.isBracketed)
        #expect(a.port == 8080)
        #expect(a.hostAndPort == "[::1]:8080")
        let noPort = URLAuthority("[2001:db8::1]")
        #expect(noPort.host == "2001:db8::1")
        #expect(noPort.portText == nil)
        #expect(noPort.port(default: 443) == 443)
        #expect(URLAuthority.hostForURL("::1") == "[::1]")
        #expect(URLAuthority.hostForURL("example.com") == "example.com")
    }

    @Test func anUnbracketedIPv6AddressIsAllHost() {
        let a = URLAuthority("::1")
        #expect(a.host == "::1")
        #expect(a.portText == nil)
        #expect(a.port(default: 80) == 80)
    }

    @Test func aMissingPortIsTheSchemesDefault() {
        #expect(URLAuthority("example.com").port(default: 80) == 80)
        #expect(URLAuthority("example.com:").port(default: 443) == 443)
        #expect(URLAuthority("example.com:").portText == "")
        #expect(URLAuthority("example.com:").port == nil)
        #expect(!URLAuthority("example.com:").hasBadPort)
        #expect(URLAuthority("example.com:0").port == 0)
        #expect(URLAuthority("example.com:65535").port == 65535)
    }

    @Test(arguments: ["h:http", "h:99999", "h:-1", "h:+80", "h:8 0", "[::1]:x", "h:0000000080"])
    func aBadPortIsNoPort(authority: String) {
        let a = URLAuthority(authority)
        #expect(a.port == nil, "\(authority)")
        #expect(a.hasBadPort, "\(authority)")
        #expect(a.port(default: 80) == nil, "\(authority)")
    }

    @Test func userinfoEndsAtTheLastAt() {
        let a = URLAuthority("u@x:p@w@host:81")
        #expect(a.userinfo == "u@x:p@w")
        #expect(a.hostAndPort == "host:81")
        #expect(a.host == "host")
        #expect(a.port == 81)
        #expect(URLAuthority("host").userinfo == nil)
        #expect(URLAuthority("@host").userinfo == "")
    }

    @Test func textAfterTheClosingBracketThatIsNoPortIsIgnored() {
        let a = URLAuthority("[::1]junk")
        #expect(a.host == "::1")
        #expect(a.portText == nil)
    }

    @Test func aSchemeMustLookLikeOne() {
        #expect(URLParts("1http://h/").scheme == nil)
        #expect(URLParts("://h/").scheme == nil)
        #expect(URLParts("svn+ssh://h/").scheme == "svn+ssh")
        #expect(URLParts("svn+ssh://h/").httpScheme == nil)
    }
}

@Suite("HTTPScheme")
struct HTTPSchemeTests {
    @Test func httpAndHTTPSInAnyCase() {
        #expect(HTTPScheme(url: "http://a/") == .http)
        #expect(HTTPScheme(url: "HTTP://a/") == .http)
        #expect(HTTPScheme(url: "https://a/") == .https)
        #expect(HTTPScheme(url: "hTtPs://a") == .https)
        #expect(HTTPScheme(url: "https://a")?.defaultPort == 443)
        #expect(HTTPScheme(url: "http://a")?.defaultPort == 80)
    }

    /// Delimiters are read in the UTF-8 bytes, as a client or a server reads them: a combining
    /// mark after `@`, `:`, `/`, `?` or `#` (one Character with it) does not hide it.
    @Test func delimitersAreBytesNotCharacters() throws {
        let mark = "\u{301}"
        let p = URLParts("http://u@\(mark)h:8\(mark)0/p\(mark)?q\(mark)#f")
        #expect(p.authorityText == "u@\(mark)h:8\(mark)0")
        #expect(p.path == "/p\(mark)")
        #expect(p.query == "q\(mark)")
        #expect(p.fragment == "f")
        let a = try #require(p.authority)
        #expect(a.userinfo == "u")
        #expect(a.host.utf8.elementsEqual("\(mark)h".utf8))
        #expect(a.portText?.utf8.elementsEqual("8\(mark)0".utf8) == true)
        #expect(a.port == nil && a.hasBadPort)
        let bracketed = URLAuthority("[::1]:\(mark)80")
        #expect(bracketed.host == "::1" && bracketed.isBracketed)
        #expect(bracketed.port == nil && bracketed.hasBadPort)
        // A scheme is ASCII letters, digits, + - . only: é is a letter, but no scheme letter.
        #expect(URLParts("é://a/").scheme == nil)
        #expect(URLParts("a+b-c.9://h/").scheme == "a+b-c.9")
        #expect(URLParts("9a://h/").scheme == nil)
    }

    @Test(arguments: ["", "http", "http:", "http:/a", "https:a", "ftp://a/", "/a", "httpx://a", " http://a"])
    func otherTextIsNoHTTPURL(text: String) {
        #expect(HTTPScheme(url: text) == nil)
        #expect(!HTTPScheme.isHTTP(text))
    }
}

@Suite("HTTPScheme on bytes")
struct HTTPSchemeByteTests {
    @Test func aSchemeIsReadOffTheUTF8BytesOfAnyStringProtocol() {
        let text = "xxHTTPS://host/a"
        #expect(HTTPScheme(url: text.dropFirst(2)) == .https)
        #expect(HTTPScheme(url: "http://é/") == .http)
        #expect(HTTPScheme(url: "htt\u{FF}://a") == nil)
        #expect(HTTPScheme(url: "https:/") == nil)
        #expect(HTTPScheme(url: "https:/x") == nil)
    }
}
