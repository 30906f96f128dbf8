import NIOHTTP1
@testable import RangeTapProxy
import Testing

/// Which requests are meant for rangetap itself (the CA page at `rangetap.invalid`): read on bytes, as every
/// request passes the check.
@Suite("LinkControlRequest.isReservedHost")
struct LinkControlRequestTests {
    static func head(_ uri: String, host: String? = nil) -> HTTPRequestHead {
        var h = HTTPRequestHead(version: .http1_1, method: .GET, uri: uri)
        if let host { h.headers.add(name: "Host", value: host) }
        return h
    }

    @Test(arguments: [
        ("http://rangetap.invalid/shape", nil as String?),
        ("HTTP://RangeTap.INVALID/shape?rate=1m", nil),
        ("http://rangetap.invalid", nil),
        ("/shape", "rangetap.invalid"),
        ("/shape", "RANGETAP.invalid:80"),
        ("/shape", "user@rangetap.invalid"),
    ])
    func meantForRangetap(uri: String, host: String?) {
        #expect(LinkControlRequest.isReservedHost(Self.head(uri, host: host)))
    }

    @Test(arguments: [
        ("http://rangetap.invalidx/shape", nil as String?),
        ("http://rangetap.invalid.example/", nil),
        ("http://example.com/shape", "rangetap.invalid"),
        ("/shape", nil),
        ("/shape", "example.com"),
        ("/shape", "rangetap.invalid.example.com"),
        ("/shape", "xrangetap.invalid"),
        ("/shape", "rangetap"),
    ])
    func meantForAnOrigin(uri: String, host: String?) {
        #expect(!LinkControlRequest.isReservedHost(Self.head(uri, host: host)))
    }
}
