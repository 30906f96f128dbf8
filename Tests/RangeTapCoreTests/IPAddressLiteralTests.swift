import RangeTapCore
import Testing

@Suite("IPAddressLiteral")
struct IPAddressLiteralTests {
    @Test(arguments: [
        "127.0.0.1", "127.1", "127.0.0.2", "2130706433", "0x7f000001", "0177.0.0.1", "::1", "[::1]",
        "[::ffff:127.0.0.1]", "::ffff:7f00:1", "0:0:0:0:0:0:0:1",
    ])
    func loopbackInEveryNumericSpelling(text: String) throws {
        let a = try #require(IPAddressLiteral(text))
        #expect(a.isLoopback)
        #expect(!a.isUnspecified)
    }

    @Test(arguments: ["0.0.0.0", "0", "::", "[::]", "::ffff:0.0.0.0"])
    func unspecifiedAddresses(text: String) throws {
        let a = try #require(IPAddressLiteral(text))
        #expect(a.isUnspecified)
        #expect(!a.isLoopback)
    }

    @Test(arguments: [
        "127.example.com", "localhost", "example.com", "", "127.0.0.1 evil", "127.0.0.1\nx", "[127.0.0.1", "1.2.3.4.5",
        "::ffff:zz",
    ])
    func namesAndGarbageAreNotLiterals(text: String) {
        #expect(IPAddressLiteral(text) == nil)
    }

    @Test func otherAddressesAreNeither() throws {
        for text in ["10.0.0.1", "128.0.0.1", "::2", "2001:db8::1", "::ffff:10.0.0.1"] {
            let a = try #require(IPAddressLiteral(text))
            #expect(!a.isLoopback, "\(text)")
            #expect(!a.isUnspecified, "\(text)")
        }
        #expect(IPAddressLiteral("2130706433")?.description == "127.0.0.1")
        #expect(IPAddressLiteral("[::ffff:127.0.0.1]")?.ipv4 == [127, 0, 0, 1])
    }

    /// The old check took any host starting with "127." for loopback, so
    /// `--listen 127.example.com:8080` (a name that may resolve anywhere) was not refused.
    @Test func loopbackHostIsParsedNotPrefixMatched() {
        #expect(!IPAddressLiteral.isLoopbackHost("127.example.com"))
        #expect(!IPAddressLiteral.isLoopbackHost("127.0.0.1.nip.io"))
        #expect(IPAddressLiteral.isLoopbackHost("127.0.0.1"))
        #expect(IPAddressLiteral.isLoopbackHost("127.3.2.1"))
        #expect(IPAddressLiteral.isLoopbackHost("::1"))
        #expect(IPAddressLiteral.isLoopbackHost("LocalHost"))
        #expect(IPAddressLiteral.isLoopbackHost("localhost."))
        #expect(!IPAddressLiteral.isLoopbackHost("evil.localhost"))
        #expect(!IPAddressLiteral.isLoopbackHost("0.0.0.0"))
        #expect(!IPAddressLiteral.isLoopbackHost("10.1.2.3"))
    }
}
