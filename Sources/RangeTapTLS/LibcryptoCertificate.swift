import CLibcrypto
import Foundation

/// An X.509 certificate held by the system's libcrypto (an `X509`), read-only once made.
final class LibcryptoCertificate: @unchecked Sendable {
    let pointer: OpaquePointer

    private init(_ pointer: OpaquePointer) { self.pointer = pointer }

    deinit { clibcrypto_certificate_free(pointer) }

    /// The certificate in `pem`.
    static func fromPEM(_ pem: String) throws(LibcryptoError) -> LibcryptoCertificate {
        let bytes = Array(pem.utf8)
        let made = bytes.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { clibcrypto_certificate_from_pem($0.baseAddress!, $0.count) }
        }
        guard let pointer = made else { throw .last("not a PEM certificate") }
        return LibcryptoCertificate(pointer)
    }

    /// A self-signed CA certificate for `key` (see `clibcrypto_certificate_make_authority`).
    static func authority(
        key: LibcryptoKey, organization: String, commonName: String, notBefore: Date, notAfter: Date
    ) throws(LibcryptoError) -> LibcryptoCertificate {
        let made = clibcrypto_certificate_make_authority(
            key.pointer, organization, commonName, Int64(notBefore.timeIntervalSince1970),
            Int64(notAfter.timeIntervalSince1970))
        guard let made else { throw .last("cannot make the CA certificate") }
        return LibcryptoCertificate(made)
    }

    /// A server certificate for `key`, issued by `authority` (see
    /// `clibcrypto_certificate_make_leaf`): its one alternative name is the IP address `ip` (4
    /// or 16 bytes) when there is one, else the DNS name `dnsName`.
    static func leaf(
        authority: LibcryptoCertificate, authorityKey: LibcryptoKey, key: LibcryptoKey, organization: String,
        commonName: String, dnsName: String, ip: [UInt8]?, notBefore: Date, notAfter: Date
    ) throws(LibcryptoError) -> LibcryptoCertificate {
        let address = ip ?? []
        let made = address.withUnsafeBufferPointer { ipBytes in
            clibcrypto_certificate_make_leaf(
                authority.pointer, authorityKey.pointer, key.pointer, organization, commonName, dnsName,
                ipBytes.baseAddress, ipBytes.count, Int64(notBefore.timeIntervalSince1970),
                Int64(notAfter.timeIntervalSince1970))
        }
        guard let made else { throw .last("cannot make the certificate") }
        return LibcryptoCertificate(made)
    }

    /// The DER bytes.
    func der() throws(LibcryptoError) -> [UInt8] {
        var bytes: UnsafeMutablePointer<UInt8>?
        var length = 0
        guard clibcrypto_certificate_der(pointer, &bytes, &length) == 1, let bytes else {
            throw .last("cannot encode the certificate")
        }
        defer { clibcrypto_free(bytes) }
        return Array(UnsafeBufferPointer(start: bytes, count: length))
    }

    /// SHA-256 of the DER bytes (the certificate's fingerprint).
    func sha256() throws(LibcryptoError) -> [UInt8] {
        let bytes = try der()
        guard let hasher = clibcrypto_sha256_new() else { throw .last("cannot hash the certificate") }
        defer { clibcrypto_sha256_free(hasher) }
        var digest = [UInt8](repeating: 0, count: 32)
        let ok =
            bytes.withUnsafeBytes { clibcrypto_sha256_update(hasher, $0.baseAddress, $0.count) } == 1
            && digest.withUnsafeMutableBufferPointer { clibcrypto_sha256_digest(hasher, $0.baseAddress!) } == 1
        guard ok else { throw .last("cannot hash the certificate") }
        return digest
    }

    /// The certificate as PEM text.
    func pem() throws(LibcryptoError) -> String {
        var text: UnsafeMutablePointer<CChar>?
        var length = 0
        guard clibcrypto_certificate_pem(pointer, &text, &length) == 1, let text else {
            throw .last("cannot encode the certificate")
        }
        defer { clibcrypto_free(text) }
        return String(cString: text)
    }

    /// The subject as RFC 2253 text (`CN=…,O=…`); "?" when libcrypto cannot print it.
    var subject: String {
        var text: UnsafeMutablePointer<CChar>?
        guard clibcrypto_certificate_subject(pointer, &text) == 1, let text else { return "?" }
        defer { clibcrypto_free(text) }
        return String(cString: text)
    }

    /// The end of the validity; nil when libcrypto cannot read it.
    var notValidAfter: Date? {
        var seconds: Int64 = 0
        guard clibcrypto_certificate_not_after(pointer, &seconds) == 1 else { return nil }
        return Date(timeIntervalSince1970: TimeInterval(seconds))
    }

    /// Whether `key` is the private key of this certificate's public key.
    func matches(_ key: LibcryptoKey) -> Bool { clibcrypto_certificate_matches_key(pointer, key.pointer) == 1 }
}
