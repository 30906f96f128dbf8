/// Why a multipart body could not be split.
public struct MultipartError: Error, Sendable, CustomStringConvertible {
    /// What was wrong.
    public var description: String
    public init(_ description: String) { self.description = description }
}
