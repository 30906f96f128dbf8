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

    /// The shaping traces the checkout ships (`tools/traces/*.trace`), by name.
    private static func shippedTraces() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: Paths.root + "/tools/traces")
            .filter { $0.hasSuffix(".trace") }.sorted()
    }

    /// The size of the file at `path`, 0 when there is none.
    private static func size(_ path: String) -> Int {
        (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
    }

    /// The Maintainer the package names: `DEB_MAINTAINER` when set, else `DIST_MAINTAINER` in
    /// tools/dist-lib.sh.
    private static func expectedMaintainer() throws -> String {
        if let maintainer = ProcessInfo.processInfo.environment["DEB_MAINTAINER"], !maintainer.isEmpty {
            return maintainer
        }
        let lib = try String(contentsOfFile: Paths.root + "/tools/dist-lib.sh", encoding: .utf8)
        let prefix = "DIST_MAINTAINER=\""
        let line = lib.split(separator: "\n").first { $0.hasPrefix(prefix) } ?? ""
        return String(line.dropFirst(prefix.count).dropLast())
    }

    /// The short name of a `License:` line.
    private static func licenceName(_ line: String) -> String {
        String(line.dropFirst("License:".count)).trimmingCharacters(in: .whitespaces)
    }

    /// The machine-readable copyright file (copyright-format 1.0) names rangetap's dependencies
    /// and the Apache License, and every licence a Files paragraph names has a License
    /// paragraph of its own with the full text.
    private static func expectCopyright(_ path: String) throws {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(
            text.hasPrefix("Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/\n"),
            "\(path): \(text.prefix(300))")
        for name in ["swift-nio", "swift-nio-http2", "swift-log", "Apache-2.0"] {
            #expect(text.contains(name), "the copyright file names \(name)")
        }
        for files in [
            "Files: *", "Files: .build/checkouts/swift-nio/*", "Files: .build/checkouts/swift-nio-http2/*",
        ] {
            #expect(text.contains("\n\n" + files + "\n"), "the copyright file has a paragraph \(files)")
        }
        // Paragraphs are separated by an empty line (an empty line inside a field is " .").
        var named = Set<String>()
        var textLines = [String: Int]()
        for paragraph in text.components(separatedBy: "\n\n") {
            let lines = paragraph.split(separator: "\n").map(String.init)
            guard let first = lines.first else { continue }
            if first.hasPrefix("Files:"), let licence = lines.first(where: { $0.hasPrefix("License:") }) {
                named.insert(Self.licenceName(licence))
            } else if first.hasPrefix("License:") {
                textLines[Self.licenceName(first)] = lines.dropFirst().prefix { $0.hasPrefix(" ") }.count
            }
        }
        #expect(named.contains("Apache-2.0"), "\(named)")
        for licence in named {
            #expect((textLines[licence] ?? 0) > 2, "License \(licence) has a paragraph with its text: \(textLines)")
        }
        #expect((textLines["Apache-2.0"] ?? 0) > 100, "the Apache License's full text: \(textLines)")
    }

    @Test func installPutsEveryFileWhereItsReaderLooks() throws {
        let prefix = Paths.temporaryDirectory("install") + "/prefix"
        defer { try? FileManager.default.removeItem(atPath: (prefix as NSString).deletingLastPathComponent) }
        let install = try runCommand(
            try Paths.tool("bash"),
            [Paths.root + "/tools/install.sh", "--prefix", prefix, "--binary", Paths.rangetap, "--debug-symbols"],
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
        // The files the README's examples name, and the licences of what the binary holds.
        let traces = try Self.shippedTraces()
        try #require(!traces.isEmpty, "tools/traces has shaping traces")
        for file in traces.map({ "share/rangetap/traces/" + $0 }) + [
            "share/rangetap/cache-adapter-example.py", "share/doc/rangetap/copyright",
        ] {
            #expect(installed.contains(prefix + "/" + file), "install.sh lists \(file)")
            #expect(Self.size(prefix + "/" + file) > 0, "\(file) is installed")
        }
        try Self.expectCopyright(prefix + "/share/doc/rangetap/copyright")
        let version = try runCommand(prefix + "/bin/rangetap", ["--version"])
        let expected = try runCommand(Paths.rangetap, ["--version"])
        #expect(version.status == 0 && version.text == expected.text && !version.text.isEmpty)
        // Installed stripped: no symbol table, no debug sections.
        let sections = try runCommand(try Paths.tool("readelf"), ["-S", "-W", prefix + "/bin/rangetap"])
        #expect(
            sections.status == 0 && !sections.text.contains(".symtab") && !sections.text.contains(".debug_"),
            "\(sections.text.suffix(800))")

        // The debug symbols, apart, where a debugger finds them by the build ID the binary kept.
        let notes = try runCommand(try Paths.tool("readelf"), ["-n", prefix + "/bin/rangetap"])
        let idLine: Substring? = notes.text.split(separator: "\n").first { $0.contains("Build ID:") }
        let idWord: Substring? = idLine?.split(separator: " ").last
        let id = try #require(idWord.map(String.init), "the installed binary keeps its build ID")
        let symbols = prefix + "/lib/debug/.build-id/\(id.prefix(2))/\(id.dropFirst(2)).debug"
        #expect(installed.contains(symbols), "install.sh lists \(symbols)")
        let debugSections = try runCommand(try Paths.tool("readelf"), ["-S", "-W", symbols])
        #expect(debugSections.text.contains(".debug_info"), "\(debugSections.text.suffix(600))")

        let page = try Self.renderManPage(prefix + "/share/man/man1/rangetap-record.1")
        #expect(page.status == 0, "\(page.stderr)")
        #expect(
            page.text.contains("rangetap record") && page.text.contains("--listen")
                && page.text.contains("--no-intercept"), "\(page.text.prefix(600))")
        // Defaults, examples and exit statuses (issue 39).
        let flat = page.text.split(whereSeparator: \.isWhitespace).joined(separator: " ")
        for needle in [
            "default: 127.0.0.1:8080", "Examples: rangetap record -o session.rtap", "Exit status: 0 when stopped",
            "EXIT STATUS", "0 when the command did its work",
        ] {
            #expect(flat.contains(needle), "rangetap-record(1) says \(needle)")
        }
        #expect(!flat.contains(">0 if an error occurs"), "the generic exit status gave way to rangetap's")
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
        let control = try runCommand(
            dpkgDeb, ["-f", deb, "Package", "Version", "Depends", "Architecture", "Maintainer"])
        try #require(control.status == 0, "\(control.stderr)")
        #expect(control.text.contains("Package: rangetap\n"))
        #expect(control.text.contains("Version: \(expectedVersion)\n"), "\(control.text)")
        let depends = control.text.split(separator: "\n").first { $0.hasPrefix("Depends: ") }.map(String.init) ?? ""
        // libssl3: TLS is the system's OpenSSL (CLibssl), not a copy linked in.
        for package in ["libcurl4 (>= ", "libssl3 (>= ", "libc6 (>= ", "libstdc++6"] {
            #expect(depends.contains(package), "Depends names \(package): \(depends)")
        }
        #expect(!depends.localizedCaseInsensitiveContains("swift"), "no Swift toolchain package in Depends: \(depends)")
        // The checked-in Maintainer, never the last commit's placeholder author.
        let maintainer =
            control.text.split(separator: "\n").first { $0.hasPrefix("Maintainer: ") }
            .map { String($0.dropFirst("Maintainer: ".count)) } ?? ""
        let expectedMaintainer = try Self.expectedMaintainer()
        #expect(!expectedMaintainer.isEmpty && maintainer == expectedMaintainer, "\(control.text)")
        for reserved in [".example>", ".invalid>", "localhost>"] {
            #expect(!maintainer.hasSuffix(reserved), "Maintainer: \(maintainer)")
        }

        // Installed into a fresh root.
        let root = work + "/root"
        let unpack = try runCommand(dpkgDeb, ["-x", deb, root])
        try #require(unpack.status == 0, "\(unpack.stderr)")
        let binary = root + "/usr/bin/rangetap"

        // The copyright file, uncompressed where policy puts it; the files the README's examples name.
        #expect(!FileManager.default.fileExists(atPath: root + "/usr/share/doc/rangetap/copyright.gz"))
        try Self.expectCopyright(root + "/usr/share/doc/rangetap/copyright")
        let traces = try Self.shippedTraces()
        let packagedTraces =
            (try? FileManager.default.contentsOfDirectory(atPath: root + "/usr/share/rangetap/traces")) ?? []
        #expect(
            !traces.isEmpty && packagedTraces.sorted() == traces,
            "usr/share/rangetap/traces holds \(packagedTraces), tools/traces \(traces)")
        for trace in packagedTraces {
            #expect(Self.size(root + "/usr/share/rangetap/traces/" + trace) > 0, "\(trace) is not empty")
        }
        let adapter = root + "/usr/share/rangetap/cache-adapter-example.py"
        #expect(
            (try? String(contentsOfFile: adapter, encoding: .utf8))?.hasPrefix("#!/usr/bin/env python3") == true,
            "\(adapter) is the example cache adapter")

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
