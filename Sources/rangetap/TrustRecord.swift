import Foundation

/// What `ca trust` added, kept beside the CA (`trusted` in its directory) so that `ca untrust`
/// removes exactly that and nothing a user or another tool put there: one line per store, a
/// kind, a tab and the place (`nss<TAB>DIR<TAB>NICKNAME`, `system<TAB>FILE`).
struct TrustRecord: Equatable {
    /// One store the CA was added to.
    enum Entry: Equatable {
        /// An NSS database (`sql:` format) and the nickname the certificate was added under.
        case nss(directory: String, nickname: String)
        /// A file in Debian's local CA directory (`update-ca-certificates` reads it).
        case system(file: String)

        var line: String {
            switch self {
            case .nss(let directory, let nickname): "nss\t\(directory)\t\(nickname)"
            case .system(let file): "system\t\(file)"
            }
        }

        init?(line: Substring) {
            let f = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            switch (f.first, f.count) {
            case ("nss", 3): self = .nss(directory: f[1], nickname: f[2])
            case ("system", 2): self = .system(file: f[1])
            default: return nil
            }
        }
    }

    var entries: [Entry]

    /// The file in the CA's `directory`.
    static func path(in directory: String) -> String { (directory as NSString).appendingPathComponent("trusted") }

    /// The record of the CA in `directory` (empty when nothing was added).
    static func read(in directory: String) -> TrustRecord {
        let text = (try? String(contentsOfFile: path(in: directory), encoding: .utf8)) ?? ""
        return TrustRecord(entries: text.split(separator: "\n").compactMap(Entry.init(line:)))
    }

    /// Writes the record (removes the file when it is empty).
    func write(in directory: String) throws {
        let file = Self.path(in: directory)
        if entries.isEmpty {
            try? FileManager.default.removeItem(atPath: file)
            return
        }
        try entries.map { $0.line + "\n" }.joined().write(toFile: file, atomically: true, encoding: .utf8)
    }
}
