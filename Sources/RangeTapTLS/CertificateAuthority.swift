import Foundation
import RangeTapSystem

/// rangetap's local certificate authority: an EC P-256 key and a self-signed CA certificate in
/// a directory (`~/.rangetap/` by default). Leaf certificates for intercepted hosts are signed
/// with it (see ``LeafCertificates``); clients that trust its certificate accept them.
///
/// The private key is written once, mode 0600, and never leaves this type: it is not part of
/// any description, error message or capture.
public struct CertificateAuthority: Sendable {
    /// File name of the CA certificate (PEM) in its directory.
    public static let certificateFileName = "rangetap-ca.pem"
    /// File name of the CA private key (PEM, mode 0600) in its directory.
    public static let keyFileName = "rangetap-ca-key.pem"
    /// How long a new CA certificate is valid.
    public static let validity: TimeInterval = 10 * 365 * 86_400

    /// The directory holding both files.
    public let directory: String
    /// The CA certificate.
    let certificate: LibcryptoCertificate
    /// The CA certificate as PEM text.
    public let certificatePEM: String
    /// The CA's private key (EC P-256).
    let key: LibcryptoKey

    /// `~/.rangetap` (from `$HOME`).
    public static var defaultDirectory: String {
        let home = ProcessInfo.processInfo.environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        return (home as NSString).appendingPathComponent(".rangetap")
    }

    /// Path of the certificate file.
    public var certificatePath: String { (directory as NSString).appendingPathComponent(Self.certificateFileName) }
    /// Path of the key file.
    public var keyPath: String { (directory as NSString).appendingPathComponent(Self.keyFileName) }

    /// SHA-256 of the certificate's DER bytes, as colon-separated upper-case hex (what
    /// `openssl x509 -fingerprint -sha256` prints).
    public var fingerprintSHA256: String {
        guard let digest = try? certificate.sha256() else { return "?" }
        return digest.map { String(format: "%02X", $0) }.joined(separator: ":")
    }

    /// The CA's subject, as text.
    public var subject: String { certificate.subject }

    /// The end of the certificate's validity.
    public var notValidAfter: Date { certificate.notValidAfter ?? .distantPast }

    init(directory: String, certificate: LibcryptoCertificate, certificatePEM: String, key: LibcryptoKey) {
        self.directory = directory
        self.certificate = certificate
        self.certificatePEM = certificatePEM
        self.key = key
    }

    /// Loads the CA in `directory`, or creates one there when it holds none. `created` says which.
    public static func loadOrCreate(
        in directory: String
    ) throws(TLSError) -> (authority: CertificateAuthority, created: Bool) {
        if let existing = try load(from: directory) { return (existing, false) }
        return (try create(in: directory), true)
    }

    /// Loads the CA in `directory`; nil when neither file exists.
    public static func load(from directory: String) throws(TLSError) -> CertificateAuthority? {
        let certPath = (directory as NSString).appendingPathComponent(certificateFileName)
        let keyPath = (directory as NSString).appendingPathComponent(keyFileName)
        let fm = FileManager.default
        let hasCert = fm.fileExists(atPath: certPath)
        let hasKey = fm.fileExists(atPath: keyPath)
        if !hasCert && !hasKey { return nil }
        guard hasCert else { throw .unreadable(certPath, "the file is missing but its key \(keyPath) exists") }
        guard hasKey else { throw .unreadable(keyPath, "the file is missing but its certificate \(certPath) exists") }
        guard let st = System.status(keyPath) else { throw .unreadable(keyPath, "its mode cannot be read") }
        if st.permissions & 0o077 != 0 {
            throw .keyTooOpen(keyPath, mode: String(st.permissions & 0o777, radix: 8))
        }
        let certText: String
        let keyText: String
        do {
            certText = try String(contentsOfFile: certPath, encoding: .utf8)
        } catch {
            throw .unreadable(certPath, "\(error.localizedDescription)")
        }
        do {
            keyText = try String(contentsOfFile: keyPath, encoding: .utf8)
        } catch {
            throw .unreadable(keyPath, "\(error.localizedDescription)")
        }
        let certificate: LibcryptoCertificate
        do {
            certificate = try LibcryptoCertificate.fromPEM(certText)
        } catch {
            throw .unreadable(certPath, "not a PEM certificate (\(error.reason))")
        }
        let read: (key: LibcryptoKey, isP256: Bool)
        do {
            read = try LibcryptoKey.fromPEM(keyText)
        } catch {
            throw .unreadable(keyPath, "not a PEM private key (\(error.reason))")
        }
        guard read.isP256 else { throw .unreadable(keyPath, "not an EC P-256 key") }
        let key = read.key
        guard certificate.matches(key) else {
            throw .unreadable(keyPath, "the key does not belong to the certificate \(certPath)")
        }
        return CertificateAuthority(directory: directory, certificate: certificate, certificatePEM: certText, key: key)
    }

    /// Creates a new CA in `directory` (made 0700 if missing). Fails if either file exists.
    public static func create(in directory: String, now: Date = Date()) throws(TLSError) -> CertificateAuthority {
        var isDir: ObjCBool = false
        if FileManager.default.fileExists(atPath: directory, isDirectory: &isDir) {
            guard isDir.boolValue else { throw .directory(directory, "it is a file, not a directory") }
        } else {
            do {
                try FileManager.default.createDirectory(
                    atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            } catch {
                throw .directory(directory, error.localizedDescription)
            }
        }
        let key: LibcryptoKey
        let keyPEM: String
        let certificate: LibcryptoCertificate
        let pem: String
        do {
            key = try LibcryptoKey.generateP256()
            keyPEM = try key.pem()
            let host = ProcessInfo.processInfo.hostName
            certificate = try LibcryptoCertificate.authority(
                key: key, organization: "rangetap", commonName: "rangetap local CA (\(host.prefix(40)))",
                notBefore: now.addingTimeInterval(-3600), notAfter: now.addingTimeInterval(validity))
            pem = try certificate.pem()
        } catch {
            throw .directory(directory, "cannot build the CA certificate: \(error)")
        }
        let keyPath = (directory as NSString).appendingPathComponent(keyFileName)
        let certPath = (directory as NSString).appendingPathComponent(certificateFileName)
        try writeExclusive(keyPath, keyPEM, mode: 0o600)
        do {
            try writeExclusive(certPath, pem, mode: 0o644)
        } catch {
            System.remove(keyPath)
            throw error
        }
        return CertificateAuthority(directory: directory, certificate: certificate, certificatePEM: pem, key: key)
    }

    /// Writes a new file with `mode` from its creation (O_EXCL: never over an existing one).
    private static func writeExclusive(_ path: String, _ text: String, mode: UInt32) throws(TLSError) {
        let fd: Int32
        do throws(SystemError) {
            fd = try System.createExclusively(path, mode: mode)
        } catch {
            let why =
                error.code == System.fileExists
                ? "the file already exists (remove both CA files to make a new CA)" : error.text
            throw .directory(path, why)
        }
        defer { System.close(fd) }
        do throws(SystemError) {
            try System.writeAll(fd, bytes: Array(text.utf8))
        } catch {
            System.remove(path)
            throw .directory(path, error.text)
        }
        System.setPermissions(fd, mode)
    }
}
