import Foundation
import RangeTapCore
import RangeTapProxy
import RangeTapTestSupport
import Testing

/// `--fault` over HTTP/2 (curl `--http2` through the intercepting proxy to nginx `http2`): a cut
/// resets only its stream, the connection carries on with the next ones; `status=` answers a
/// stream without asking the origin.
@Suite(.serialized)
struct PlayerLabHTTP2Tests {
    let dir: String
    let file: Data
    let tls: TestTLS
    let h2: NginxServer

    init() throws {
        dir = Paths.temporaryDirectory("lab-h2")
        file = Data((0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 2_654_435_761 >> 13) })
        try file.write(to: URL(fileURLWithPath: dir + "/f.bin"))
        tls = try TestTLS.shared()
        h2 = try NginxServer(root: dir, tls: (certificate: tls.certificate, key: tls.key), http2: true)
    }

    @Test func aResetAfterFaultResetsOneStreamAndTheConnectionGoesOn() async throws {
        let rules = ["range=yes,nth=1,reset-after=50000", "range=yes,nth=3,status=503"].map {
            try! FaultRule(parsing: $0)
        }
        let proxy = try await tls.interceptingProxy { $0.faultRules = rules }
        let origin = "https://127.0.0.1:\(h2.port)/f.bin"
        let common =
            ["-x", proxy.url] + proxy.curlTrust + [
                "--http2", "-o", "/dev/null", "-w", "%{http_version} %{http_code} %{size_download} %{num_connects}\\n",
            ]
        let r = try runCommand(
            try Paths.tool("curl"),
            ["-s", "--noproxy", ""] + common + ["-r", "0-199999", origin, "--next"] + common + [
                "-r", "100-199", origin, "--next",
            ] + common + ["-r", "300-399", origin])
        let lines = r.text.split(separator: "\n").map(String.init)
        #expect(lines.count == 3, "\(r.text) \(r.stderr)")
        #expect(lines.first?.hasPrefix("2 206 50000 ") == true, "\(lines)")
        #expect(lines.dropFirst().first == "2 206 100 0", "the next stream on the same connection: \(lines)")
        #expect(lines.last?.hasPrefix("2 503 ") == true && lines.last?.hasSuffix(" 0") == true, "\(lines)")
        let capture = try await proxy.stopAndRead()
        let faults = capture.events("fault").compactMap { if case .fault(let f) = $0 { f } else { nil } }
        #expect(faults.map(\.action) == ["reset-after", "status"])
        let requests = capture.requests
        #expect(requests.count == 3 && requests.allSatisfy { $0.requestVersion == "HTTP/2" })
        guard case .failed(let message) = requests.first?.outcome else {
            Issue.record("\(String(describing: requests.first?.outcome))")
            return
        }
        #expect(message.contains("reset the stream after 50000 body bytes"))
        #expect(requests[1].outcome == .complete && !requests[1].injected)
        #expect(requests[2].status == 503 && requests[2].injected)
    }
}
