import CLibcrypto
import Foundation

/// An incremental SHA-256, computed by the system's libcrypto (OpenSSL; its assembly uses the
/// CPU's SHA extensions where there are some). A value type: a copy hashes on from the bytes
/// the original had seen (copy on write).
///
/// Used for the `sha256` of every `end` event (``CaptureWriter``), the probe's body and slice
/// hashes, and the CA certificate's fingerprint.
public struct SHA256Hasher: @unchecked Sendable {
    /// The libcrypto context; `@unchecked Sendable` as `Array` is: a shared context is copied
    /// before it is written.
    private final class Context {
        let pointer: OpaquePointer

        init(_ pointer: OpaquePointer) { self.pointer = pointer }

        deinit { clibcrypto_sha256_free(pointer) }
    }

    private var context: Context

    /// A hasher that has seen no bytes.
    public init() {
        // libcrypto fails to make a SHA-256 context only when memory or the library itself is
        // gone; there is nothing to go on with then.
        guard let pointer = clibcrypto_sha256_new() else { fatalError("libcrypto cannot make a SHA-256 context") }
        context = Context(pointer)
    }

    /// Hashes `bytes`.
    public mutating func update(bufferPointer bytes: UnsafeRawBufferPointer) {
        if !isKnownUniquelyReferenced(&context) {
            guard let copy = clibcrypto_sha256_copy(context.pointer) else {
                fatalError("libcrypto cannot copy a SHA-256 context")
            }
            context = Context(copy)
        }
        _ = clibcrypto_sha256_update(context.pointer, bytes.baseAddress, bytes.count)
    }

    /// Hashes `bytes`.
    public mutating func update(bytes: some DataProtocol) {
        for region in bytes.regions { region.withUnsafeBytes { update(bufferPointer: $0) } }
    }

    /// The 32 bytes of the digest of everything hashed so far (the hasher can go on).
    public func finalize() -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: 32)
        let ok = digest.withUnsafeMutableBufferPointer { clibcrypto_sha256_digest(context.pointer, $0.baseAddress!) }
        guard ok == 1 else { fatalError("libcrypto cannot finish a SHA-256 digest") }
        return digest
    }

    /// The digest of `bytes`.
    public static func hash(_ bytes: some DataProtocol) -> [UInt8] {
        var hasher = SHA256Hasher()
        hasher.update(bytes: bytes)
        return hasher.finalize()
    }

    /// Lower-case hex of the digest of `bytes`, as `sha256sum` prints it.
    public static func hex(_ bytes: some DataProtocol) -> String {
        HexText.lowercase(hash(bytes))
    }
}
