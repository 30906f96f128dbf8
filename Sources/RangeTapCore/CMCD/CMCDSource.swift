/// Where a request carried CMCD (CTA-5004 §2): the `CMCD` query parameter, or one of the four
/// headers, each meant for its own keys.
public enum CMCDSource: String, Sendable, Hashable, Encodable, CaseIterable {
    /// The `CMCD=` query parameter (any key).
    case query
    /// `CMCD-Request`: keys that vary with each request (`bl`, `dl`, `mtp`, `nor`, `nrr`, `su`).
    case request = "CMCD-Request"
    /// `CMCD-Object`: keys about the object fetched (`br`, `d`, `ot`, `tb`).
    case object = "CMCD-Object"
    /// `CMCD-Status`: keys that change rarely (`bs`, `rtp`).
    case status = "CMCD-Status"
    /// `CMCD-Session`: keys fixed for the session (`cid`, `pr`, `sf`, `sid`, `st`, `v`).
    case session = "CMCD-Session"

    /// How the source is named in messages: `the CMCD query parameter`, `CMCD-Request`.
    public var label: String { self == .query ? "the CMCD query parameter" : rawValue }
}
