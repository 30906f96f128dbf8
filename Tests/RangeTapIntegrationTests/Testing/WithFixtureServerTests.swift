import Foundation
import RangeTapCore
import RangeTapReplay
import RangeTapTestSupport
import RangeTapTesting
import Testing

/// `withFixtureServer`: serves a capture for the body, logs what it answered, and is stopped
/// afterwards, also when the body throws.
@Suite(.serialized)
struct WithFixtureServerTests {
    static let capture = Paths.root + "/captures/curl-ranges.rtap"

    /// The bytes the capture holds for the exchange that asked `range` of `path`.
    func recordedBody(path: String, range: String) throws -> Data {
        let reader = try CaptureReader(path: Self.capture)
        var log = ExchangeLog()
        try reader.forEachEvent { _ = log.apply($0) }
        let exchange = try #require(log.records.first { $0.path == path && $0.requestRange == range })
        var data = Data()
        for chunk in exchange.chunks { data.append(try reader.bytes(of: chunk)) }
        return data
    }

    @Test(arguments: [FixtureServer.Mode.ideal, .faithful])
    func aRangeRequestGetsTheCapturedBytesAndIsLogged(mode: FixtureServer.Mode) async throws {
        let expected = try recordedBody(path: "/moov-at-end.mp4", range: "bytes=100-199")
        #expect(expected.count == 100)
        try await withFixtureServer(capture: URL(fileURLWithPath: Self.capture), mode: mode, speed: 0) {
            baseURL, fixture in
            #expect(baseURL.absoluteString == "http://127.0.0.1:\(fixture.port)")
            let (status, body) = try await Loopback.get(
                baseURL.appendingPathComponent("moov-at-end.mp4"), range: "bytes=100-199")
            #expect(status == 206)
            #expect(body == expected)
            let logged = await fixture.requests
            #expect(
                logged == [
                    ServedRequest(
                        method: "GET", path: "/moov-at-end.mp4", range: "bytes=100-199", status: 206, bodyBytes: 100,
                        isComplete: true)
                ])
            #expect(
                await fixture.requests(matching: RequestPattern(path: "/moov-at-end.mp4", range: "bytes=100-199")).count
                    == 1)
            #expect(await fixture.requests(matching: RequestPattern(range: "bytes=0-1")).isEmpty)
        }
    }

    @Test func theLogKeepsEveryRequestInOrder() async throws {
        try await withFixtureServer(capture: Self.capture, mode: .ideal) { baseURL, fixture in
            let url = baseURL.appendingPathComponent("moov-at-end.mp4")
            _ = try await Loopback.get(url, range: "bytes=0-1")
            _ = try await Loopback.get(url, range: "bytes=0-1")
            _ = try await Loopback.get(baseURL.appendingPathComponent("nothing-here.mp4"))
            let logged = await fixture.requests
            #expect(
                logged.map(\.description) == [
                    "GET /moov-at-end.mp4 range=bytes=0-1 -> 206 2 B",
                    "GET /moov-at-end.mp4 range=bytes=0-1 -> 206 2 B",
                    "GET /nothing-here.mp4 -> 404 \(logged.last?.bodyBytes ?? 0) B",
                ])
            #expect(await fixture.requests(matching: RequestPattern(method: "GET", status: 206)).count == 2)
            #expect(fixture.traffic.requests == 3)
        }
    }

    @Test func theServerIsStoppedAfterTheBody() async throws {
        let port = try await withFixtureServer(capture: Self.capture, mode: .ideal) { _, fixture in
            #expect(Loopback.accepts(port: fixture.port))
            return fixture.port
        }
        #expect(!Loopback.accepts(port: port))
    }

    @Test func theServerIsStoppedWhenTheBodyThrowsAndTheErrorPropagates() async throws {
        let port = SeenPort()
        await #expect(throws: DeliberateFailure.self) {
            try await withFixtureServer(capture: Self.capture, mode: .faithful) { _, fixture in
                port.set(fixture.port)
                #expect(Loopback.accepts(port: fixture.port))
                throw DeliberateFailure()
            }
        }
        #expect(port.value > 0)
        #expect(!Loopback.accepts(port: port.value))
    }

    @Test func aMissingCaptureSaysWhatToPass() async throws {
        let error = await #expect(throws: RangeTapTestingError.self) {
            try await withFixtureServer(capture: "no/such/capture.rtap") { _, _ in }
        }
        #expect(error?.description.contains("no capture directory at no/such/capture.rtap") == true)
        #expect(error?.description.contains("#filePath") == true)
        await #expect(throws: RangeTapTestingError.notAFileURL(URL(string: "http://example.invalid/a.rtap")!)) {
            try await withFixtureServer(capture: URL(string: "http://example.invalid/a.rtap")!) { _, _ in }
        }
    }
}
