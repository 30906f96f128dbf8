/// Why a multipart body could not be split.
struct MultipartError: Error, Sendable, CustomStringConvertible {
    /// What was wrong.
    var description: String
    init(_ description: String) { self.description = description }
}
