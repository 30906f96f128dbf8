import Foundation
import RangeTapCore
import RangeTapProxy
import RangeTapTestSupport
import Testing

/// A fault rule's `host=` with a port matches requests to that port only; without a port, any.
@Suite(.serialized)
struct FaultHostPortTests {
    @Test func aHostRuleWithAPortMatchesThatPortOnly() async throws {
        let dir = Paths.temporaryDirectory("fault-host")
        try Data(repeating: 1, count: 100).write(to: URL(fileURLWithPath: dir + "/a.bin"))
        let nginx = try NginxServer(root: dir)
        defer { nginx.stop() }
        let rules = try [
            "host=127.0.0.1:\(nginx.port),path=/a.bin,nth=1,status=503", "host=127.0.0.1:1,status=504",
            "host=127.0.0.1,path=/a.bin,nth=2,status=502",
        ].map { try FaultRule(parsing: $0) }
        let proxy = try await ProxyHarness { $0.faultRules = rules }
        var codes: [String] = []
        for _ in 0..<3 {
            codes.append(
                try runCommand(
                    try Paths.tool("curl"),
                    [
                        "-s", "--noproxy", "", "-x", proxy.url, "-o", "/dev/null", "-w", "%{http_code}",
                        nginx.url("a.bin"),
                    ]
                ).text)
        }
        _ = try await proxy.stopAndRead()
        #expect(
            codes == ["503", "502", "200"],
            "the port rule fired on the 1st request, the port-less one on the 2nd, the other port never")
    }
}
