import Foundation
import RangeTapCore
import RangeTapTestSupport
import Testing

/// `export --exchanges` over 100 generated captures, queried with DuckDB by
/// `tools/fleet-query.py` (the queries of docs/fleet.md): its per-capture totals are the ones
/// `rangetap summary` prints, capture by capture.
@Suite(.serialized)
struct FleetExportTests {
    /// Writes capture `index` (seeded): 1 to 8 exchanges on up to 3 hosts, complete, cancelled
    /// part-way or failed upstream, each with 1 to 3 chunk events.
    static func generate(index: Int, into dir: String) throws -> String {
        var rng = SeededGenerator(seed: UInt64(index) &* 0x9E37_79B9_7F4A_7C15 &+ 1)
        let path = dir + "/fleet-\(String(format: "%03d", index)).rtap"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        var lines = [
            #"{"type":"capture","version":1,"tool":"rangetap test","startedAt":"2026-11-23T10:00:00.000Z","bodies":false,"redacted":true,"listen":"127.0.0.1:8080"}"#
        ]
        let hosts = ["cdn-a.test", "cdn-b.test:8443", "origin.test"]
        var t: Int64 = 1000
        var connection = 0
        for ex in 1...Int(1 + rng.next(below: 8)) {
            t += 1000 + rng.next(below: 5000)
            if connection == 0 || rng.next(below: 3) == 0 {
                connection += 1
                lines.append(#"{"type":"conn.open","t":\#(t),"conn":\#(connection),"peer":"127.0.0.1:50000"}"#)
            }
            let host = hosts[Int(rng.next(below: Int64(hosts.count)))]
            let length: Int64 = 100_000 + rng.next(below: 900_000)
            let first = rng.next(below: length - 1000)
            let size = min(length - first, 1000 + rng.next(below: 200_000))
            let url = "http://\(host)/media/seg-\(rng.next(below: 20)).m4s"
            lines.append(
                #"{"type":"request","t":\#(t + 10),"ex":\#(ex),"conn":\#(connection),"method":"GET","target":"\#(url)","version":"HTTP/1.1","url":"\#(url)","headers":["Host: \#(host)\r\n","Range: bytes=\#(first)-\#(first + size - 1)\r\n"]}"#
            )
            lines.append(
                #"{"type":"response","t":\#(t + 400 + rng.next(below: 2000)),"ex":\#(ex),"status":206,"reused":false,"upstreamPort":40000,"lines":["HTTP/1.1 206 Partial Content\r\n","Content-Range: bytes \#(first)-\#(first + size - 1)/\#(length)\r\n","Content-Length: \#(size)\r\n","Accept-Ranges: bytes\r\n","\r\n"]}"#
            )
            let kind = rng.next(below: 10)
            let received = kind < 7 ? size : 1 + rng.next(below: size)
            var sent: Int64 = 0
            let pieces = 1 + rng.next(below: 3)
            for p in 0..<pieces {
                let n = p == pieces - 1 ? received - sent : received / pieces
                guard n > 0 else { continue }
                lines.append(
                    #"{"type":"chunk","t":\#(t + 3000 + p * 100),"ex":\#(ex),"size":\#(n),"off":\#(sent),"res":\#(first + sent)}"#
                )
                sent += n
            }
            switch kind {
            case 0..<7:
                lines.append(#"{"type":"end","t":\#(t + 4000),"ex":\#(ex),"bytes":\#(received),"sha256":""}"#)
            case 7..<9:
                lines.append(
                    #"{"type":"cancel","t":\#(t + 4000),"ex":\#(ex),"delivered":\#(received),"received":\#(received),"sha256":""}"#
                )
            default:
                lines.append(
                    #"{"type":"error","t":\#(t + 4000),"ex":\#(ex),"conn":\#(connection),"kind":"upstream","message":"upstream failed: connection reset (curl error 56)","curlCode":56,"received":\#(received),"status":502}"#
                )
            }
            t += 5000
        }
        try Data(lines.map { $0 + "\n" }.joined().utf8).write(to: URL(fileURLWithPath: path + "/events.jsonl"))
        try Data().write(to: URL(fileURLWithPath: path + "/body.bin"))
        return path
    }

    /// `rangetap summary`'s last line: exchanges, body bytes, cancelled, errors.
    static func summaryTotals(_ capture: String) throws -> [Int64] {
        let r = try runCommand(Paths.rangetap, ["summary", capture])
        #expect(r.status == 0, "\(r.stderr)")
        let last = r.text.split(separator: "\n").last.map(String.init) ?? ""
        // "5 exchanges on 4 connections, 950274 body bytes, 3 cancelled, 0 errors"
        let numbers = last.split(whereSeparator: { !$0.isNumber }).compactMap { Int64($0) }
        #expect(numbers.count == 5, "\(last)")
        return numbers.count == 5 ? [numbers[0], numbers[2], numbers[3], numbers[4]] : []
    }

    @Test(.timeLimit(.minutes(5)))
    func duckDBAggregatesOverAHundredCapturesEqualTheSummaries() throws {
        let root = Paths.temporaryDirectory("fleet")
        defer { try? FileManager.default.removeItem(atPath: root) }
        let exports = root + "/exports"
        try FileManager.default.createDirectory(atPath: exports, withIntermediateDirectories: true)
        var expected: [String: [Int64]] = [:]
        for i in 0..<100 {
            let capture = try Self.generate(index: i, into: root)
            let id = URL(fileURLWithPath: capture).deletingPathExtension().lastPathComponent
            let r = try runCommand(Paths.rangetap, ["export", capture, "--exchanges", exports + "/\(id).jsonl"])
            #expect(r.status == 0, "\(r.stderr)")
            expected[id] = try Self.summaryTotals(capture)
        }
        let parquet = root + "/exchanges.parquet"
        let q = try runCommand(
            "/usr/bin/env", ["python3", Paths.root + "/tools/fleet-query.py", exports, "--parquet", parquet, "--json"],
            timeout: 120)
        #expect(q.status == 0, "\(q.stderr)")
        let doc = try #require(try JSONSerialization.jsonObject(with: q.stdout) as? [String: Any])
        let perCapture = try #require(doc["per_capture"] as? [[String: Any]])
        #expect(perCapture.count == 100)
        func int(_ v: Any?) -> Int64 { (v as? NSNumber)?.int64Value ?? -1 }
        var totals = [Int64](repeating: 0, count: 4)
        for row in perCapture {
            let id = row["capture"] as? String ?? "?"
            let got = [int(row["exchanges"]), int(row["received_bytes"]), int(row["cancelled"]), int(row["failed"])]
            #expect(got == expected[id], "\(id): duckdb \(got), summary \(expected[id] ?? [])")
            for k in 0..<4 { totals[k] += got[k] }
        }
        let summed = expected.values.reduce([Int64](repeating: 0, count: 4)) { a, b in zip(a, b).map { $0 + $1 } }
        #expect(totals == summed)
        #expect(summed[2] > 0 && summed[3] > 0, "the generated fleet has cancels and failures")
        // The fleet-wide queries ran over the same rows.
        let hosts = try #require(doc["per_host"] as? [[String: Any]])
        #expect(Set(hosts.compactMap { $0["host"] as? String }) == ["cdn-a.test", "cdn-b.test:8443", "origin.test"])
        #expect(hosts.map { int($0["exchanges"]) }.reduce(0, +) == summed[0])
        // The generated captures hold no media: the per-rendition query runs over all-null columns.
        #expect((doc["per_rendition"] as? [Any])?.isEmpty == true, "\(doc["per_rendition"] ?? "missing")")
        #expect(FileManager.default.fileExists(atPath: parquet))
    }
}
