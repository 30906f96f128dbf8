import RangeTapCore

extension StringProtocol {
    /// Drops leading and trailing white space (blanks, tabs, line ends) from a lab text: a
    /// `--shape`/`--fault` item or a line of a trace or rules file.
    func trimmingLabBlanks() -> Substring {
        var s = Substring(self)
        while let c = s.first, c.isWhitespace { s = s.dropFirst() }
        while let c = s.last, c.isWhitespace { s = s.dropLast() }
        return s
    }
}
