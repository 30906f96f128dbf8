import RangeTapProxy
import RangeTapTestSupport
import Testing

/// The capture writer's backlog is what the configuration says: 2 MiB when bodies go to disk,
/// 1 MiB when they are only hashed, or the configured figure (docs/performance.md, "What a
/// transfer holds").
@Suite struct CaptureBacklogTests {
    @Test(
        arguments: [(true, nil, 2 << 20), (false, nil, 1 << 20), (true, 3 << 20, 3 << 20), (false, 64 << 10, 64 << 10)]
            as [(Bool, Int?, Int)])
    func theWriterGetsItsConfigurationsBacklog(bodies: Bool, configured: Int?, expected: Int) async throws {
        let harness = try await ProxyHarness {
            $0.recordBodies = bodies
            $0.captureBacklogBytes = configured
        }
        #expect(harness.server.captureBacklog == expected)
        _ = try await harness.stopAndRead()
    }
}
