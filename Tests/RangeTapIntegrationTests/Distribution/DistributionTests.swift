import Foundation
import RangeTapTestSupport
import Testing

/// `tools/install.sh` and `tools/package-deb.sh` on the binary the suite already built (a release
/// build would cost minutes of CI): what lands where, that it runs from there, that the man pages
/// render and the completions load.
@Suite(.serialized)
struct DistributionTests {
    /// The environment of this process with `overrides` on top.
    private static func environment(_ overrides: [String: String]) -> [String: String] {
        ProcessInfo.processInfo.environment.merging(overrides) { $1 }
    }

    /// `man -l PAGE` rendered as plain text, 80 columns wide.
    private static func renderManPage(_ page: String) throws -> CommandResult {
        try runCommand(
            try Paths.tool("man"), ["-l", page],
            environment: environment(["MANWIDTH": "80", "MANPAGER": "cat", "PAGER": "cat", "LC_ALL": "C.UTF-8"]))
    }

    /// The directory the built binary loads `libswiftCore.so` from, when it loads it at all.
    private static func swiftRuntimeDirectory(of binary: String) throws -> String? {
        let ldd = try runCommand(try Paths.tool("ldd"), [binary])
        for line in ldd.text.split(separator: "\n") where line.contains("libswiftCore.so =>") {
            let path = line.split(separator: " ").dropFirst(2).first.map(String.init) ?? ""
            return (path as NSString).deletingLastPathComponent
        }
        return nil
    }

    @Test func installPutsEveryFileWhereItsReaderLooks() throws {
        let prefix = Paths.temporaryDirectory("install") + "/prefix"
        defer { try? FileManager.default.removeItem(atPath: (prefix as NSString).deletingLastPathComponent) }
        let install = try runCommand(
            try Paths.tool("bash"), [Paths.root + "/tools/install.sh", "--prefix", prefix, "--binary", Paths.rangetap],
            timeout: 900)
        try #require(install.status == 0, "\(install.stderr)")
        let installed = Set(install.text.split(separator: "\n").map(String.init))
        for file in [
            "bin/rangetap", "share/man/man1/rangetap.1", "share/man/man1/rangetap-record.1",
            "share/man/man1/rangetap-ca-init.1",
            "share/bash-completion/completions/rangetap", "share/zsh/site-functions/_rangetap",
            "share/fish/vendor_completions.d/rangetap.fish",
        ] {
            #expect(installed.contains(prefix + "/" + file), "install.sh lists \(file)")
            #expect(FileManager.default.fileExists(atPath: prefix + "/" + file), "\(file) is installed")
        }
        let version = try runCommand(prefix + "/bin/rangetap", ["--version"])
        let expected = try runCommand(Paths.rangetap, ["--version"])
        #expect(version.status == 0 && version.text == expected.text && !version.text.isEmpty)
        // Installed stripped: no symbol table, no debug sections.
        let sections = try runCommand(try Paths.tool("readelf"), ["-S", "-W", prefix + "/bin/rangetap"])
        #expect(
            sections.status == 0 && !sections.text.contains(".symtab") && !sections.text.contains(".debug_"),
            "\(sections.text.suffix(800))")

