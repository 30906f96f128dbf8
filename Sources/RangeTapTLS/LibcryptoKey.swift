import CLibcrypto

/// A private key held by the system's libcrypto (an `EVP_PKEY`). Read-only once made, so one
/// key signs from any thread (libcrypto makes a signing context per signature).
final class LibcryptoKey: @unchecked Sendable {
    let pointer: OpaquePointer

    private init(_ pointer: OpaquePointer) { self.pointer = pointer }

    deinit { clibcrypto_key_free(pointer) }

    /// A new EC P-256 key.
    static func generateP256() throws(LibcryptoError) -> LibcryptoKey {
        guard let pointer = clibcrypto_key_generate_p256() else { throw .last("cannot make an EC P-256 key") }
        return LibcryptoKey(pointer)
    }

    /// The private key in `pem` (PKCS#8 or SEC 1), and whether it is an EC P-256 key.
    static func fromPEM(_ pem: String) throws(LibcryptoError) -> (key: LibcryptoKey, isP256: Bool) {
        var isP256: Int32 = 0
        let bytes = Array(pem.utf8)
        let made = bytes.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { clibcrypto_key_from_pem($0.baseAddress!, $0.count, &isP256) }
        }
        guard let pointer = made else { throw .last("not a PEM private key") }
        return (LibcryptoKey(pointer), isP256 == 1)
    }

    /// The key as PKCS#8 PEM text (`-----BEGIN PRIVATE KEY-----`).
    func pem() throws(LibcryptoError) -> String {
        var text: UnsafeMutablePointer<CChar>?
        var length = 0
        guard clibcrypto_key_pem(pointer, &text, &length) == 1, let text else { throw .last("cannot write the key") }
        defer { clibcrypto_free(text) }
        return String(cString: text)
    }
}
