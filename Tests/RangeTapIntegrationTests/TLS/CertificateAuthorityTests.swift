import Foundation
import RangeTapTLS
import RangeTapTestSupport
import Testing

/// The local CA and its leaves, checked by openssl (an independent verifier), and the hello
/// reader that names what a handshake negotiated.
@Suite struct CertificateAuthorityTests {
    func openssl(_ args: [String]) throws -> CommandResult { try runCommand(try Paths.tool("openssl"), args) }

    @Test func aNewCAIsWrittenPrivatelyAndLoadsBack() throws {
        let dir = Paths.temporaryDirectory("ca") + "/nested/ca"
        let (ca, created) = try CertificateAuthority.loadOrCreate(in: dir)
        #expect(created)
        var st = stat()
        #expect(stat(ca.keyPath, &st) == 0 && st.st_mode & 0o777 == 0o600)
        #expect(stat(dir, &st) == 0 && st.st_mode & 0o777 == 0o700)
        let (again, createdAgain) = try CertificateAuthority.loadOrCreate(in: dir)
        #expect(!createdAgain && again.fingerprintSHA256 == ca.fingerprintSHA256)
        // openssl agrees on the fingerprint and sees a CA.
        let text = try openssl(["x509", "-in", ca.certificatePath, "-noout", "-fingerprint", "-sha256", "-text"])
        #expect(
            text.text.contains("sha256 Fingerprint=\(ca.fingerprintSHA256)")
                || text.text.contains("SHA256 Fingerprint=\(ca.fingerprintSHA256)"), "\(text.text.prefix(300))")
        #expect(text.text.contains("CA:TRUE"))
        #expect(text.text.contains("ASN1 OID: prime256v1"))
    }

    @Test func aKeyReadableByOthersIsRefusedWithTheFix() throws {
        let dir = Paths.temporaryDirectory("ca-open")
        let ca = try CertificateAuthority.create(in: dir)
        chmod(ca.keyPath, 0o644)
        #expect(throws: TLSError.keyTooOpen(ca.keyPath, mode: "644")) { try CertificateAuthority.load(from: dir) }
        #expect(TLSError.keyTooOpen(ca.keyPath, mode: "644").description.contains("chmod 600"))
    }

    @Test func aKeyThatIsNotTheCertificatesIsRefused() throws {
        let a = try CertificateAuthority.create(in: Paths.temporaryDirectory("ca-a"))
        let b = try CertificateAuthority.create(in: Paths.temporaryDirectory("ca-b"))
        try FileManager.default.removeItem(atPath: a.keyPath)
        try FileManager.default.copyItem(atPath: b.keyPath, toPath: a.keyPath)
        chmod(a.keyPath, 0o600)
        #expect {
            try CertificateAuthority.load(from: a.directory)
        } throws: { error in
            "\(error)".contains("does not belong to the certificate")
        }
    }

    @Test(arguments: ["media.example.com", "127.0.0.1", "::1"])
    func leavesVerifyAgainstTheCAForTheirHost(_ host: String) throws {
        let dir = Paths.temporaryDirectory("ca-leaf")
        let ca = try CertificateAuthority.create(in: dir)
        let leaves = try LeafCertificates(authority: ca)
        let leaf = try leaves.certificate(for: host)
        let pem = dir + "/leaf.pem"
        try Data(leaf).write(to: URL(fileURLWithPath: dir + "/leaf.der"))
        #expect(try openssl(["x509", "-inform", "DER", "-in", dir + "/leaf.der", "-out", pem]).status == 0)
        let check = host.contains(".") && !host.first!.isNumber ? ["-verify_hostname", host] : ["-verify_ip", host]
        let verify = try openssl(["verify", "-CAfile", ca.certificatePath, "-purpose", "sslserver"] + check + [pem])
        #expect(verify.status == 0, "\(verify.text) \(verify.stderr)")
        let other = try openssl(["verify", "-CAfile", ca.certificatePath, "-verify_hostname", "other.example.com", pem])
        #expect(other.status != 0, "a leaf for \(host) must not be valid for another host")
        // Cached: the same host gets the same certificate; a new host a new one.
        _ = try leaves.certificate(for: host.uppercased())
        #expect(leaves.minted == 1)
        _ = try leaves.certificate(for: "another.example")
        #expect(leaves.minted == 2)
    }

    @Test func helloReaderNamesSNIALPNCipherAndVersion() {
        func u16(_ v: Int) -> [UInt8] { [UInt8(v >> 8), UInt8(v & 0xFF)] }
        func record(_ type: UInt8, _ body: [UInt8]) -> [UInt8] {
            let hs = [type, 0, UInt8(body.count >> 8), UInt8(body.count & 0xFF)] + body
            return [22, 3, 1] + u16(hs.count) + hs
        }
        let name = Array("cdn.example.com".utf8)
        let sni = u16(0) + u16(name.count + 5) + u16(name.count + 3) + [0] + u16(name.count) + name
        let protocols: [UInt8] = [2] + Array("h2".utf8) + [8] + Array("http/1.1".utf8)
        let alpn = u16(16) + u16(protocols.count + 2) + u16(protocols.count) + protocols
        let exts = sni + alpn
        let clientBody =
            u16(0x0303) + [UInt8](repeating: 7, count: 32) + [0] + u16(2) + u16(0x1301) + [1, 0] + u16(exts.count)
            + exts
        let client = record(1, clientBody)
        #expect(
            TLSHello.client(client)
                == .parsed(.init(serverName: "cdn.example.com", applicationProtocols: ["h2", "http/1.1"])))
        #expect(TLSHello.client(Array(client.prefix(20))) == .needMore)
        #expect(TLSHello.client(Array("GET / HTTP/1.1\r\n".utf8)) == .notTLS)
        let versions = u16(43) + u16(2) + u16(0x0304)
        let serverBody =
            u16(0x0303) + [UInt8](repeating: 9, count: 32) + [0] + u16(0x1302) + [0] + u16(versions.count) + versions
        #expect(TLSHello.server(record(2, serverBody)) == .parsed(.init(cipherSuite: 0x1302, version: 0x0304)))
        #expect(TLSHello.cipherName(0x1302) == "TLS_AES_256_GCM_SHA384" && TLSHello.versionName(0x0304) == "TLSv1.3")
        #expect(TLSHello.cipherName(0xABCD) == "0xABCD")
        // Truncated and lying lengths never trap.
        var lying = client
        lying[lying.count - 30] = 0xFF
        _ = TLSHello.client(lying)
        for n in 0..<client.count { _ = TLSHello.client(Array(client.prefix(n))) }
    }
}