        let page = try Self.renderManPage(prefix + "/share/man/man1/rangetap-record.1")
        #expect(page.status == 0, "\(page.stderr)")
        #expect(
            page.text.contains("rangetap record") && page.text.contains("--listen")
                && page.text.contains("--no-intercept"), "\(page.text.prefix(600))")
        let top = try Self.renderManPage(prefix + "/share/man/man1/rangetap.1")
        #expect(
            top.text.contains("rangetap-record(1)") && top.text.contains("rangetap-ca(1)"),
            "the top page refers to the subcommands' pages: \(top.text.suffix(600))")

        let bash = try runCommand(
            try Paths.tool("bash"),
            ["-c", "source \(prefix)/share/bash-completion/completions/rangetap && complete -p rangetap"])
        #expect(
            bash.status == 0 && bash.text.hasPrefix("complete ") && bash.text.contains(" -F _rangetap")
                && bash.text.hasSuffix(" rangetap\n"), "status \(bash.status): \(bash.text) \(bash.stderr)")
        let zsh = try String(contentsOfFile: prefix + "/share/zsh/site-functions/_rangetap", encoding: .utf8)
        #expect(zsh.hasPrefix("#compdef rangetap"))
        let fish = try String(
            contentsOfFile: prefix + "/share/fish/vendor_completions.d/rangetap.fish", encoding: .utf8)
        #expect(fish.contains("complete -c 'rangetap'") || fish.contains("complete -c rangetap"), "\(fish.prefix(400))")
    }

    @Test func debianPackageRunsFromAFreshRootWithoutTheToolchain() throws {
        let work = Paths.temporaryDirectory("deb")
        defer { try? FileManager.default.removeItem(atPath: work) }
        let build = try runCommand(
            try Paths.tool("bash"),
            [
                Paths.root + "/tools/package-deb.sh", "--binary", Paths.rangetap, "--output", work, "--compression",
                "none",
            ], timeout: 900)
        try #require(build.status == 0, "\(build.stderr)")
        let deb = build.text.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(deb.hasPrefix(work + "/rangetap_") && deb.hasSuffix(".deb"), "package-deb.sh prints the .deb: \(deb)")
        let expectedVersion = try runCommand(Paths.rangetap, ["--version"]).text.trimmingCharacters(
            in: .whitespacesAndNewlines)

        // The control file.
        let dpkgDeb = try Paths.tool("dpkg-deb")
        let control = try runCommand(dpkgDeb, ["-f", deb, "Package", "Version", "Depends", "Architecture"])
        try #require(control.status == 0, "\(control.stderr)")
        #expect(control.text.contains("Package: rangetap\n"))
        #expect(control.text.contains("Version: \(expectedVersion)\n"), "\(control.text)")
        let depends = control.text.split(separator: "\n").first { $0.hasPrefix("Depends: ") }.map(String.init) ?? ""
        for package in ["libcurl4 (>= ", "libc6 (>= ", "libstdc++6"] {
            #expect(depends.contains(package), "Depends names \(package): \(depends)")
        }
        #expect(!depends.localizedCaseInsensitiveContains("swift"), "no Swift toolchain package in Depends: \(depends)")

        // Installed into a fresh root.
        let root = work + "/root"
        let unpack = try runCommand(dpkgDeb, ["-x", deb, root])
        try #require(unpack.status == 0, "\(unpack.stderr)")
        let binary = root + "/usr/bin/rangetap"
        let version = try runCommand(binary, ["--version"])
        #expect(version.status == 0 && version.text == expectedVersion + "\n", "\(version.text) \(version.stderr)")

        // Every library it loads is inside the package or is a system library, none the toolchain's.
        let ldd = try runCommand(try Paths.tool("ldd"), [binary])
        let resolved = ldd.text.split(separator: "\n").compactMap { line -> String? in
            let parts = line.split(separator: " ")
            guard parts.count >= 3, parts[1] == "=>" else { return nil }
            return String(parts[2])
        }
        #expect(!resolved.isEmpty && !ldd.text.contains("not found"), "\(ldd.text)")
        for path in resolved {
            #expect(
                path.hasPrefix(root + "/") || path.hasPrefix("/lib/") || path.hasPrefix("/usr/lib/"),
                "\(path) is neither in the package nor a system library")
        }
        // And it really runs with the toolchain's runtime out of sight (a private mount namespace
        // with an empty directory over it: needs root, as tools/test.sh runs).
        if let runtime = try Self.swiftRuntimeDirectory(of: Paths.rangetap), let unshare = try? Paths.tool("unshare") {
            let hidden = try runCommand(
                unshare,
                [
                    "-m", "/bin/sh", "-c", "mount -t tmpfs none \"$1\" || exit 99; \"$2\" --version", "sh", runtime,
                    binary,
                ])
            if hidden.status != 99 {
                #expect(
                    hidden.status == 0 && hidden.text == expectedVersion + "\n",
                    "with \(runtime) hidden: \(hidden.text) \(hidden.stderr)")
            }
        }

        // Its man pages render and name their subcommand; its completions are where Debian's shells look.
        let manDir = root + "/usr/share/man/man1"
        for (page, command) in [
            ("rangetap-record.1.gz", "rangetap record"), ("rangetap-ca-init.1.gz", "rangetap ca init"),
            ("rangetap.1.gz", "rangetap"),
        ] {
            let rendered = try Self.renderManPage(manDir + "/" + page)
            let title = page.replacingOccurrences(of: ".1.gz", with: "").uppercased() + "(1)"
            #expect(
                rendered.status == 0 && rendered.text.hasPrefix(title),
                "\(page) renders with its title \(title): \(rendered.text.prefix(400)) \(rendered.stderr)")
            #expect(
                rendered.text.contains("NAME\n     \(command) — "),
                "\(page) names \(command): \(rendered.text.prefix(400))")
        }
        for file in [
            "usr/share/bash-completion/completions/rangetap", "usr/share/zsh/vendor-completions/_rangetap",
            "usr/share/fish/vendor_completions.d/rangetap.fish",
        ] {
            let size = (try? FileManager.default.attributesOfItem(atPath: root + "/" + file)[.size] as? Int) ?? 0
            #expect(size > 0, "\(file) is in the package")
        }
    }
}
