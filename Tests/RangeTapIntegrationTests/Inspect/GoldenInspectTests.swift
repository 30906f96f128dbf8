import Foundation
import RangeTapTestSupport
import Testing

/// `rangetap inspect` on the sample captures prints exactly the golden outputs
/// (`captures/golden/`, regenerated on purpose by `tools/update-golden.sh`).
@Suite
struct GoldenInspectTests {
    static let samples = ["avplayer-nginx", "ffmpeg-moov-at-end", "curl-ranges", "python-http-server"]

    @Test(arguments: GoldenInspectTests.samples)
    func textMatchesGolden(_ name: String) throws {
        let r = try runCommand(
            Paths.rangetap, ["inspect", "captures/\(name).rtap"],
            environment: ["NO_COLOR": "1", "PATH": "/usr/bin:/bin"], directory: Paths.root)
        #expect(r.status == 0, "\(r.stderr)")
        let golden = try String(contentsOfFile: Paths.root + "/captures/golden/\(name).inspect.txt", encoding: .utf8)
        #expect(
            r.text == golden,
            "inspect output differs from captures/golden/\(name).inspect.txt; run tools/update-golden.sh if the change is intended"
        )
    }

    @Test(arguments: GoldenInspectTests.samples)
    func jsonMatchesGoldenAndSchema(_ name: String) throws {
        let r = try runCommand(Paths.rangetap, ["inspect", "captures/\(name).rtap", "--json"], directory: Paths.root)
        #expect(r.status == 0, "\(r.stderr)")
        let golden = try Data(contentsOf: URL(fileURLWithPath: Paths.root + "/captures/golden/\(name).inspect.json"))
        #expect(r.stdout == golden)
        // The documented keys (docs/inspect-json.md) are there.
        let doc = try #require(try JSONSerialization.jsonObject(with: r.stdout) as? [String: Any])
        for key in ["schemaVersion", "capture", "exchanges", "findings", "resources", "connections", "summary"] {
            #expect(doc[key] != nil, "missing \(key)")
        }
        let exchanges = try #require(doc["exchanges"] as? [[String: Any]])
        #expect(!exchanges.isEmpty)
        for e in exchanges {
            for key in [
                "id", "connection", "method", "url", "status", "bytesDelivered", "chunks", "cancelled", "startMs",
                "findings",
            ] {
                #expect(e[key] != nil, "exchange missing \(key)")
            }
            for f in e["findings"] as? [[String: Any]] ?? [] {
                #expect(["info", "warn", "error"].contains(f["severity"] as? String ?? ""))
                #expect(f["code"] is String && f["message"] is String && f["evidence"] is [String])
            }
        }
    }

    @Test func pythonServerCaptureShowsTheIgnoredRange() throws {
        let golden = try String(
            contentsOfFile: Paths.root + "/captures/golden/python-http-server.inspect.txt", encoding: .utf8)
        #expect(golden.contains("range-ignored"))
        #expect(golden.contains("http10-response"))
    }
}
