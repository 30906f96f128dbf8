import CCurl

/// The libcurl this process runs with, for working around bugs of known versions.
/// (`CURLVERSION_FIRST`: the fields read here are in every layout of the answer; the
/// `CURLVERSION_NOW` macro does not reach Swift.)
public enum CurlVersion {
    /// The version as `0xXXYYZZ` (8.0.0 is `0x080000`).
    public static let number: Int = Int(curl_version_info(CURLVERSION_FIRST).pointee.version_num)
    /// The version as text, such as `7.88.1`.
    public static let text: String = String(cString: curl_version_info(CURLVERSION_FIRST).pointee.version)

    /// Whether a second request on an HTTP/2 connection made with prior knowledge (h2c) fails
    /// with `CURLE_HTTP2`: libcurl before 8.0.0 (curl issue #10634, fixed by pull request #10643).
    public static var failsToReuseH2C: Bool { number < 0x08_00_00 }
}
