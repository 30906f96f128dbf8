import RangeTapCore
import Testing

@Suite("URLRedaction")
struct URLRedactionTests {
    @Test(arguments: [
        ("http://user:pw@host/a", "http://user:<redacted>@host/a"),
        ("https://user:p%40ss:x@cdn.example.com:8443/v?x=1#f", "https://user:<redacted>@cdn.example.com:8443/v?x=1#f"),
        ("http://user:pw@host", "http://user:<redacted>@host"),
        ("HTTP://u:@host/", "HTTP://u:<redacted>@host/"),
        ("http://:pw@[::1]:8080/", "http://:<redacted>@[::1]:8080/"),
        ("http://user:p@ss@host/", "http://user:<redacted>@host/"),
    ])
    func passwordsAreReplaced(url: String, expected: String) {
        #expect(URLRedaction.redactingUserinfo(url) == expected)
        // Idempotent: a redacted URL stays as it is.
        #expect(URLRedaction.redactingUserinfo(expected) == expected)
    }

    @Test(arguments: [
        "http://host/a", "http://user@host/a", "/origin/form?x=a:b@c", "host:443", "http://host/p?u=a:b@c",
        "http://host/#a:b@c", "not a url", "",
    ])
    func urlsWithoutAPasswordAreUnchanged(url: String) {
        #expect(URLRedaction.redactingUserinfo(url) == url)
    }

    @Test func keepSecretsKeepsThem() {
        #expect(URLRedaction.redactingUserinfo("http://u:pw@h/", if: false) == "http://u:pw@h/")
        #expect(URLRedaction.redactingUserinfo("http://u:pw@h/", if: true) == "http://u:<redacted>@h/")
    }

    @Test func everyURLInAMessageIsRedacted() {
        let message = "request for http://a:one@127.0.0.1:8080/x points at \"https://b:two@h/\"; see http://plain/"
        #expect(
            URLRedaction.redactingURLPasswords(inText: message)
                == "request for http://a:<redacted>@127.0.0.1:8080/x points at \"https://b:<redacted>@h/\"; see http://plain/"
        )
        #expect(URLRedaction.redactingURLPasswords(inText: "no urls: a:b@c") == "no urls: a:b@c")
    }
}
