import ArgumentParser
import Foundation
import RangeTapSystem
import RangeTapTLS

extension CACommand {
    /// Which of this machine's stores `ca trust` and `ca untrust` act on.
    struct Stores: ParsableArguments {
        @Flag(name: .long, help: "The NSS database Chromium reads on Linux (~/.pki/nssdb), or --nss-dir's.")
        var nss = false

        @Option(
            name: .long,
            help: ArgumentHelp(
                "Another NSS database directory, such as a Firefox profile (implies --nss).", valueName: "DIR"),
            completion: .directory)
        var nssDir: String?

        @Flag(name: .long, help: "Debian's system store (/usr/local/share/ca-certificates; needs root).")
        var system = false

        /// The NSS database meant, nil when none is.
        var nssDatabase: String? {
            if let nssDir { return URL(fileURLWithPath: (nssDir as NSString).expandingTildeInPath).standardized.path }
            guard nss else { return nil }
            let home =
                ProcessInfo.processInfo.environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
            return URL(fileURLWithPath: home + "/.pki/nssdb").standardized.path
        }

        var any: Bool { nss || nssDir != nil || system }
    }

    /// Debian's directory of local CA certificates, which `update-ca-certificates` adds to the store.
    static let systemDirectory = "/usr/local/share/ca-certificates"

