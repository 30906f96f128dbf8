import RangeTapCore

extension CaptureHeader {
    /// A header for captures a test writes itself: bodies on, redacted, a fixed start time.
    public static let forTests = CaptureHeader(
        version: CaptureHeader.currentVersion, tool: "rangetap test", startedAt: "2026-01-02T03:04:05.678Z",
        bodies: true, redacted: true, listen: "127.0.0.1:8080", upstream: nil)
}
