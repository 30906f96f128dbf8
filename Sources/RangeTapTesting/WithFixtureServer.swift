import Foundation
import RangeTapReplay

/// Serves a capture as an HTTP/1.1 origin on 127.0.0.1 (a free port) while `body` runs, as
/// `rangetap serve` does, and stops it afterwards, also when `body` throws (its error is
/// rethrown). `body` gets the base URL and a ``ServedFixture`` whose request log says what
/// clients asked and got.
///
/// ```swift
/// try await withFixtureServer(capture: capturePath, mode: .ideal) { baseURL, fixture in
///     var request = URLRequest(url: baseURL.appendingPathComponent("moov-at-end.mp4"))
///     request.setValue("bytes=0-1", forHTTPHeaderField: "Range")
///     let (data, _) = try await URLSession.shared.data(for: request)
///     #expect(data.count == 2)
///     #expect(await fixture.requests(matching: RequestPattern(range: "bytes=0-1")).first?.status == 206)
/// }
/// ```
///
/// - Parameters:
///   - capture: a `file:` URL of a `NAME.rtap` capture directory recorded with bodies.
///   - mode: `.faithful` replays each recorded exchange byte for byte (heads as recorded, chunks
///     at the recorded pace, drops and cancels); an unknown request gets a 404 listing what the
///     capture has. `.ideal` serves the captured bytes of each resource with RFC 9110 range
///     handling (200, 206, multipart/byteranges, 416, HEAD).
///   - speed: pacing of `.faithful`: 1 as recorded, 2 twice as fast, 0 without pauses.
///   - isolation: where `body` runs: the caller's actor, if any.
///   - body: the test; its result is returned.
public func withFixtureServer<Result>(
    capture: URL,
    mode: FixtureServer.Mode = .faithful,
    speed: Double = 1,
    isolation: isolated (any Actor)? = #isolation,
    _ body: (_ baseURL: URL, _ fixture: ServedFixture) async throws -> Result
) async throws -> Result {
    guard capture.isFileURL else { throw RangeTapTestingError.notAFileURL(capture) }
    return try await withFixtureServer(capture: capture.path, mode: mode, speed: speed, isolation: isolation, body)
}

/// Serves the capture at the path `capture` while `body` runs: see the `URL` variant
/// `withFixtureServer(capture:mode:speed:isolation:_:)`. A relative path is resolved against the current
/// directory (the package root under `swift test`).
public func withFixtureServer<Result>(
    capture: String,
    mode: FixtureServer.Mode = .faithful,
    speed: Double = 1,
    isolation: isolated (any Actor)? = #isolation,
    _ body: (_ baseURL: URL, _ fixture: ServedFixture) async throws -> Result
) async throws -> Result {
    var isDirectory: ObjCBool = false
    guard FileManager.default.fileExists(atPath: capture, isDirectory: &isDirectory), isDirectory.boolValue else {
        throw RangeTapTestingError.noCapture(capture)
    }
    let server = try FixtureServer(
        capturePath: capture, mode: mode, host: "127.0.0.1", port: 0, speed: speed, logsRequests: true)
    let result: Result
    do {
        let port = try await server.start()
        guard let baseURL = URL(string: "http://127.0.0.1:\(port)") else {
            throw RangeTapTestingError.badAddress("127.0.0.1:\(port)")
        }
        result = try await body(baseURL, ServedFixture(server: server, baseURL: baseURL))
    } catch {
        await server.stop()
        throw error
    }
    await server.stop()
    return result
}
