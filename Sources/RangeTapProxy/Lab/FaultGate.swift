import NIOCore
import RangeTapCore

/// Applies one exchange's ``FaultPlan`` to the messages its upstream half sends to the client
/// side, in order: rewrites the head, holds everything for `delay-head` and `stall-after`, and
/// cuts the body for `reset-after` and `truncate-after`. A value type with no I/O: the handler
/// carries out the steps (HTTP/1.1 connection or HTTP/2 stream alike).
struct FaultGate {
    /// What the handler does next.
    enum Step {
        /// Hand this message to the exchange's state machine as usual.
        case forward(UpstreamMessage)
        /// A rule changed the head: record `fault` with the head the client got, once written.
        case headRewritten(rule: String, action: String, detail: String, lines: [HeaderLine])
        /// Hold everything that follows for `ns`, then call ``release()``.
        case hold(ns: Int64, rule: String, action: String, detail: String)
        /// End the response here: reset (RST) or close (FIN, or END_STREAM for HTTP/2) after
        /// the bytes forwarded so far.
        case cut(reset: Bool, rule: String, detail: String)
    }

    let plan: FaultPlan
    /// Messages held while ``holding``, in arrival order.
    private var held: [UpstreamMessage] = []
    /// Set while a hold runs.
    private(set) var holding = false
    /// Set once the response has been cut: nothing more goes to the client.
    private(set) var isCut = false
    /// Body bytes forwarded so far.
    private(set) var forwarded: Int64 = 0
    private var headDelayed = false
    private var stalled = false

    init(plan: FaultPlan) {
        self.plan = plan
    }

    /// The steps for one message from upstream.
    mutating func admit(_ message: UpstreamMessage) -> [Step] {
        if isCut { return [] }
        if holding {
            held.append(message)
            return []
        }
        switch message {
        case .head(let lines):
            if let delay = plan.delayHead, !headDelayed {
                headDelayed = true
                holding = true
                held = [message]
                return [
                    .hold(
                        ns: delay.ns, rule: delay.rule, action: "delay-head",
                        detail: "held the response head for \(Self.describe(ns: delay.ns))")
                ]
            }
            var out = lines
            var changes: [(rule: String, action: String, detail: String)] = []
            for rewrite in plan.headRewrites {
                let (changed, detail) = HeadRewrite.apply(rewrite.action, to: out)
                out = changed
                if let detail { changes.append((rewrite.rule, rewrite.action.name, detail)) }
            }
            let sent = out.filter { !$0.isBlank }
            var result: [Step] = [.forward(.head(out))]
            result += changes.map { .headRewritten(rule: $0.rule, action: $0.action, detail: $0.detail, lines: sent) }
            if let cut = plan.cut, cut.after == 0 {
                result.append(cutStep(cut))
            }
            return result
        case .body(var buffer):
            var steps: [Step] = []
            if let stall = plan.stall, !stalled, forwarded + Int64(buffer.readableBytes) > stall.after,
                plan.cut.map({ stall.after < $0.after }) ?? true
            {
                // Forward up to the stall point, hold the rest.
                let first = Int(stall.after - forwarded)
                if first > 0, let part = buffer.readSlice(length: first) {
                    forwarded += Int64(first)
                    steps.append(.forward(.body(part)))
                }
                stalled = true
                holding = true
                held = buffer.readableBytes > 0 ? [.body(buffer)] : []
                steps.append(
                    .hold(
                        ns: stall.ns, rule: stall.rule, action: "stall-after",
                        detail: "stalled for \(Self.describe(ns: stall.ns)) after \(stall.after) body bytes"))
                return steps
            }
            if let cut = plan.cut, forwarded + Int64(buffer.readableBytes) > cut.after {
                let first = Int(cut.after - forwarded)
                if first > 0, let part = buffer.readSlice(length: first) {
                    forwarded += Int64(first)
                    steps.append(.forward(.body(part)))
                }
                steps.append(cutStep(cut))
                return steps
            }
            forwarded += Int64(buffer.readableBytes)
            return [.forward(message)]
        case .interim, .end, .failed:
            return [.forward(message)]
        }
    }

    /// A hold ended: the messages held, to admit again in order.
    mutating func release() -> [UpstreamMessage] {
        holding = false
        defer { held = [] }
        return held
    }

    private mutating func cutStep(_ cut: (after: Int64, reset: Bool, rule: String)) -> Step {
        isCut = true
        holding = false
        held = []
        let how = cut.reset ? "reset the connection" : "closed the connection"
        return .cut(reset: cut.reset, rule: cut.rule, detail: "\(how) after \(cut.after) body bytes")
    }

    static func describe(ns: Int64) -> String {
        ns % 1_000_000_000 == 0 ? "\(ns / 1_000_000_000) s" : "\(ns / 1_000_000) ms"
    }
}

extension FaultGate {
    /// Request field lines (`Name: value`) without Range and If-Range, for `ignore-range`.
    static func removingRange(_ lines: [String]) -> [String] {
        lines.filter { line in
            let name = line.prefix { $0 != ":" }.lowercased()
            return name != "range" && name != "if-range"
        }
    }

    /// The lines of a head's bytes (status line and field lines, terminators kept, the blank
    /// line left out).
    static func lines(ofHead bytes: [UInt8]) -> [HeaderLine] {
        var out: [HeaderLine] = []
        var start = 0
        for (i, b) in bytes.enumerated() where b == 0x0A {
            let line = HeaderLine(raw: Latin1.string(Array(bytes[start...i])))
            start = i + 1
            if line.isBlank { break }
            out.append(line)
        }
        return out
    }
}
