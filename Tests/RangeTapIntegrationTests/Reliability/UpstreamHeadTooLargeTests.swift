import Foundation
import RangeTapCore
import RangeTapTestSupport
import Testing

/// An upstream whose head libcurl refuses (a 10 MB header line) is reported as a head too
/// large, not as libcurl's "Out of memory".
@Suite(.serialized)
struct UpstreamHeadTooLargeTests {
    @Test(.timeLimit(.minutes(1))) func tenMegabyteHeaderLineIsNamedAsAnOversizedHead() async throws {
        let origin = try QuirkOrigin(size: 1024)
        defer { origin.stop() }
        let proxy = try await ProxyHarness()
        let r = try runCommand(
            try Paths.tool("curl"), ["-s", "--noproxy", "", "-x", proxy.url, "-D", "-", origin.url("/huge-header")])
        let capture = try await proxy.stopAndRead()
        #expect(r.text.hasPrefix("HTTP/1.1 502"), "\(r.text.prefix(300))")
        let error = try #require(
            capture.events.compactMap { if case .error(let e) = $0, e.exchange != nil { e } else { nil } }.first)
        let code = try #require(error.curlCode)
        // libcurl's own words, as the event carries them today: "upstream failed: MESSAGE (curl error N)".
        var said = error.message
        if said.hasPrefix("upstream failed: ") { said.removeFirst("upstream failed: ".count) }
        if let suffix = said.range(of: " (curl error \(code))", options: .backwards) { said.removeSubrange(suffix) }
        let text = UpstreamFailure.describe(curlCode: code, message: said, headReceived: false)
        #expect(text.hasPrefix("the upstream's response head is larger than libcurl accepts"), "\(code) \(said)")
        #expect(error.message.contains("larger than libcurl accepts"))
    }
}
