import Foundation
import RangeTapCore

/// The user and password a client must show in `Proxy-Authorization: Basic` (`--proxy-auth`),
/// so that a proxy listening beyond loopback is not an open proxy.
public struct ProxyCredentials: Sendable, Equatable, CustomStringConvertible {
    /// The user name.
    public let user: String
    /// The password.
    public let password: String
    /// The token a client sends after `Basic `: base64 of `user:password`.
    let token: String

    /// Credentials from their two parts.
    public init(user: String, password: String) {
        self.user = user
        self.password = password
        token = Data("\(user):\(password)".utf8).base64EncodedString()
    }

    /// Why `--proxy-auth` could not be read.
    public struct ParseError: Error, Sendable, CustomStringConvertible {
        public let description: String
    }

    /// Reads `USER:PASS` (the password may contain colons; the user may not).
    public init(parsing text: String) throws(ParseError) {
        guard let colon = text.firstIndex(of: ":"), colon != text.startIndex, text.index(after: colon) != text.endIndex
        else {
            throw ParseError(
                description: "--proxy-auth \(text.isEmpty ? "''" : "…"): expected USER:PASS, both non-empty")
        }
        let user = String(text[..<colon])
        let password = String(text[text.index(after: colon)...])
        guard !(user + password).unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
            throw ParseError(description: "--proxy-auth: the user and password may not hold control characters")
        }
        self.init(user: user, password: password)
    }

    /// New credentials for one run: user `rangetap`, a password of 20 random letters and digits
    /// (about 119 bits).
    public static func generate() -> ProxyCredentials {
        let alphabet = Array("abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789")
        var g = SystemRandomNumberGenerator()
        let password = String((0..<20).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &g)] })
        return ProxyCredentials(user: "rangetap", password: password)
    }

    /// Whether a `Proxy-Authorization` value shows these credentials (scheme `Basic`, any case;
    /// the token compared in time independent of where it differs).
    func accepts(_ value: String?) -> Bool {
        guard let value else { return false }
        let parts = value.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "basic" else { return false }
        return ConstantTime.equal(parts[1].trimmingCharacters(in: .whitespaces), token)
    }

    /// The user only: the password is never printed by accident.
    public var description: String { "\(user):…" }
}
