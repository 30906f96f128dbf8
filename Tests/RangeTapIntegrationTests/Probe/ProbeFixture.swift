import Foundation
import RangeTapProbe
import RangeTapTestSupport
import Testing

/// Helpers shared by the probe's integration tests.
enum ProbeFixture {
    /// A directory holding `name` with `size` pseudo-random bytes (a fixed seed: the same bytes every run).
    static func directory(file name: String, size: Int) throws -> String {
        let dir = Paths.temporaryDirectory("probe")
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        var bytes = [UInt8](repeating: 0, count: size)
        for i in bytes.indices {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            bytes[i] = UInt8(truncatingIfNeeded: state >> 33)
        }
        try Data(bytes).write(to: URL(fileURLWithPath: dir + "/" + name))
        return dir
    }

    /// Probes `url` with a short timeout.
    static func probe(_ url: String, timeout: Double = 5) async throws -> ProbeReport {
        try await Prober.run(ProbeOptions(url: url, timeoutSeconds: timeout))
    }
}

extension ProbeReport {
    /// Id → result of every check, for failure messages.
    var table: String {
        checks.map { "\($0.result.rawValue) \($0.id): \($0.message)" }.joined(separator: "\n")
    }
}
