import Foundation
import RangeTapCore
import RangeTapTestSupport
import Testing

/// An origin that advertises HTTP/3 (nginx adding `Alt-Svc: h3=":443"`): inspect says once that
/// the capture shows the client's TCP fallback; an origin that does not gets no such note.
@Suite(.serialized)
struct AltSvcTests {
    @Test(.timeLimit(.minutes(1)))
    func anOriginAdvertisingHTTP3IsNotedOnceAndOthersNever() async throws {
        let www = Paths.temporaryDirectory("alt-svc")
        try Data(repeating: 7, count: 1000).write(to: URL(fileURLWithPath: www + "/a.bin"))
        let h3 = try NginxServer(root: www, extraServerConfig: #"add_header Alt-Svc 'h3=":443"; ma=86400' always;"#)
        defer { h3.stop() }
        let plain = try NginxServer(root: www)
        defer { plain.stop() }
        let proxy = try await ProxyHarness()
        let curl = try Paths.tool("curl")
        for url in [h3.url("a.bin"), h3.url("a.bin"), plain.url("a.bin")] {
            let r = try runCommand(curl, ["-sS", "-o", "/dev/null", "-x", proxy.url, url])
            #expect(r.status == 0, "\(r.stderr)")
        }
        _ = try await proxy.stopAndRead()
        let analysis = try CaptureAnalysis.analyze(path: proxy.capturePath)
        let notes = analysis.allFindings.filter { $0.code == "alt-svc-h3" }
        #expect(notes.count == 1, "\(notes)")
        #expect(notes.first?.exchange == analysis.exchanges.first?.record.id)
        #expect(notes.first?.message.contains("127.0.0.1:\(h3.port) advertises HTTP/3") == true, "\(notes)")
        #expect(notes.first?.evidence.first?.contains(#"h3=":443""#) == true)
    }
}
