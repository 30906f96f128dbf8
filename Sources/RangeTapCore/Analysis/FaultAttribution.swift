/// Which findings a `--fault` rule caused: one rule for every finding, decided here
/// (docs/lab.md, "What inspect blames on a rule").
///
/// - **On the faulted exchange**, a finding is the rule's when the rule's action can cause a
///   finding of that code (``causes(action:code:)``): a rewritten head its head and range
///   findings, a cut or a hold its body and outcome findings, an answer rangetap gave without
///   asking the origin (`status=`) every finding. A finding about what the origin itself sent
///   and no action touched (its `Connection: close`, an HTTP/1.0 status line, bare LFs) is never
///   the rule's: it stays the origin's, and counts in the summary.
/// - **A client's answer to a fault** is the rule's too: a refetch, a seek, an out-of-order or
///   cancelled segment, a rendition switch, on one of the next ``followUpWindow`` requests for
///   the same resource after the faulted exchange.
public enum FaultAttribution {
    /// Requests for the same resource after a faulted exchange whose client-behaviour findings
    /// are the client's answer to the fault.
    public static let followUpWindow = 5

    /// Findings about the head the client got: its spelling and its range answer.
    static let headCodes: Set<String> = [
        "header-case", "header-duplicate-case", "range-ignored", "206-without-content-range", "content-range-mismatch",
        "content-range-invalid", "416-without-length", "multipart-byteranges", "multipart-part-invalid",
        "accept-ranges-missing", "inclusive-end-off-by-one", "range-beyond-length", "content-length-mismatch",
    ]
    /// Findings about how the body ended.
    static let bodyCodes: Set<String> = [
        "content-length-mismatch", "truncated", "closed-mid-response", "upstream-error", "cancelled", "early-cancel",
        "segment-cancelled",
    ]
    /// What a client does in answer to a fault (on the faulted exchange or a later one).
    static let answerCodes: Set<String> = [
        "refetched", "segment-refetched", "segment-out-of-order", "seek", "rendition-switch", "buffer-ahead",
        "cancelled", "early-cancel", "segment-cancelled",
    ]

    /// Whether a fault with `action` (a `fault` event's `action`) can cause a finding with `code`
    /// on the exchange it was injected into.
    public static func causes(action: String, code: String) -> Bool {
        if answerCodes.contains(code) { return true }
        switch action {
        case "status", "map": return true
        case "header-case": return code == "header-case" || code == "header-duplicate-case"
        case "drop-header", "off-by-one", "ignore-range": return headCodes.contains(code)
        case "reset-after", "truncate-after", "stall-after", "delay-head": return bodyCodes.contains(code)
        default: return false
        }
    }

    /// Marks the findings of `analysis` the faults caused with their rules, and unmarks the
    /// rest (the origin's).
    public static func apply(to analysis: inout CaptureAnalysis) {
        // The faulted exchanges, and the next requests for the same resource after each.
        var followUps: [Int: [String]] = [:]
        var open: [String: (rules: [String], left: Int)] = [:]
        for e in analysis.exchanges {
            let r = e.record
            let resource = r.resource
            if r.faults.isEmpty, var o = open[resource], o.left > 0 {
                followUps[r.id] = o.rules
                o.left -= 1
                open[resource] = o
            }
            if let rules = r.faultRules { open[resource] = (rules, followUpWindow) }
        }
        for i in analysis.exchanges.indices {
            let r = analysis.exchanges[i].record
            let actions = Set(r.faults.map(\.action))
            let rules = r.faultRules
            let followed = followUps[r.id]
            for j in analysis.exchanges[i].findings.indices {
                let code = analysis.exchanges[i].findings[j].code
                if let rules, actions.contains(where: { causes(action: $0, code: code) }) {
                    analysis.exchanges[i].findings[j].rules = rules
                } else if let followed, answerCodes.contains(code) {
                    analysis.exchanges[i].findings[j].rules = followed
                } else {
                    analysis.exchanges[i].findings[j].rules = nil
                }
            }
        }
        let byID = Dictionary(analysis.exchanges.map { ($0.record.id, $0.record) }, uniquingKeysWith: { a, _ in a })
        for j in analysis.findings.indices {
            guard let ex = analysis.findings[j].exchange, let r = byID[ex] else { continue }
            let code = analysis.findings[j].code
            if let rules = r.faultRules, r.faults.contains(where: { causes(action: $0.action, code: code) }) {
                analysis.findings[j].rules = rules
            } else if let followed = followUps[ex], answerCodes.contains(code) {
                analysis.findings[j].rules = followed
            }
        }
    }
}
