/// A multipart/byteranges response checked part by part (RFC 9110 §14.6): each part has a
/// valid Content-Range inside what was asked, and carries exactly that many bytes. The head is
/// the one the client got (``ExchangeRecord/clientResponseLines``).
enum MultipartCheck {
    static func findings(_ r: ExchangeRecord, body: [UInt8]) -> [Finding] {
        let id = r.id
        guard let contentType = r.clientResponseLines.first(named: "Content-Type") else { return [] }
        guard let boundary = MultipartByteranges.boundary(contentType: contentType) else {
            return [
                Finding(
                    .multipartPartInvalid,
                    "multipart/byteranges without a boundary parameter: the parts cannot be found",
                    evidence: ["Content-Type: \(contentType)"], exchange: id)
            ]
        }
        let parts: MultipartByteranges
        switch MultipartByteranges.parse(body, boundary: boundary) {
        case .failure(let e):
            return [
                Finding(
                    .multipartPartInvalid, "the multipart body cannot be split: \(e)",
                    evidence: ["Content-Type: \(contentType)"], exchange: id)
            ]
        case .success(let p):
            parts = p
        }
        let asked = r.requestRange.flatMap { try? RangeRequest.parse($0) }
        var out: [Finding] = []
        for (n, part) in parts.parts.enumerated() {
            let label = "part \(n + 1) of \(parts.parts.count)"
            guard let value = part.contentRange else {
                out.append(
                    Finding(
                        .multipartPartInvalid, "\(label) has no Content-Range", evidence: part.headers.map(\.raw),
                        exchange: id))
                continue
            }
            guard let cr = try? ContentRange.parse(value), let range = cr.range else {
                out.append(
                    Finding(
                        .multipartPartInvalid, "\(label) has an unusable Content-Range \"\(value)\"",
                        evidence: part.headers.map(\.raw), exchange: id))
                continue
            }
            if Int64(part.body.count) != range.count {
                out.append(
                    Finding(
                        .multipartPartInvalid,
                        "\(label) says \(range) (\(range.count) bytes) but carries \(part.body.count)",
                        evidence: ["Content-Range: \(value)"], exchange: id))
            }
            if let asked, let total = cr.completeLength {
                let wanted = asked.specs.compactMap { $0.resolved(length: total) }
                if !wanted.contains(where: { $0.first <= range.first && range.last <= $0.last }) {
                    out.append(
                        Finding(
                            .multipartPartInvalid,
                            "\(label) carries \(range), which is not inside any range asked (\(r.requestRange ?? ""))",
                            evidence: ["Content-Range: \(value)"], exchange: id))
                }
            }
        }
        return out
    }
}
