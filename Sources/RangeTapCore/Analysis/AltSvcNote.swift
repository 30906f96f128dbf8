/// The note that an origin offered HTTP/3 (`Alt-Svc: h3=":443"`, RFC 7838 and RFC 9114 §3.1):
/// a client that speaks QUIC would have switched to it without the proxy, so what the capture
/// shows is the client's TCP fallback, whose timing can differ. One `alt-svc-h3` finding per
/// origin, tied to its first response that said so.
enum AltSvcNote {
    /// The findings, in the order of each origin's first advertising response.
    static func findings(_ records: [ExchangeRecord]) -> [Finding] {
        var seen: Set<String> = []
        var out: [Finding] = []
        for r in records where r.method != "CONNECT" {
            guard let line = r.responseLines.first(where: { $0.isNamed("Alt-Svc") }), let value = line.value,
                offersHTTP3(value)
            else { continue }
            let origin = r.origin ?? r.target
            guard seen.insert(origin.lowercased()).inserted else { continue }
            out.append(
                Finding(
                    .altSvcHTTP3,
                    "\(origin) advertises HTTP/3: without the proxy, a client that speaks QUIC would have used it for later requests, so this capture shows its fallback to TCP (HTTP/1.1 or HTTP/2), whose timing can differ",
                    evidence: [line.raw], exchange: r.id))
        }
        return out
    }

    /// Whether an `Alt-Svc` value names an HTTP/3 protocol (`h3`, or a draft such as `h3-29`).
    static func offersHTTP3(_ value: Substring) -> Bool {
        value.split(separator: ",").contains { entry in
            let id = entry.drop { $0 == " " || $0 == "\t" }.prefix { $0 != "=" && $0 != ";" }
            return id == "h3" || id.hasPrefix("h3-")
        }
    }
}
