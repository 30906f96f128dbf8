import Foundation
import RangeTapTestSupport
import Testing

/// Conventions every command follows: `-p PORT`, a taken port said plainly with nothing left
/// behind, sizes and durations parsed alike, `--color`, and help without doubled defaults.
@Suite(.serialized)
struct CLIConventionsTests {
    /// A real listener holding a port: python's http.server.
    func heldPort() throws -> (server: PythonHTTPServer, port: Int) {
        let server = try PythonHTTPServer(root: Paths.temporaryDirectory("held"))
        return (server, server.port)
    }

    /// `record -o` makes the capture directory, never its missing parents (issue 39).
    @Test func recordRefusesAMissingParentDirectory() throws {
        let root = Paths.temporaryDirectory("no-parent")
        let path = root + "/missing/deeper/x.rtap"
        let r = try runCommand(Paths.rangetap, ["record", "-p", "0", "-o", path, "--no-intercept", "*"], timeout: 30)
        #expect(r.status == 2, "\(r.stderr)")
        #expect(r.stderr.contains("the directory \(root)/missing/deeper does not exist"), "\(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: root + "/missing"), "nothing was created")
    }

    @Test func aTakenPortIsSaidPlainlyAndLeavesNoCaptureBehind() throws {
        let (server, port) = try heldPort()
        defer { server.stop() }
        let dir = Paths.temporaryDirectory("bind")
        for args in [["-p", String(port)], ["--listen", "127.0.0.1:\(port)"]] {
            let path = dir + "/taken-\(args[0]).rtap"
            let r = try runCommand(
                Paths.rangetap, ["record"] + args + ["-o", path, "--no-intercept", "*"], timeout: 30)
            #expect(r.status == 2)
            #expect(
                r.stderr.contains("127.0.0.1:\(port) is already in use (another rangetap or server?)"), "\(r.stderr)")
            #expect(r.stderr.contains("-p PORT"), "\(r.stderr)")
            for word in ["NIO", "IOError", "errno", "bind(descriptor"] {
                #expect(!r.stderr.contains(word), "\(r.stderr)")
            }
            #expect(!FileManager.default.fileExists(atPath: path), "no capture directory is left behind")
        }
        // A directory that existed (empty) is left as it was: there, and empty.
        let existing = dir + "/existing.rtap"
        try FileManager.default.createDirectory(atPath: existing, withIntermediateDirectories: true)
        let r = try runCommand(
            Paths.rangetap, ["record", "-p", String(port), "-o", existing, "--no-intercept", "*"], timeout: 30)
        #expect(r.status == 2)
        #expect(try FileManager.default.contentsOfDirectory(atPath: existing).isEmpty)
        // serve says the same.
        let serve = try runCommand(
            Paths.rangetap, ["serve", Paths.root + "/captures/curl-ranges.rtap", "-p", String(port)], timeout: 30)
        #expect(serve.status == 2)
        #expect(serve.stderr.contains("cannot listen on 127.0.0.1:\(port): it is already in use"), "\(serve.stderr)")
        #expect(!serve.stderr.contains("errno"), "\(serve.stderr)")
    }

    @Test func recordListensOnDashPAndTakesSizes() async throws {
        let port = try freePort()
        let path = Paths.temporaryDirectory("dashp") + "/p.rtap"
        let recorder = try TestProcess(
            Paths.rangetap,
            [
                "record", "-p", String(port), "-o", path, "--no-intercept", "*", "--client-sndbuf", "16k",
                "--buffer-pool", "2m", "-v",
            ])
        defer { recorder.stop(signal: SIGINT) }
        try waitForPort(port)
        let origin = try QuirkOrigin(size: 4096)
        defer { origin.stop() }
        let r = try runCommand(
            try Paths.tool("curl"),
            [
                "-s", "--noproxy", "", "-x", "http://127.0.0.1:\(port)", "-o", "/dev/null", "-w", "%{http_code}",
                origin.url("/normal"),
            ])
        #expect(r.text == "200")
        recorder.stop(signal: SIGINT)
        let capture = try RecordedCapture(path: path)
        #expect(capture.requests.count == 1)
        #expect(recorder.stderrText.contains("on 127.0.0.1:\(port)"), "\(recorder.stderrText)")
        #expect(recorder.stderrText.contains("listening"), "-v logs at debug: \(recorder.stderrText)")

        let both = try runCommand(Paths.rangetap, ["record", "-p", "1", "--listen", "127.0.0.1:2", "-o", path + "x"])
        #expect(
            both.status == 2 && both.stderr.contains("give --listen HOST:PORT or -p PORT, not both"), "\(both.stderr)")
        let badSize = try runCommand(Paths.rangetap, ["record", "--client-sndbuf", "16q", "-o", path + "y"])
        #expect(
            badSize.status == 2 && badSize.stderr.contains("--client-sndbuf: \"16q\" is not a size"),
            "\(badSize.stderr)")
        let badPool = try runCommand(Paths.rangetap, ["record", "--buffer-pool", "lots", "-o", path + "y"])
        #expect(
            badPool.status == 2 && badPool.stderr.contains("--buffer-pool: \"lots\" is not a size"), "\(badPool.stderr)"
        )
        let hugePool = try runCommand(Paths.rangetap, ["record", "--buffer-pool", "2g", "-o", path + "y"])
        #expect(
            hugePool.status == 2 && hugePool.stderr.contains("--buffer-pool 2g: must be at most 1g"),
            "\(hugePool.stderr)")
        let badDuration = try runCommand(Paths.rangetap, ["record", "--head-timeout", "5", "-o", path + "z"])
        #expect(
            badDuration.status == 2
                && badDuration.stderr.contains("--head-timeout: \"5\" is not a duration: write it like 500ms"),
            "\(badDuration.stderr)")
        #expect(
            !FileManager.default.fileExists(atPath: path + "x") && !FileManager.default.fileExists(atPath: path + "y"))
    }

    @Test func colorIsAutoAlwaysOrNever() throws {
        let capture = Paths.root + "/captures/curl-ranges.rtap"
        func inspect(_ args: [String], _ env: [String: String]) throws -> String {
            let r = try runCommand(
                Paths.rangetap, ["inspect", capture] + args, environment: env.merging(["PATH": "/usr/bin:/bin"]) { $1 })
            #expect(r.status == 0, "\(r.stderr)")
            return r.text
        }
        let escape = "\u{1B}["
        #expect(try !inspect([], [:]).contains(escape), "auto: not a terminal")
        #expect(
            try inspect(["--color", "always"], ["NO_COLOR": "1"]).contains(escape), "an explicit flag beats NO_COLOR")
        #expect(try !inspect(["--color", "never"], [:]).contains(escape))
        let bad = try runCommand(Paths.rangetap, ["inspect", capture, "--color", "sometimes"])
        #expect(bad.status == 2 && bad.stderr.contains("sometimes"), "\(bad.stderr)")
    }

    @Test(arguments: [
        "record", "inspect", "summary", "diff", "play", "export", "import", "replay", "probe", "serve", "ca", "shape",
    ])
    func helpHasNoDoubledDefaultsAndRequiredArgumentsAreRequired(command: String) throws {
        let r = try runCommand(Paths.rangetap, [command, "--help"])
        #expect(r.status == 0)
        let help = r.text
        for line in help.split(separator: "\n") {
            let defaults = line.components(separatedBy: "default").count - 1
            #expect(defaults <= 1, "\(command): \(line)")
        }
        // What a command needs is shown bare in its usage, not in brackets.
        let usage = help.split(separator: "\n").first { $0.contains("USAGE:") || $0.hasPrefix("  rangetap") } ?? ""
        for required in ["<url>", "<capture>"] where help.contains(required) {
            #expect(!help.contains("[\(required)]"), "\(command): \(usage)")
        }
        // Every -v/--verbose means the same.
        if help.contains("--verbose") {
            #expect(help.contains("-v, --verbose") && help.contains("Log debug details"), "\(command)")
        }
    }
}
