import Foundation
import RangeTapTestSupport
import Testing

/// Bash completion as an installed rangetap gives it (issue 39): capture directories for the
/// commands that read or write one, and the values of `--cache`, `--pattern` and `--color`,
/// completed by bash with the script `rangetap --generate-completion-script bash` prints.
@Suite struct CompletionTests {
    @Test func capturesAndValuesAreCompleted() throws {
        let dir = Paths.temporaryDirectory("completion")
        let script = dir + "/rangetap.bash"
        let generated = try runCommand(Paths.rangetap, ["--generate-completion-script", "bash"])
        try generated.stdout.write(to: URL(fileURLWithPath: script))
        for name in ["caps/one.rtap", "caps/two.rtap"] {
            try FileManager.default.createDirectory(atPath: dir + "/" + name, withIntermediateDirectories: true)
        }
        try Data().write(to: URL(fileURLWithPath: dir + "/caps/notes.txt"))
        func complete(_ words: [String]) throws -> [String] {
            let r = try runCommand(
                "/bin/bash", [Paths.root + "/Tests/Clients/complete.sh", script, "rangetap"] + words, directory: dir)
            #expect(r.status == 0, "\(r.stderr)")
            return r.text.split(separator: "\n").map(String.init)
        }
        for command in ["inspect", "summary", "replay", "serve", "export"] {
            #expect(try complete([command, "caps/"]) == ["caps/one.rtap", "caps/two.rtap"], "rangetap \(command)")
        }
        #expect(try complete(["record", "-o", "caps/"]) == ["caps/one.rtap", "caps/two.rtap"])
        #expect(try complete(["replay", "x", "--cache", ""]) == ["prefix", "whole", "fragments", "sparse"])
        #expect(try complete(["play", "x", "--pattern", ""]) == ["avplayer", "linear", "seeky"])
        #expect(try complete(["inspect", "x", "--color", ""]) == ["auto", "always", "never"])
        #expect(try complete(["record", "--faults", "caps/n"]) == ["caps/notes.txt"], "files where a file is asked")
    }
}
