extension ExchangeRecord {
    /// The resource this exchange asked for: its URL (or request target) without the `CMCD`
    /// query parameter, whose values change with every request. Analyses key resources by it.
    public var resource: String { CMCDQuery.removed(from: url ?? target) }

    /// What the player said in this request's CMCD (CTA-5004): the `CMCD` query parameter of
    /// the URL it asked for and the `CMCD-Request`, `-Object`, `-Status` and `-Session` headers;
    /// nil when the request carried none.
    public var cmcd: CMCDData? {
        var data = CMCDData()
        var any = false
        if let query = URLParts(url ?? target).query {
            for parameter in query.split(separator: "&") {
                guard CMCDQuery.isCMCD(parameter) else { continue }
                any = true
                let encoded = parameter.dropFirst(min(5, parameter.count))
                guard let decoded = PercentDecoding.decode(encoded) else {
                    data.read(String(encoded), from: .query)
                    data.note("the CMCD query parameter is not percent-encoded UTF-8: \(encoded)")
                    continue
                }
                data.read(decoded, from: .query)
            }
        }
        for line in requestHeaders {
            guard let name = line.name, let value = line.value else { continue }
            for source in CMCDSource.allCases
            where source != .query && name.lowercased() == source.rawValue.lowercased() {
                any = true
                data.read(String(value).trimmingWhitespace, from: source)
            }
        }
        return any ? data : nil
    }
}
