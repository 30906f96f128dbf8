/// A HAR file could not be turned into a capture.
public struct HARImportError: Error, CustomStringConvertible, Sendable {
    /// What was wrong, in words.
    public let description: String

    init(_ description: String) { self.description = description }

    /// The input is not JSON.
    static func notJSON(_ path: String, reason: String) -> HARImportError {
        HARImportError("\(path) is not JSON (\(reason)); give a HAR file as browser developer tools export it")
    }

    /// A field is missing or has the wrong type; `field` is its path (`log.entries[3].request.url`).
    static func field(_ field: String, _ problem: String) -> HARImportError {
        HARImportError("not a HAR 1.2 file: \(field) \(problem)")
    }

    /// The capture could not be written.
    static func cannotWrite(_ reason: String) -> HARImportError {
        HARImportError(reason)
    }
}
