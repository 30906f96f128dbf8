import CLibcrypto

/// What the system's libcrypto refused, with its own reason.
struct LibcryptoError: Error, CustomStringConvertible {
    /// What rangetap was doing.
    var action: String
    /// libcrypto's reason (its first queued error).
    var reason: String

    var description: String { "\(action) (libcrypto: \(reason))" }

    /// `action`, with the first error libcrypto queued on this thread (the queue is cleared).
    static func last(_ action: String) -> LibcryptoError {
        var text: UnsafeMutablePointer<CChar>?
        clibcrypto_error(&text)
        defer { clibcrypto_free(text) }
        return LibcryptoError(action: action, reason: text.map { String(cString: $0) } ?? "no detail")
    }
}
