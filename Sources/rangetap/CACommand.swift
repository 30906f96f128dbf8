import ArgumentParser
import Foundation
import RangeTapTLS

/// `rangetap ca`: the local certificate authority that intercepts HTTPS.
struct CACommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ca",
        abstract: "Create, export and explain the local CA that lets `record` see inside HTTPS.",
        subcommands: [Init.self, Export.self, Info.self]
    )

    /// The `--ca-dir` option every subcommand takes.
    struct Location: ParsableArguments {
        @Option(name: .long, help: ArgumentHelp("Directory of the CA (default ~/.rangetap).", valueName: "DIR"))
        var caDir: String?

        var directory: String { caDir ?? CertificateAuthorityLocation.directory }
    }

    /// `rangetap ca init`.
    struct Init: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create the CA (an EC P-256 key, mode 0600, and a certificate); keeps an existing one.")
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
        static let configuration = CommandConfiguration(abstract: "Print the CA certificate as PEM (never the key).")
        @OptionGroup var location: Location

        func run() throws {
            do {
                guard let ca = try CertificateAuthority.load(from: location.directory) else {
                    throw CommandFailure(
                        message:
                            "no CA in \(location.directory); create one with rangetap ca init\(location.caDir.map { " --ca-dir \($0)" } ?? "")"
                    )
                }
                print(ca.certificatePEM, terminator: ca.certificatePEM.hasSuffix("\n") ? "" : "\n")
            } catch let error as TLSError {
                throw CommandFailure(error)
            }
        }
    }

    /// `rangetap ca info`.
    struct Info: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Say where the CA is, its fingerprint, and how to make clients trust it.")
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
            return """
                CA certificate: \(pem)
                CA key:         \(ca.directory)/\(CertificateAuthority.keyFileName) (mode 0600; never copy it anywhere)
                subject:        \(ca.subject)
                valid until:    \(formatter.string(from: ca.notValidAfter))
                SHA-256:        \(ca.fingerprintSHA256)

                Trust it only in clients you are debugging:
                  curl            curl --cacert \(pem) -x http://127.0.0.1:8080 https://…
                  ffmpeg          ffmpeg -http_proxy http://127.0.0.1:8080 -tls_verify 1 -ca_file \(pem) -i https://…
                  OpenSSL-based   SSL_CERT_FILE=\(pem) (replaces the system store for that process)
                  Python requests REQUESTS_CA_BUNDLE=\(pem) or requests.get(url, verify="\(pem)")
                  Debian system   cp \(pem) /usr/local/share/ca-certificates/rangetap.crt && update-ca-certificates
                                  (remove: rm /usr/local/share/ca-certificates/rangetap.crt && update-ca-certificates --fresh)
                  iOS Simulator   xcrun simctl keychain booted add-root-cert \(pem)
                  Android emu.    install as a user CA (Settings > Security > Encryption & credentials); apps need a
                                  network_security_config that trusts user CAs. See docs/https.md.
                """
        }
    }
}
