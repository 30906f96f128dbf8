import Foundation
import Logging
import RangeTapProxy

/// Runs rangetap's recording proxy on 127.0.0.1 (a free port) while `body` runs, and stops it
/// afterwards (closing the capture), also when `body` throws (its error is rethrown). `body` gets
/// the proxy's URL, for a client's proxy setting, and the ``RecordingCapture`` to read.
///
/// ```swift
/// try await withRecordingProxy { proxyURL, capture in
///     // fetch http://127.0.0.1:ORIGIN/a.mp4 through proxyURL …
///     let exchanges = try await capture.exchanges()
///     #expect(exchanges.map(\.status) == [206])
/// }
/// ```
///
/// - Parameters:
///   - capture: where to write the capture (a `file:` URL of a `NAME.rtap` directory that does
///     not exist yet, kept afterwards); nil records into a temporary directory removed afterwards.
///   - configure: changes to the proxy's configuration (`upstream` for a reverse proxy,
///     `recordBodies`, `caDirectory` to intercept HTTPS, …); the listen address and the capture
///     path are set by this function.
///   - isolation: where `body` runs: the caller's actor, if any.
///   - body: the test; its result is returned.
public func withRecordingProxy<Result>(
    capture: URL? = nil,
    configure: (inout ProxyConfiguration) -> Void = { _ in },
    isolation: isolated (any Actor)? = #isolation,
    _ body: (_ proxyURL: URL, _ capture: RecordingCapture) async throws -> Result
) async throws -> Result {
    if let capture, !capture.isFileURL { throw RangeTapTestingError.notAFileURL(capture) }
    let directory: URL
    let temporary: URL?
    if let capture {
        directory = capture
        temporary = nil
    } else {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "rangetap-testing-\(UUID().uuidString)")
        directory = folder.appendingPathComponent("capture.rtap")
        temporary = folder
    }
    defer {
        if let temporary { try? FileManager.default.removeItem(at: temporary) }
    }
    var configuration = ProxyConfiguration(capturePath: directory.path)
    configure(&configuration)
    configuration.listenHost = "127.0.0.1"
    configuration.listenPort = 0
    configuration.capturePath = directory.path
    // The proxy logs nothing a test needs: its errors are thrown, its exchanges are in the capture.
    let proxy = try ProxyServer(
        configuration: configuration, logger: Logger(label: "rangetap.testing") { _ in SwiftLogNoOpLogHandler() })
    let result: Result
    do {
        let port = try await proxy.start()
        guard let proxyURL = URL(string: "http://127.0.0.1:\(port)") else {
            throw RangeTapTestingError.badAddress("127.0.0.1:\(port)")
        }
        result = try await body(proxyURL, RecordingCapture(directory: directory, proxy: proxy))
    } catch {
        await proxy.stop()
        throw error
    }
    await proxy.stop()
    return result
}
