/// What a player said about itself in one request's CMCD (CTA-5004): the keys from the `CMCD`
/// query parameter and the `CMCD-*` headers, the payloads as sent, and what in them breaks the
/// specification. Never fails: a malformed payload keeps the keys that could be read and names
/// the rest in ``problems``.
public struct CMCDData: Sendable, Hashable, Encodable {
    /// The keys read, in the order sent.
    public private(set) var entries: [CMCDEntry] = []
    /// The payloads as sent.
    public private(set) var raw: [CMCDRawValue] = []
    /// Problems of syntax, type and placement.
    private var found: [String] = []
    /// Keys neither of version 1 nor custom: a problem only if the payload says version 1.
    private var unknown: [String] = []

    /// What breaks CTA-5004, one sentence each (`bl="fast" is not an integer`); empty when none.
    /// Keys a later version defines are left unjudged when the player says it speaks that
    /// version (`v=2`).
    public var problems: [String] {
        found
            + (version > 1
                ? []
                : unknown.map {
                    "\($0) is not a CMCD key (custom keys carry a hyphenated prefix, such as com.example-\($0))"
                })
    }

    /// Creates an empty value.
    public init() {}

    /// The value of `key`, if sent.
    public subscript(key: String) -> CMCDValue? { entries.first { $0.key == key }?.value }

    /// Buffer length in milliseconds (`bl`).
    public var bufferLengthMs: Int64? { self["bl"]?.integer }
    /// Measured throughput in kbit/s (`mtp`).
    public var measuredThroughputKbps: Int64? { self["mtp"]?.integer }
    /// Encoded bitrate in kbit/s (`br`).
    public var bitrateKbps: Int64? { self["br"]?.integer }
    /// Object duration in milliseconds (`d`).
    public var durationMs: Int64? { self["d"]?.integer }
    /// Object type (`ot`: `v`, `a`, `av`, `i`, `m` …).
    public var objectType: String? { self["ot"]?.text }
    /// Buffer starvation since the last request (`bs`).
    public var starved: Bool { self["bs"]?.boolean == true }
    /// Startup: the object is needed urgently to start or resume playback (`su`).
    public var startup: Bool { self["su"]?.boolean == true }
    /// Session id (`sid`).
    public var sessionID: String? { self["sid"]?.text }
    /// Content id (`cid`).
    public var contentID: String? { self["cid"]?.text }
    /// Next object request, as sent: a relative URL, percent-encoded (`nor`).
    public var nextObject: String? { self["nor"]?.text }
    /// Next range request (`nrr`): `first-last`, either end may be missing.
    public var nextRange: String? { self["nrr"]?.text }
    /// The CMCD version (`v`), 1 when not sent.
    public var version: Int64 { self["v"]?.integer ?? 1 }

    /// The keys for a table cell, the ones a player engineer reads first: `ot=v br=3200
    /// bl=21300 mtp=48100 bs su`, then `!` when something is malformed.
    public var cell: String {
        var parts = ["ot", "br", "bl", "mtp", "d"].compactMap { k in self[k].map { "\(k)=\($0.text ?? $0.description)" }
        }
        if starved { parts.append("bs") }
        if startup { parts.append("su") }
        if !problems.isEmpty { parts.append("!") }
        return parts.isEmpty ? "cmcd" : parts.joined(separator: " ")
    }

    /// Reads one payload from `source` (CTA-5004 §3.2: `key=value` entries separated by commas;
    /// strings quoted, booleans as the key alone), adding its keys and problems.
    public mutating func read(_ payload: String, from source: CMCDSource) {
        raw.append(CMCDRawValue(source: source, value: payload))
        for item in CMCDParser.items(payload) {
            switch item {
            case .problem(let problem): found.append(problem)
            case .entry(let key, let value): add(key: key, value: value, from: source)
            }
        }
    }

    /// Adds a problem found outside the payload's syntax (its encoding in the URL).
    mutating func note(_ problem: String) { found.append(problem) }

    private mutating func add(key: String, value: CMCDParser.Parsed, from source: CMCDSource) {
        if entries.contains(where: { $0.key == key }) {
            found.append("\(key) is sent twice")
            return
        }
        guard let known = CMCDKey.known[key] else {
            if !CMCDKey.isCustom(key) { unknown.append(key) }
            entries.append(CMCDEntry(key: key, value: value.value, source: source))
            return
        }
        if source != .query, source != known.source {
            found.append("\(key) belongs in \(known.source.rawValue), not \(source.rawValue)")
        }
        switch CMCDParser.typed(value, key: known) {
        case .value(let v): entries.append(CMCDEntry(key: key, value: v, source: source))
        case .problem(let problem): found.append(problem)
        }
    }

    private enum CodingKeys: String, CodingKey {
        case keys, sources, raw, problems
    }

    private struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    /// Encodes as `{"keys": {"bl": 21300, …}, "sources": {"bl": "CMCD-Request", …}, "raw":
    /// [{"source", "value"}], "problems": […]}` (docs/inspect-json.md).
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        var keys = c.nestedContainer(keyedBy: Key.self, forKey: .keys)
        for e in entries { try keys.encode(e.value, forKey: Key(stringValue: e.key)) }
        var sources = c.nestedContainer(keyedBy: Key.self, forKey: .sources)
        for e in entries { try sources.encode(e.source, forKey: Key(stringValue: e.key)) }
        try c.encode(raw, forKey: .raw)
        try c.encode(problems, forKey: .problems)
    }
}
