import Foundation
import RangeTapTestSupport
import Testing

/// What `rangetap record` tells the user to run must work when pasted.
@Suite(.serialized)
struct ListenAddressCLITests {
    /// `--listen ::1:PORT` used to suggest `curl -x http://::1:PORT`, which curl rejects.
    @Test(arguments: ["::1", "[::1]"])
    func ipv6ListenAddressIsSuggestedInBrackets(host: String) async throws {
        let port = try freePort()
        let path = Paths.temporaryDirectory("listen6") + "/l.rtap"
        let recorder = try TestProcess(Paths.rangetap, ["record", "--listen", "\(host):\(port)", "-o", path])
        defer { recorder.stop(signal: SIGINT) }
        let deadline = Date().addingTimeInterval(10)
        while !recorder.stderrText.contains("Ctrl-C"), Date() < deadline, recorder.process.isRunning {
            try await Task.sleep(for: .milliseconds(50))
        }
        let err = recorder.stderrText
        #expect(err.contains("forward proxy (curl -x http://[::1]:\(port)) on [::1]:\(port)"), "\(err)")
        #expect(!err.contains("http://::1"), "\(err)")
    }
}
