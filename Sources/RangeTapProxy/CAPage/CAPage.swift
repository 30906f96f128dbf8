import RangeTapCore
import RangeTapTLS

/// What a client of the proxy gets for `http://rangetap.invalid/…`: a page with the CA in every
/// form a device takes (PEM, DER `.cer`, an Apple configuration profile) and the steps of
/// ``CATrustGuide``. `rangetap.invalid` is in the `.invalid` top-level domain, which RFC 2606
/// and RFC 6761 reserve so that it never resolves: no real origin can be hidden behind it, and
/// a request for it reaches only a proxy that answers it. Plain HTTP on purpose: before the CA
/// is trusted, nothing signed by it can be.
///
/// Served on the listener (never inside a tunnel) to every client the proxy accepts; not
/// recorded (it is rangetap's own traffic, not the player's).
enum CAPage {
    /// One answer: status, type and the bytes (the body of a GET; a HEAD sends its length).
    struct Answer {
        var status: Int
        var contentType: String
        var body: [UInt8]
        /// The file name a download is saved as (`Content-Disposition: attachment`).
        var fileName: String?
    }

    /// The files the page offers, by path.
    static let pemPath = "/rangetap-ca.pem"
    static let derPath = "/rangetap-ca.cer"
    static let profilePath = "/rangetap-ca.mobileconfig"

    /// The answer to `method path` for a proxy reached at `proxy` (`HOST:PORT`, what the client
    /// connected to) whose CA is `authority` (nil when this run does not intercept HTTPS).
    static func answer(method: String, path: String, authority: CertificateAuthority?, proxy: String) -> Answer {
        if path == "/shape" {
            return text(
                404,
                "rangetap: the link is changed with `rangetap shape` on the recording machine, over the run's own socket, never through the proxy\n"
            )
        }
        guard method == "GET" || method == "HEAD" else {
            return text(405, "rangetap: the CA page answers GET and HEAD only\n")
        }
        guard let authority else {
            if path == "/" || path == "/index.html" {
                return html(
                    page(
                        title: "rangetap: HTTPS is not intercepted",
                        body:
                            "<p>This recording relays HTTPS tunnels unopened (<code>--no-intercept '*'</code>), so there is no CA to trust.</p>"
                    ))
            }
            return text(
                404, "rangetap: this recording intercepts no HTTPS and has no CA (started with --no-intercept '*')\n")
        }
        do {
            switch path {
            case "/", "/index.html":
                return html(index(authority, proxy: proxy))
            case pemPath, "/ca.pem":
                return Answer(
                    status: 200, contentType: "application/x-pem-file", body: Array(authority.certificatePEM.utf8),
                    fileName: "rangetap-ca.pem")
            case derPath, "/ca.cer", "/ca.crt", "/ca.der":
                // The type Android's browser and Windows install a CA certificate from.
                return Answer(
                    status: 200, contentType: "application/x-x509-ca-cert", body: try authority.certificateDER(),
                    fileName: "rangetap-ca.cer")
            case profilePath, "/ca.mobileconfig":
                return Answer(
                    status: 200, contentType: "application/x-apple-aspen-config",
                    body: Array(try CAProfile.xml(for: authority).utf8), fileName: "rangetap-ca.mobileconfig")
            default:
                return text(
                    404,
                    "rangetap: no \(path) here; the CA page is http://\(LinkControlRequest.host)/ (files \(pemPath), \(derPath), \(profilePath))\n"
                )
            }
        } catch {
            return text(500, "rangetap: \(error)\n")
        }
    }

    private static func index(_ authority: CertificateAuthority, proxy: String) -> String {
        let guide = CATrustGuide(
            pem: "rangetap-ca.pem", der: "rangetap-ca.cer", proxy: proxy, pageURL: "http://\(LinkControlRequest.host)/",
            commonName: authority.commonName)
        var body = """
            <p>This device reaches rangetap at <code>\(HTMLEscaping.escape(proxy))</code>. To let it record this \
            device's HTTPS, trust its CA, then remove it when you are done: anyone with its key can read this \
            device's HTTPS.</p>
            <p class="files"><a href="\(profilePath)">configuration profile</a> (iPhone, iPad, Mac) ·
            <a href="\(derPath)">rangetap-ca.cer</a> (DER: Android, Windows, Java) ·
            <a href="\(pemPath)">rangetap-ca.pem</a> (PEM: curl, ffmpeg, Python, Node, NSS)</p>
            <p>Certificate <b>\(HTMLEscaping.escape(authority.commonName))</b>, SHA-256
            <code class="fp">\(HTMLEscaping.escape(authority.fingerprintSHA256))</code>: compare it with
            <code>rangetap ca info</code> on the recording machine.</p>

            """
        for platform in guide.platforms {
            body += "<h2>\(HTMLEscaping.escape(platform.name))</h2>\n<ol>\n"
            for step in platform.steps { body += "<li>\(HTMLEscaping.escape(step))</li>\n" }
            body += "</ol>\n"
        }
        return page(title: "rangetap CA", body: body)
    }

    private static func page(title: String, body: String) -> String {
        """
        <!DOCTYPE html>
        <html lang="en"><head><meta charset="utf-8">
        <meta name="viewport" content="width=device-width, initial-scale=1">
        <title>\(HTMLEscaping.escape(title))</title>
        <style>body{font:16px/1.45 system-ui,sans-serif;max-width:46em;margin:1em auto;padding:0 1em}
        code{font:14px ui-monospace,monospace;background:#f2f2f2;padding:0 .2em;word-break:break-all}
        h2{font-size:1.05em;margin:1.2em 0 .3em}li{margin:.2em 0}.files a{font-weight:600}</style>
        </head><body><h1>\(HTMLEscaping.escape(title))</h1>
        \(body)</body></html>

        """
    }

    private static func html(_ text: String) -> Answer {
        Answer(status: 200, contentType: "text/html; charset=utf-8", body: Array(text.utf8), fileName: nil)
    }

    private static func text(_ status: Int, _ message: String) -> Answer {
        Answer(status: status, contentType: "text/plain; charset=utf-8", body: Array(message.utf8), fileName: nil)
    }
}
