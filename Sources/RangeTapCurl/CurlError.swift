/// libcurl could not be set up.
public struct CurlError: Error, Sendable, Hashable, CustomStringConvertible {
    private enum Code: Sendable, Hashable {
        case globalInit(Int)
        case multiInit
    }
    private let code: Code
    private init(_ code: Code) { self.code = code }

    /// `curl_global_init` failed.
    public static func globalInit(_ code: Int) -> Self { .init(.globalInit(code)) }
    /// `curl_multi_init` returned nothing.
    public static let multiInit = Self(.multiInit)

    public var description: String {
        switch code {
        case .globalInit(let c): "libcurl failed to initialise (CURLcode \(c)); check that libcurl4 is installed"
        case .multiInit: "libcurl could not create a multi handle (out of memory?)"
        }
    }
}
