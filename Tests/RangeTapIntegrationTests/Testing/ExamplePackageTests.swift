import Foundation
import RangeTapTestSupport
import Testing

/// The example package of docs/testing.md (`Examples/FixtureTests`): the doc shows its files as
/// they are, and it builds as a package of its own against this checkout and passes its tests.
@Suite(.serialized)
struct ExamplePackageTests {
    static let example = Paths.root + "/Examples/FixtureTests"

    /// The example's files (path relative to the example, contents), build folders left out.
    func exampleFiles() throws -> [(path: String, text: String)] {
        let root = URL(fileURLWithPath: Self.example).standardizedFileURL
        let found = FileManager.default.enumerator(
            at: root, includingPropertiesForKeys: [.isRegularFileKey], options: [.skipsHiddenFiles])
        let files = try #require(found?.allObjects as? [URL])
        return
            try files
            .filter {
                try $0.resourceValues(forKeys: [.isRegularFileKey]).isRegularFile == true
                    && $0.lastPathComponent != "Package.resolved"
            }
            .map {
                (
                    String($0.standardizedFileURL.path.dropFirst(root.path.count + 1)),
                    try String(contentsOf: $0, encoding: .utf8)
                )
            }
            .sorted { $0.0 < $1.0 }
    }

    @Test func theDocShowsEveryFileOfTheExampleVerbatim() throws {
        let doc = try String(contentsOfFile: Paths.root + "/docs/testing.md", encoding: .utf8)
        let files = try exampleFiles()
        #expect(files.map(\.path) == ["Package.swift", "Tests/FixtureTestsTests/MovieFetchTests.swift"])
        for file in files {
            #expect(doc.contains("`Examples/FixtureTests/\(file.path)`"), "docs/testing.md does not name \(file.path)")
            #expect(
                doc.contains("```swift\n" + file.text + "```\n"),
                "docs/testing.md does not show \(file.path) as it is in Examples/FixtureTests: copy the file into the doc"
            )
        }
    }

    /// Builds the example with `swift build` as a package of its own, its dependency on
    /// rangetap pointed at this checkout, and runs its tests.
    ///
    /// It shares this checkout's build folder (`.build`): the packages rangetap depends on are
    /// already checked out and compiled there with the same commands, so only the example's
    /// target is compiled (a build folder of its own would compile swift-nio, swift-nio-http2 and
    /// the rest again: minutes). `RANGETAP_EXAMPLE_SCRATCH=DIR` builds in DIR instead.
    @Test(.timeLimit(.minutes(30)))
    func theExamplePackageBuildsAndPassesItsTests() throws {
        let layout = Paths.temporaryDirectory("example")
        defer { try? FileManager.default.removeItem(atPath: layout) }
        let package = layout + "/FixtureTests"
        try FileManager.default.copyItem(atPath: Self.example, toPath: package)
        // The example finds its capture in the rangetap checkout beside it.
        try FileManager.default.createSymbolicLink(atPath: layout + "/rangetap", withDestinationPath: Paths.root)
        // The dependency points at the checkout itself (not through the link), so its sources
        // have the paths this checkout's build compiled them from; its package identity is then
        // the checkout's folder name.
        let identity = URL(fileURLWithPath: Paths.root).lastPathComponent
        var manifest = try String(contentsOfFile: package + "/Package.swift", encoding: .utf8)
        #expect(manifest.contains(#".package(path: "../rangetap")"#) && manifest.contains(#"package: "rangetap")"#))
        manifest =
            manifest
            .replacingOccurrences(of: #".package(path: "../rangetap")"#, with: ".package(path: \"\(Paths.root)\")")
            .replacingOccurrences(of: #"package: "rangetap")"#, with: "package: \"\(identity)\")")
        try manifest.write(toFile: package + "/Package.swift", atomically: true, encoding: .utf8)
        // The same versions of rangetap's dependencies as this checkout's build.
        if FileManager.default.fileExists(atPath: Paths.root + "/Package.resolved") {
            try FileManager.default.copyItem(
                atPath: Paths.root + "/Package.resolved", toPath: package + "/Package.resolved")
        }
        let scratch = ProcessInfo.processInfo.environment["RANGETAP_EXAMPLE_SCRATCH"] ?? (Paths.root + "/.build")
        // `swift test` running this suite holds the lock of `.build`: the example's build does
        // not wait for it, and writes only its own outputs there.
        let common = ["--scratch-path", scratch, "--ignore-lock"]
        let started = Date()
        // One `swift test` builds the example and runs its tests (one resolution and one
        // planning, not two).
        let test = try runCommand(try Paths.tool("swift"), ["test"] + common, directory: package, timeout: 1500)
        let output = String(decoding: test.stdout, as: UTF8.self) + test.stderr
        #expect(test.status == 0, "the example failed to build or its tests failed:\n\(output.suffix(6000))")
        #expect(
            output.contains("Test run with 3 tests") && output.contains("passed"),
            "the example did not run its 3 tests:\n\(output.suffix(3000))")
        print(
            "example package: swift test (build and run) \(Int(Date().timeIntervalSince(started)))s (scratch \(scratch))"
        )
    }
}
