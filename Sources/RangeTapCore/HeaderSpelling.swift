/// Public entry to rangetap's header spelling knowledge (the checks ``CaptureAnalysis`` runs on
/// recorded exchanges): names not in their usual case, one field sent twice in different case,
/// conflicting duplicate values, bare-LF line endings.
public enum HeaderSpelling {
    /// The usual spelling of a field whose lookups matter to players and caches (`Content-Range`
    /// for `content-range`), or `nil` when rangetap has no opinion on that name.
    public static func usualSpelling(of name: some StringProtocol) -> String? {
        HeaderCaseCheck.canonical[name.lowercased()]
    }

    /// The spelling findings for the lines of one head (status line and blank line may be
    /// included): codes `header-case`, `header-duplicate-case`, `header-conflict`, `bare-lf`,
    /// each with the raw lines as evidence. `side` starts each message ("response", "request").
    /// `overHTTP2`: the head came over HTTP/2, where names are lower-case by definition, so no
    /// `header-case` finding is made.
    public static func findings(in lines: [HeaderLine], side: String = "response", overHTTP2: Bool = false) -> [Finding]
    {
        HeaderCaseCheck.findings(lines: lines, exchange: 0, side: side, overHTTP2: overHTTP2).map { finding in
            var f = finding
            f.exchange = nil
            return f
        }
    }
}
