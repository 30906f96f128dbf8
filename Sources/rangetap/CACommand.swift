import ArgumentParser
import Foundation
import RangeTapProxy
import RangeTapTLS

/// `rangetap ca`: the local certificate authority that intercepts HTTPS.
struct CACommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ca",
        abstract: "Create, export and explain the local CA that lets `record` see inside HTTPS.",
        subcommands: [Init.self, Export.self, Info.self, Trust.self, Untrust.self]
    )

    /// The `--ca-dir` option every subcommand takes.
    struct Location: ParsableArguments {
        @Option(
            name: .long, help: ArgumentHelp("Directory of the CA (default ~/.rangetap).", valueName: "DIR"),
            completion: .directory)
        var caDir: String?

        var directory: String { caDir ?? CertificateAuthorityLocation.directory }
    }

    /// `rangetap ca init`.
    struct Init: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create the CA (an EC P-256 key, mode 0600, and a certificate); keeps an existing one.",
            discussion:
                "Examples: rangetap ca init; rangetap ca init --ca-dir ./project-ca. Exit status: 0 when created or kept, 2 when the directory or its CA files cannot be used."
        )
        @OptionGroup var location: Location

        func run() throws {
            do {
                let (ca, created) = try CertificateAuthority.loadOrCreate(in: location.directory)
                print(created ? "created a CA in \(ca.directory)" : "a CA already exists in \(ca.directory); kept it")
                print("certificate: \(ca.certificatePath)")
                print("SHA-256 fingerprint: \(ca.fingerprintSHA256)")
                print("next: make your client trust it (rangetap ca info)")
            } catch {
                throw CommandFailure(error)
            }
        }
    }

    /// `rangetap ca export`.
    struct Export: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print the CA certificate (never the key): PEM, DER or an iOS/macOS configuration profile.",
            discussion:
                "Examples: rangetap ca export > rangetap-ca.pem; rangetap ca export --format der > rangetap-ca.cer; rangetap ca export --format mobileconfig > rangetap-ca.mobileconfig. Exit status: 0, or 2 when there is no CA."
        )
        @OptionGroup var location: Location

        /// The forms `ca export` writes.
        enum Format: String, ExpressibleByArgument, CaseIterable {
            case pem, der, mobileconfig
        }

        @Option(
            name: .long, help: "pem (default), der (binary, for Android, Windows, Java) or mobileconfig (iOS, macOS).")
        var format: Format = .pem

        func run() throws {
            do {
                guard let ca = try CertificateAuthority.load(from: location.directory) else {
                    throw CommandFailure(
                        message:
                            "no CA in \(location.directory); create one with rangetap ca init\(location.caDir.map { " --ca-dir \($0)" } ?? "")"
                    )
                }
                switch format {
                case .pem: print(ca.certificatePEM, terminator: ca.certificatePEM.hasSuffix("\n") ? "" : "\n")
                case .der: FileHandle.standardOutput.write(Data(try ca.certificateDER()))
                case .mobileconfig: print(try CAProfile.xml(for: ca), terminator: "")
                }
            } catch let error as TLSError {
                throw CommandFailure(error)
            }
        }
    }

    /// `rangetap ca info`.
    struct Info: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Say where the CA is, its fingerprint, and how to make clients trust it.",
            discussion: "Example: rangetap ca info. Exit status: 0, or 2 when there is no CA.")
        @OptionGroup var location: Location

        func run() throws {
            do {
                guard let ca = try CertificateAuthority.load(from: location.directory) else {
                    throw CommandFailure(
                        message:
                            "no CA in \(location.directory); create one with rangetap ca init\(location.caDir.map { " --ca-dir \($0)" } ?? "") (rangetap record also creates it)"
                    )
                }
                print(Self.text(ca))
            } catch let error as TLSError {
                throw CommandFailure(error)
            }
        }

        static func text(_ ca: CertificateAuthority) -> String {
            let pem = ca.certificatePath
            let formatter = ISO8601DateFormatter()
            let guide = CATrustGuide(
                pem: pem, der: "rangetap-ca.cer", proxy: "127.0.0.1:8080",
                pageURL: "http://\(LinkControlRequest.host)/", commonName: ca.commonName)
            return """
                CA certificate: \(pem)
                CA key:         \(ca.directory)/\(CertificateAuthority.keyFileName) (mode 0600; never copy it anywhere)
                subject:        \(ca.subject)
                valid until:    \(formatter.string(from: ca.notValidAfter))
                SHA-256:        \(ca.fingerprintSHA256)

                The page http://\(LinkControlRequest.host)/ (asked through a running record, from any device that
                uses it as its proxy) offers the CA as PEM, DER (.cer) and an iOS/macOS profile, with these steps.
                Here: rangetap ca export --format der > rangetap-ca.cer (--format mobileconfig: the profile).

                Trust it only in clients you are debugging, and remove it afterwards:

                """ + guide.text
        }
    }
}
