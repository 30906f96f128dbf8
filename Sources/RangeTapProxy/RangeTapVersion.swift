/// rangetap's version, written into every capture header.
public enum RangeTapVersion {
    /// The version string.
    public static let current = "0.1.0"
}
