import RangeTapCore

/// `rangetap export CAPTURE --curl N`: the curl command that repeats exchange N as its client
/// sent it: method, URL, every request header line in its order and spelling (Range included),
/// curl's own `User-Agent` and `Accept` suppressed where the client sent none, the HTTP version.
/// Comment lines before it say what it was and what the command cannot carry: secret values a
/// redacted capture replaced, and a request body (captures do not record request bodies).
public enum CurlCommand {
    /// The command (and its comment lines) for exchange `id` of `analysis`, read from `capture`.
    public static func render(
        _ analysis: CaptureAnalysis, exchange id: Int, capture: String
    ) throws(ReportError)
        -> String
    {
        guard let e = analysis.exchanges.first(where: { $0.record.id == id }) else {
            throw .noSuchExchange(id, count: analysis.exchanges.count)
        }
        let r = e.record
        if r.method == "CONNECT" {
            throw .notRepeatable(
                id, reason: "it is a CONNECT tunnel; the exchanges inside it are the requests to repeat")
        }
        guard let url = r.url ?? (URLParts(r.target).isAbsolute ? r.target : nil) else {
            throw .notRepeatable(
                id, reason: "the capture holds no URL for it (\(TerminalText.escapingControls(r.target)))")
        }
        var notes = [
            "# exchange #\(id) of \(TerminalText.escapingControls(capture)): \(TerminalText.escapingControls("\(r.method) \(r.path)\(r.requestRange.map { " (" + $0 + ")" } ?? "")")), answered \(r.status.map(String.init) ?? "nothing"), \(outcome(r))"
        ]
        var args = ["curl", "-g", "--path-as-is"]
        args.append(r.isHTTP2Client ? "--http2" : r.requestVersion == "HTTP/1.0" ? "--http1.0" : "--http1.1")
        switch r.method {
        case "GET": break
        case "HEAD": args.append("--head")
        default: args += ["-X", r.method]
        }
        var sent: Set<String> = []
        var redacted = false
        var bodyLength: String?
        for line in r.requestHeaders {
            guard let name = line.name, let value = line.value else { continue }
            if name.hasPrefix(":") { continue }  // HTTP/2 pseudo-headers: curl makes them from the URL
            let lower = name.lowercased()
            sent.insert(lower)
            if lower == "content-length", value != "0" { bodyLength = "a \(value)-byte body" }
            if lower == "transfer-encoding" { bodyLength = "a chunked body" }
            if value == "<redacted>", line.isSecret { redacted = true }
            args += ["-H", "\(name): \(value)"]
        }
        for name in ["User-Agent", "Accept"] where !sent.contains(name.lowercased()) { args += ["-H", "\(name):"] }
        if redacted {
            notes.append(
                "# the capture redacted secret values (<redacted>): put them back, or record with --keep-secrets")
        }
        if let bodyLength {
            notes.append(
                "# the request had \(bodyLength), which captures do not record: add it with --data-binary @FILE")
        }
        args.append(url)
        return (notes + [args.map(shellQuoted).joined(separator: " ")]).joined(separator: "\n") + "\n"
    }

    private static func outcome(_ r: ExchangeRecord) -> String {
        switch r.outcome {
        case .complete: "\(r.bytesToClient) body bytes"
        case .cancelled: "cancelled by the client after \(r.bytesToClient) bytes"
        case .failed(let m): "failed: \(TerminalText.escapingControls(m))"
        case .open: "still open when the capture ended"
        }
    }

    /// `s` as one POSIX shell word: unchanged when it holds only safe characters, else in single
    /// quotes (a quote inside as `'\''`). Control bytes cannot be typed into a shell line as
    /// they are, so a word holding one is written as `$'…'` with `\xNN` escapes.
    static func shellQuoted(_ s: String) -> String {
        let safe = s.unicodeScalars.allSatisfy {
            ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0)
                || "-_./:=@,%+".unicodeScalars.contains($0)
        }
        if safe && !s.isEmpty { return s }
        if s.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F }) {
            var out = Array("$'".utf8)
            for b in s.utf8 {
                switch b {
                case UInt8(ascii: "'"), UInt8(ascii: "\\"): out += [UInt8(ascii: "\\"), b]
                case 0..<0x20, 0x7F: out += Array("\\x\(b < 16 ? "0" : "")\(String(b, radix: 16))".utf8)
                default: out.append(b)
                }
            }
            return String(decoding: out + [UInt8(ascii: "'")], as: UTF8.self)
        }
        return "'" + s.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}
