import Foundation
@testable import RangeTapProxy
import Testing

/// `--proxy-auth USER:PASS` and the `Proxy-Authorization` values it accepts.
@Suite struct ProxyCredentialsTests {
    @Test func parsingAndAcceptance() throws {
        let c = try ProxyCredentials(parsing: "player:pa:ss")
        #expect(c.user == "player" && c.password == "pa:ss")
        let token = Data("player:pa:ss".utf8).base64EncodedString()
        #expect(c.accepts("Basic \(token)"))
        #expect(c.accepts("basic  \(token)"))
        #expect(!c.accepts(nil))
        #expect(!c.accepts("Bearer \(token)"))
        #expect(!c.accepts("Basic " + Data("player:pass".utf8).base64EncodedString()))
        #expect(!c.accepts("Basic \(token)x"))
        #expect(!"\(c)".contains("pa:ss"), "the password is never in a description")
    }

    @Test(arguments: ["", ":pass", "user:", "user", "us\u{7}er:pass"])
    func badCredentialsAreRefused(_ text: String) {
        #expect(throws: ProxyCredentials.ParseError.self) { try ProxyCredentials(parsing: text) }
    }

    @Test func generatedCredentialsDiffer() {
        let a = ProxyCredentials.generate(), b = ProxyCredentials.generate()
        #expect(a.user == "rangetap" && a.password.count == 20 && a.password != b.password)
    }
}
