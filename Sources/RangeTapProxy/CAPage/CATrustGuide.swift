/// How to make each kind of client trust rangetap's CA, short enough to follow from a phone:
/// the steps `rangetap ca info` prints and the CA page (`http://rangetap.invalid/`) shows come
/// from this one list, so the two never disagree.
public struct CATrustGuide: Sendable {
    /// One kind of client and its steps, each a line (commands as typed).
    public struct Platform: Sendable, Equatable {
        /// The client or operating system.
        public let name: String
        /// What to do, in order.
        public let steps: [String]
    }

    /// Every platform, devices first.
    public let platforms: [Platform]

    /// The steps for a CA whose PEM file is named `pem` and DER file `der` (paths on this
    /// machine for `ca info`, the downloaded names on the page), used through the proxy at
    /// `proxy` (`HOST:PORT`), whose page is `pageURL`, and whose certificate iOS lists as
    /// `commonName`.
    public init(pem: String, der: String, proxy: String, pageURL: String, commonName: String) {
        let px = "http://\(proxy)"
        platforms = [
            Platform(
                name: "iPhone, iPad",
                steps: [
                    "Settings > Wi-Fi > (i) > Configure Proxy > Manual: server and port of \(proxy).",
                    "In Safari open \(pageURL) and tap \"configuration profile\"; allow the download.",
                    "Settings > General > VPN & Device Management > rangetap CA > Install.",
                    "Settings > General > About > Certificate Trust Settings: switch on \"\(commonName)\""
                        + " (without this switch iOS installs the profile but trusts nothing).",
                ]),
            Platform(
                name: "iOS Simulator",
                steps: ["xcrun simctl keychain booted add-root-cert \(pem)"]),
            Platform(
                name: "Android device or emulator",
                steps: [
                    "Settings > Network > Wi-Fi > (network) > Proxy > Manual: \(proxy);"
                        + " emulator: emulator -http-proxy \(px).",
                    "Download \(der) from \(pageURL), then Settings > Security > Encryption & credentials"
                        + " > Install a certificate > CA certificate.",
                    "Apps trust user CAs only if their network_security_config says"
                        + " <trust-anchors><certificates src=\"user\"/></trust-anchors>.",
                    "Rooted emulator (emulator -writable-system; adb root; adb remount): copy the PEM as"
                        + " /system/etc/security/cacerts/$(openssl x509 -subject_hash_old -noout -in \(pem)).0, mode 644, reboot.",
                ]),
            Platform(
                name: "macOS",
                steps: [
                    "sudo security add-trusted-cert -d -r trustRoot -k /Library/Keychains/System.keychain \(pem)",
                    "Remove: sudo security delete-certificate -c \"\(commonName)\" /Library/Keychains/System.keychain",
                ]),
            Platform(
                name: "Windows",
                steps: [
                    "certutil -user -addstore Root \(der) (this user; an administrator's certutil -addstore Root: all users)",
                    "Remove: certutil -user -delstore Root \"\(commonName)\"",
                ]),
            Platform(
                name: "Chromium, Firefox (NSS)",
                steps: [
                    "rangetap ca trust --nss (Chromium's ~/.pki/nssdb), or --nss PROFILE_DIR for a Firefox profile;"
                        + " undo: rangetap ca untrust.",
                    "By hand: certutil -d sql:$HOME/.pki/nssdb -A -t C,, -n rangetap -i \(pem)",
                    "Start the browser with --proxy-server=\(px) (Firefox: Settings > Network Settings).",
                ]),
            Platform(
                name: "Debian, Ubuntu (system store: OpenSSL, GnuTLS, GStreamer's playbin)",
                steps: ["rangetap ca trust --system; undo: rangetap ca untrust --system"]),
            Platform(
                name: "curl",
                steps: ["curl --cacert \(pem) -x \(px) https://…"]),
            Platform(
                name: "ffmpeg",
                steps: ["ffmpeg -http_proxy \(px) -tls_verify 1 -ca_file \(pem) -i https://…"]),
            Platform(
                name: "GStreamer",
                steps: [
                    "gst-launch-1.0 souphttpsrc location=https://… proxy=\(px) ssl-ca-file=\(pem) ! …",
                    "playbin takes no CA file: trust the system store (above), or set tls-database from source-setup.",
                ]),
            Platform(
                name: "Python",
                steps: ["REQUESTS_CA_BUNDLE=\(pem) (requests); SSL_CERT_FILE=\(pem) (ssl, urllib, httpx)"]),
            Platform(
                name: "Node.js",
                steps: ["NODE_EXTRA_CA_CERTS=\(pem) node …"]),
            Platform(
                name: "Java",
                steps: [
                    "keytool -importcert -cacerts -storepass changeit -noprompt -alias rangetap -file \(pem)",
                    "Remove: keytool -delete -cacerts -storepass changeit -alias rangetap",
                ]),
        ]
    }

    /// The steps as `ca info` prints them: each platform's name, then its steps indented.
    public var text: String {
        var out = ""
        for platform in platforms {
            out += "  \(platform.name)\n"
            for step in platform.steps { out += "      \(step)\n" }
        }
        return out
    }
}
