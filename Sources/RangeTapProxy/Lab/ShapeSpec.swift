import RangeTapCore

/// How the client's downlink is shaped (`record --shape`, `--shape-trace`, `rangetap shape`):
/// a bottleneck rate or a Mahimahi trace, a one-way latency and its jitter.
///
/// Only the direction towards the client (responses) is shaped; requests go out as they come.
/// The text form is `rate=2mbit,latency=80ms,jitter=10ms,scope=link` (any subset of the keys, in
/// any order) or `off`. With a ``trace`` the trace drives the link and ``rateBitsPerSecond`` is
/// not used (``withTrace(_:name:)`` refuses the two together).
public struct ShapeSpec: Sendable, Equatable, CustomStringConvertible {
    /// Who shares one bottleneck.
    public enum Scope: String, Sendable {
        /// All client connections share one link, as on one device's access network.
        case link
        /// Each client connection has a link of its own.
        case connection
    }

    /// The bottleneck's rate in bits per second; nil when the rate is not limited.
    public var rateBitsPerSecond: Int64?
    /// One-way delay added to every departure, in nanoseconds.
    public var latencyNs: Int64
    /// Each departure's delay varies by a uniform sample in `-jitterNs...jitterNs`.
    public var jitterNs: Int64
    /// Whether connections share the bottleneck.
    public var scope: Scope
    /// The Mahimahi trace that drives the link instead of a fixed rate (set by the caller from
    /// `--shape-trace`).
    public var trace: MahimahiTrace?
    /// The trace's path as given, for the capture.
    public var traceName: String?

    /// The keys of the text form, in the order messages list them.
    static let keys = ["rate", "latency", "jitter", "scope"]

    /// No shaping.
    public init() {
        rateBitsPerSecond = nil
        latencyNs = 0
        jitterNs = 0
        scope = .link
        trace = nil
        traceName = nil
    }

    /// Parses `rate=2mbit,latency=80ms,jitter=10ms,scope=link` (any subset) or `off`.
    ///
    /// Rates are bits per second with a unit (`64000bit`, `500kbit`, `1.5mbit`, `1gbit`); byte
    /// spellings such as `mbps` are refused. Durations are ``DurationText``'s (`80ms`, `1.5s`).
    /// `scope` is `link` (the default) or `connection`.
    public init(parsing text: String) throws(LabSpecError) {
        self.init()
        let what = "shape"
        if text.trimmingLabBlanks().lowercased() == "off" { return }
        let list = try KeyValueList(parsing: text, what: what, keys: Self.keys)
        if list.items.isEmpty {
            throw .empty(
                what: what, expected: "write rate=2mbit,latency=80ms,jitter=10ms,scope=link (any of these keys) or off")
        }
        for item in list.items {
            switch item.key {
            case "rate":
                do {
                    rateBitsPerSecond = try BitRateText.bitsPerSecond(item.value)
                } catch {
                    throw list.badValue(item, expected: error.message)
                }
            case "latency", "jitter":
                guard let ns = LabDuration.nanoseconds(item.value) else {
                    throw list.badValue(item, expected: LabDuration.expected + " (0 for none)")
                }
                if item.key == "latency" { latencyNs = ns } else { jitterNs = ns }
            default:  // "scope"
                guard let scope = Scope(rawValue: item.value.lowercased()) else {
                    throw list.badValue(
                        item, expected: "scope is link (all connections share the bottleneck) or connection (one each)")
                }
                self.scope = scope
            }
        }
    }

    /// True when nothing is shaped: no rate, no trace, no latency, no jitter.
    public var isOff: Bool {
        rateBitsPerSecond == nil && trace == nil && latencyNs == 0 && jitterNs == 0
    }

    /// The normalised text form: `rate=2mbit,latency=80ms,jitter=10ms,scope=link`, leaving out
    /// the rate when not limited and a latency or jitter of 0; `off` when ``isOff``. The trace
    /// is not part of it (the capture's shape event names it beside the text).
    public var description: String {
        if isOff { return "off" }
        var items: [String] = []
        if let rate = rateBitsPerSecond { items.append("rate=" + BitRateText.format(rate)) }
        if latencyNs != 0 { items.append("latency=" + LabDuration.format(latencyNs)) }
        if jitterNs != 0 { items.append("jitter=" + LabDuration.format(jitterNs)) }
        items.append("scope=" + scope.rawValue)
        return items.joined(separator: ",")
    }

    /// This specification driven by `trace` (loaded from the path `name`); refuses a spec that
    /// already has a rate, since the trace is the rate.
    public func withTrace(_ trace: MahimahiTrace, name: String) throws(LabSpecError) -> ShapeSpec {
        if rateBitsPerSecond != nil {
            throw .badCombination(
                what: "shape", rule: description,
                reason:
                    "a rate and a trace (\(name)) were both given: the trace sets the rate, so leave rate= out of --shape"
            )
        }
        var spec = self
        spec.trace = trace
        spec.traceName = name
        return spec
    }
}
