import RangeTapCore

/// What is wrong with a ``DASHURLTemplate``, phrased to follow the attribute's name.
struct DASHTemplateProblem: Error {
    /// E.g. `uses $SubNumber$; known identifiers are ...`.
    var text: String
    init(_ text: String) { self.text = text }
}
