import Foundation
import RangeTapCore
import Synchronization

/// Totals of a recording, for the closing summary line.
/// What `record` says when it stops (the capture's totals, as `rangetap summary` counts them).
public typealias RecordingSummary = CaptureTotals

/// Watches the events the capture writer has written and prints one line per finished
/// exchange. Runs on the writer thread, off the forwarding path.
final class LiveLog: Sendable {
    private let sink: (@Sendable (String) -> Void)?
    private let state = Mutex(
        (log: ExchangeLog(keepChunks: false, redactsURLPasswords: true), summary: RecordingSummary()))

    init(sink: (@Sendable (String) -> Void)?) {
        self.sink = sink
    }

    var summary: RecordingSummary { state.withLock { $0.summary } }

    /// Takes one batch of written events (see ``CaptureWriter``) and hands the sink the lines
    /// of the exchanges they finished in one call, newline-separated: one `write(2)` to stderr
    /// per batch rather than one per exchange.
    func observe(_ events: [CaptureEvent]) {
        let lines: [String] = state.withLock { s in
            var lines: [String] = []
            for event in events {
                if let line = Self.line(for: event, in: &s) { lines.append(line) }
            }
            return lines
        }
        if !lines.isEmpty, let sink { sink(lines.joined(separator: "\n")) }
    }

    private static func line(
        for event: CaptureEvent, in s: inout (log: ExchangeLog, summary: RecordingSummary)
    ) -> String? {
        switch event {
        case .connectionOpen: s.summary.connections += 1
        case .error(let e) where e.exchange == nil:
            s.summary.errors += 1
            return
                "conn \(e.connection.map(String.init) ?? "?") ERROR \(TerminalText.escapingControls(URLRedaction.redactingURLPasswords(inText: e.message)))"
        case .fault(let f):
            // As it fires, before the exchange's own line.
            _ = s.log.apply(event)
            return
                f.action == "map"
                ? "#\(f.exchange) MAPPED: \(TerminalText.escapingControls(f.detail)) (--map '\(TerminalText.escapingControls(f.rule))')"
                : "#\(f.exchange) FAULT \(f.action): \(TerminalText.escapingControls(f.detail)) (--fault '\(TerminalText.escapingControls(f.rule))')"
        case .tls(let e) where e.outcome != .established:
            // Said at once: a client that does not trust the CA is the most common first-day problem.
            let host = TerminalText.escapingControls(e.serverName ?? e.authority)
            let what =
                e.outcome == .rejected
                ? "TLS REJECTED: the client refused rangetap's certificate for \(host)"
                : "TLS FAILED with \(host)"
            return
                "conn \(e.connection) \(what): \(TerminalText.escapingControls(e.reason ?? "no reason given"))"
        case .shape(let e):
            _ = s.log.apply(event)
            return "link shaped: \(e.spec)\(e.trace.map { " (trace \(TerminalText.escapingControls($0)))" } ?? "")"
        default: break
        }
        guard let done = s.log.apply(event) else { return nil }
        s.log.forget(done.id)
        var tunnel: TunnelEvent?
        if case .tunnel(let t) = event { tunnel = t }
        s.summary.add(done, tunnel: tunnel)
        return done.summaryLine
    }

    /// The capture could not be written: say so at once. The proxy goes on forwarding.
    func captureStopped(_ error: CaptureError) {
        sink?("RECORDING STOPPED: \(error) The proxy keeps forwarding; nothing more is recorded.")
    }
}
