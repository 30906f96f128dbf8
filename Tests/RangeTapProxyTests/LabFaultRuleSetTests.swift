import RangeTapCore
import RangeTapProxy
import Testing

@Suite("Lab: fault rules firing over a recording")
struct LabFaultRuleSetTests {
    @Test func rulesFireInOrderAndNthCountsOnlyMatchingRequests() throws {
        let set = FaultRuleSet([
            try FaultRule(parsing: "path=*.ts,nth=2,status=503"),
            try FaultRule(parsing: "range=yes,header-case=upper"),
            try FaultRule(parsing: "method=HEAD,status=404"),
        ])
        #expect(!set.isEmpty)
        func fired(_ path: String, range: Bool) -> [String] {
            set.firing(host: "cdn.example.com", path: path, method: "GET", hasRange: range).map(\.text)
        }
        #expect(fired("/1.ts", range: true) == ["range=yes,header-case=upper"])
        #expect(fired("/index.m3u8", range: false) == [])
        #expect(fired("/2.ts", range: true) == ["path=*.ts,nth=2,status=503", "range=yes,header-case=upper"])
        #expect(fired("/3.ts", range: false) == [])
        #expect(set.matchCounts == [3, 2, 0])
        #expect(FaultRuleSet([]).isEmpty)
        #expect(FaultRuleSet([]).firing(host: "h", path: "/", method: "GET", hasRange: false).isEmpty)
    }

    @Test func exactlyOneOfManyConcurrentRequestsIsTheNth() async throws {
        let set = FaultRuleSet([
            try FaultRule(parsing: "path=*.ts,nth=137,reset-after=1k"),
            try FaultRule(parsing: "path=*.ts,truncate-after=10"),
        ])
        let firings = await withTaskGroup(of: [FaultRule].self) { group in
            for i in 0..<400 {
                group.addTask { set.firing(host: "h", path: "/seg\(i).ts", method: "GET", hasRange: i % 2 == 0) }
            }
            var all: [[FaultRule]] = []
            for await f in group { all.append(f) }
            return all
        }
        #expect(firings.count == 400)
        #expect(firings.filter { $0.count == 2 }.count == 1)
        #expect(firings.allSatisfy { $0.last?.actions == [.truncateAfter(10)] })
        #expect(set.matchCounts == [400, 400])
    }
}
