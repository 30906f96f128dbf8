import Foundation
import RangeTapCore
import RangeTapTLS

/// The CA as an Apple configuration profile (`.mobileconfig`): one `com.apple.security.root`
/// payload holding the DER certificate, which iOS and macOS install from Safari. Its identifiers
/// and UUIDs are derived from the certificate's SHA-256, so the same CA always gives the same
/// profile (installing it again replaces it, never adds a second).
public enum CAProfile {
    /// The profile's XML property list.
    public static func xml(for authority: CertificateAuthority) throws(TLSError) -> String {
        let der = try authority.certificateDER()
        let digest = try authority.fingerprintBytes()
        let id = "invalid.rangetap.ca." + digest.prefix(8).map { String(format: "%02x", $0) }.joined()
        let name = HTMLEscaping.escape(authority.commonName)
        let base64 = Data(der).base64EncodedString(options: [.lineLength64Characters, .endLineWithLineFeed])
        return """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <plist version="1.0">
            <dict>
            \t<key>PayloadContent</key>
            \t<array>
            \t\t<dict>
            \t\t\t<key>PayloadCertificateFileName</key>
            \t\t\t<string>rangetap-ca.cer</string>
            \t\t\t<key>PayloadContent</key>
            \t\t\t<data>
            \(base64)
            \t\t\t</data>
            \t\t\t<key>PayloadDescription</key>
            \t\t\t<string>Adds the CA certificate of rangetap, the recording proxy.</string>
            \t\t\t<key>PayloadDisplayName</key>
            \t\t\t<string>\(name)</string>
            \t\t\t<key>PayloadIdentifier</key>
            \t\t\t<string>\(id).certificate</string>
            \t\t\t<key>PayloadType</key>
            \t\t\t<string>com.apple.security.root</string>
            \t\t\t<key>PayloadUUID</key>
            \t\t\t<string>\(uuid(digest[0..<16]))</string>
            \t\t\t<key>PayloadVersion</key>
            \t\t\t<integer>1</integer>
            \t\t</dict>
            \t</array>
            \t<key>PayloadDescription</key>
            \t<string>Lets rangetap record this device's HTTPS. Remove it when you are done debugging.</string>
            \t<key>PayloadDisplayName</key>
            \t<string>rangetap CA</string>
            \t<key>PayloadIdentifier</key>
            \t<string>\(id)</string>
            \t<key>PayloadRemovalDisallowed</key>
            \t<false/>
            \t<key>PayloadType</key>
            \t<string>Configuration</string>
            \t<key>PayloadUUID</key>
            \t<string>\(uuid(digest[16..<32]))</string>
            \t<key>PayloadVersion</key>
            \t<integer>1</integer>
            </dict>
            </plist>

            """
    }

    /// 16 bytes as an RFC 9562 name-based UUID (version 8, variant 10): upper-case, as Apple's
    /// tools write them.
    static func uuid(_ bytes: ArraySlice<UInt8>) -> String {
        var b = Array(bytes)
        b[6] = (b[6] & 0x0F) | 0x80
        b[8] = (b[8] & 0x3F) | 0x80
        let hex = b.map { String(format: "%02X", $0) }.joined()
        let parts = [0..<8, 8..<12, 12..<16, 16..<20, 20..<32].map { r in
            String(hex.dropFirst(r.lowerBound).prefix(r.count))
        }
        return parts.joined(separator: "-")
    }
}