    /// `rangetap ca trust`.
    struct Trust: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Make this machine's browsers (NSS) or its system store trust the CA.",
            discussion: """
                Adds the CA certificate (never its key) and notes what it added in the CA's directory \
                (file `trusted`), so that `rangetap ca untrust` removes exactly that. Examples: \
                rangetap ca trust --nss (Chromium; restart it); rangetap ca trust --nss-dir \
                ~/.mozilla/firefox/PROFILE (Firefox); sudo rangetap ca trust --system (OpenSSL, GnuTLS, \
                GStreamer, curl without --cacert). Exit status 0 when added, 2 when a store could not be \
                changed.
                """)
        @OptionGroup var location: Location
        @OptionGroup var stores: Stores

        func validate() throws {
            guard stores.any else { throw ValidationError("say where: --nss, --nss-dir DIR or --system") }
        }

        func run() throws {
            let ca = try CACommand.loadExisting(location)
            var record = TrustRecord.read(in: ca.directory)
            do {
                let name = try CACommand.nickname(ca)
                if let database = stores.nssDatabase {
                    let certutil = try TrustTool("certutil", package: "libnss3-tools")
                    if !FileManager.default.fileExists(atPath: database + "/cert9.db") {
                        try FileManager.default.createDirectory(
                            atPath: database, withIntermediateDirectories: true,
                            attributes: [.posixPermissions: 0o700])
                        try certutil.run(["-N", "-d", "sql:" + database, "--empty-password"])
                    }
                    try certutil.run(["-A", "-d", "sql:" + database, "-t", "C,,", "-n", name, "-i", ca.certificatePath])
                    let entry = TrustRecord.Entry.nss(directory: database, nickname: name)
                    if !record.entries.contains(entry) { record.entries.append(entry) }
                    try record.write(in: ca.directory)
                    print("trusted in the NSS database \(database) as \"\(name)\" (restart the browser)")
                }
                if stores.system {
                    guard System.userID == 0 else {
                        throw TrustTool.Failure(
                            description:
                                "--system changes the machine's store: run it as root (sudo rangetap ca trust --system)"
                        )
                    }
                    let update = try TrustTool("update-ca-certificates", package: "ca-certificates")
                    let file = CACommand.systemDirectory + "/" + name.replacingOccurrences(of: " ", with: "-") + ".crt"
                    try FileManager.default.createDirectory(
                        atPath: CACommand.systemDirectory, withIntermediateDirectories: true)
                    try ca.certificatePEM.write(toFile: file, atomically: true, encoding: .utf8)
                    try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: file)
                    let entry = TrustRecord.Entry.system(file: file)
                    if !record.entries.contains(entry) { record.entries.append(entry) }
                    try record.write(in: ca.directory)
                    try update.run([])
                    print("trusted in the system store as \(file) (update-ca-certificates ran)")
                }
            } catch {
                throw CommandFailure(message: "ca trust: \(error)")
            }
        }
    }

    /// `rangetap ca untrust`.
    struct Untrust: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Remove the CA from where `ca trust` added it, and nothing else.",
            discussion: """
                Examples: rangetap ca untrust; sudo rangetap ca untrust --system. \
                Without --nss, --nss-dir or --system: from every store the CA's `trusted` file lists. \
                A certificate found under rangetap's name that is not this CA's is left alone (and said). \
                Exit status 0 when everything asked was removed or was not there, 2 otherwise.
                """)
        @OptionGroup var location: Location
        @OptionGroup var stores: Stores

        func run() throws {
            let ca = try CACommand.loadExisting(location)
            var record = TrustRecord.read(in: ca.directory)
            let chosen = record.entries.filter { entry in
                guard stores.any else { return true }
                switch entry {
                case .nss(let directory, _):
                    return stores.nssDatabase == directory
                case .system: return stores.system
                }
            }
            guard !chosen.isEmpty else {
                print(
                    "nothing to remove: ca trust added this CA nowhere\(stores.any ? " of those" : "") (\(TrustRecord.path(in: ca.directory)))"
                )
                return
            }
            var problems: [String] = []
            for entry in chosen {
                do {
                    try CACommand.remove(entry, ca: ca)
                    record.entries.removeAll { $0 == entry }
                    try record.write(in: ca.directory)
                } catch {
                    problems.append("\(error)")
                }
            }
            if !problems.isEmpty {
                throw CommandFailure(message: "ca untrust: " + problems.joined(separator: "; "))
            }
        }
    }

    /// Removes `entry` if it still holds this CA's certificate.
    static func remove(_ entry: TrustRecord.Entry, ca: CertificateAuthority) throws {
        let ours = normalizedPEM(ca.certificatePEM)
        switch entry {
        case .nss(let directory, let nickname):
            let certutil = try TrustTool("certutil", package: "libnss3-tools")
            let listed = try certutil.run(["-L", "-d", "sql:" + directory, "-n", nickname, "-a"], failing: false)
            guard listed.status == 0 else {
                print("\"\(nickname)\" is no longer in \(directory): nothing to remove")
                return
            }
            guard normalizedPEM(listed.output) == ours else {
                throw TrustTool.Failure(
                    description: "\"\(nickname)\" in \(directory) is not this CA's certificate: left it there")
            }
            try certutil.run(["-D", "-d", "sql:" + directory, "-n", nickname])
            print("removed \"\(nickname)\" from the NSS database \(directory)")
        case .system(let file):
            guard let text = try? String(contentsOfFile: file, encoding: .utf8) else {
                print("\(file) is gone already: nothing to remove")
                return
            }
            guard normalizedPEM(text) == ours else {
                throw TrustTool.Failure(description: "\(file) is not this CA's certificate: left it there")
            }
            guard System.userID == 0 else {
                throw TrustTool.Failure(description: "removing \(file) needs root (sudo rangetap ca untrust --system)")
            }
            let update = try TrustTool("update-ca-certificates", package: "ca-certificates")
            try FileManager.default.removeItem(atPath: file)
            try update.run(["--fresh"])
            print("removed \(file) from the system store (update-ca-certificates --fresh ran)")
        }
    }

    /// The certificate a store holds under rangetap's name: `rangetap CA` and the first 8 bytes
    /// of its SHA-256, so that two CAs (two machines' `--ca-dir`) never share one.
    static func nickname(_ ca: CertificateAuthority) throws -> String {
        "rangetap CA " + (try ca.fingerprintBytes()).prefix(8).map { String(format: "%02x", $0) }.joined()
    }

    /// The CA in `location`, or a failure saying how to make one.
    static func loadExisting(_ location: Location) throws -> CertificateAuthority {
        do {
            guard let ca = try CertificateAuthority.load(from: location.directory) else {
                throw CommandFailure(
                    message:
                        "no CA in \(location.directory); create one with rangetap ca init\(location.caDir.map { " --ca-dir \($0)" } ?? "")"
                )
            }
            return ca
        } catch let error as TLSError {
            throw CommandFailure(error)
        }
    }

    /// PEM text without its line breaks and spaces, for comparing two copies.
    private static func normalizedPEM(_ text: String) -> String {
        String(text.unicodeScalars.filter { !CharacterSet.whitespacesAndNewlines.contains($0) })
    }
}
