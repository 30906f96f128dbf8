/// The CA certificate in the forms clients other than curl take: DER (`.cer`: Android, Windows,
/// Apple's configuration profiles), its SHA-256 as bytes, and its common name (the name iOS shows
/// under Certificate Trust Settings).
extension CertificateAuthority {
    /// The certificate's DER bytes.
    public func certificateDER() throws(TLSError) -> [UInt8] {
        do {
            return try certificate.der()
        } catch {
            throw .unreadable(certificatePath, "cannot encode the certificate as DER (\(error.reason))")
        }
    }

    /// SHA-256 of the DER bytes.
    public func fingerprintBytes() throws(TLSError) -> [UInt8] {
        do {
            return try certificate.sha256()
        } catch {
            throw .unreadable(certificatePath, "cannot hash the certificate (\(error.reason))")
        }
    }

    /// The subject's common name (`rangetap local CA (host)`), or the whole subject when it has none.
    public var commonName: String {
        for part in subject.split(separator: ",") where part.hasPrefix("CN=") {
            return String(part.dropFirst(3))
        }
        return subject
    }
}
