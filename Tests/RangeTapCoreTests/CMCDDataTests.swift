@testable import RangeTapCore
import Testing

/// Reading CMCD (CTA-5004) as players send it: the specification's own example in query and
/// header form, and the ways a payload breaks it, each named while the readable keys are kept.
@Suite("CMCD payloads")
struct CMCDDataTests {
    /// CTA-5004's example payload (§A), all keys of version 1.
    static let specExample =
        #"bl=21300,br=3200,bs,cid="faec5fc2-ac30-11eabb37-0242ac130002",d=4004,dl=18500,mtp=48100,nor="..%2F300kbps%2Ftrack.m4v",nrr="12323-48763",ot=v,pr=1.08,rtp=12000,sf=d,sid="6e2fb550-c457-11e9-bb97-0800200c9a66",st=v,su,tb=6000"#

    private func record(target: String, headers: [String] = []) -> ExchangeRecord {
        var r = ExchangeRecord(id: 1, connection: 1, method: "GET", target: target, start: 0)
        r.url = target
        r.requestHeaders = (["Host: cdn.example"] + headers).map { HeaderLine(raw: $0 + "\r\n") }
        return r
    }

    private func percentEncoded(_ s: String) -> String {
        var out = ""
        for b in s.utf8 {
            let c = Character(Unicode.Scalar(b))
            if c.isLetter || c.isNumber || "-._~".contains(c) {
                out.append(c)
            } else {
                out += "%" + String(b, radix: 16, uppercase: true).leftPadded
            }
        }
        return out
    }

    @Test func theSpecificationsExampleInTheQueryReadsEveryKey() throws {
        let r = record(target: "http://cdn.example/v/seg_4.m4v?x=1&CMCD=" + percentEncoded(Self.specExample))
        let c = try #require(r.cmcd)
        #expect(c.problems.isEmpty, "\(c.problems)")
        #expect(c.bufferLengthMs == 21300)
        #expect(c.bitrateKbps == 3200)
        #expect(c.starved)
        #expect(c.startup)
        #expect(c.contentID == "faec5fc2-ac30-11eabb37-0242ac130002")
        #expect(c.durationMs == 4004)
        #expect(c["dl"] == .integer(18500))
        #expect(c.measuredThroughputKbps == 48100)
        #expect(c.nextObject == "..%2F300kbps%2Ftrack.m4v")
        #expect(c.nextRange == "12323-48763")
        #expect(c.objectType == "v")
        #expect(c["pr"] == .decimal(1.08))
        #expect(c["rtp"] == .integer(12000))
        #expect(c["sf"] == .token("d"))
        #expect(c.sessionID == "6e2fb550-c457-11e9-bb97-0800200c9a66")
        #expect(c["st"] == .token("v"))
        #expect(c["tb"] == .integer(6000))
        #expect(c.entries.count == 17)
        #expect(c.entries.allSatisfy { $0.source == .query })
        #expect(c.raw == [CMCDRawValue(source: .query, value: Self.specExample)])
        #expect(c.cell == "ot=v br=3200 bl=21300 mtp=48100 d=4004 bs su")
        // The resource is named without the player's report.
        #expect(r.resource == "http://cdn.example/v/seg_4.m4v?x=1")
    }

    @Test func theSameKeysInTheirFourHeadersReadAlike() throws {
        let r = record(
            target: "http://cdn.example/v/seg_4.m4v",
            headers: [
                #"CMCD-Request: bl=21300,dl=18500,mtp=48100,nor="..%2F300kbps%2Ftrack.m4v",nrr="12323-48763",su"#,
                "CMCD-Object: br=3200,d=4004,ot=v,tb=6000",
                "cmcd-status: bs,rtp=12000",
                #"CMCD-Session: cid="faec5fc2-ac30-11eabb37-0242ac130002",pr=1.08,sf=d,sid="6e2fb550-c457-11e9-bb97-0800200c9a66",st=v"#,
            ])
        let c = try #require(r.cmcd)
        #expect(c.problems.isEmpty, "\(c.problems)")
        let fromQuery = try #require(
            record(target: "http://cdn.example/v/seg_4.m4v?CMCD=" + percentEncoded(Self.specExample)).cmcd)
        #expect(
            Dictionary(uniqueKeysWithValues: c.entries.map { ($0.key, $0.value) })
                == Dictionary(uniqueKeysWithValues: fromQuery.entries.map { ($0.key, $0.value) }))
        #expect(c.entries.first { $0.key == "bs" }?.source == .status)
        #expect(c.raw.map(\.source) == [.request, .object, .status, .session])
        #expect(r.resource == "http://cdn.example/v/seg_4.m4v")
    }

    @Test func noCMCDIsNil() {
        #expect(record(target: "http://cdn.example/a.mp4?cmcd=bl%3D1&CMCDX=1").cmcd == nil)
    }

    /// Each malformation is named; what could be read is kept; nothing throws.
    @Test(arguments: [
        ("bl=fast", "bl=fast is not an integer", [String]()),
        ("bl=1.5,mtp=900", "bl=1.5 is not an integer", ["mtp"]),
        (#"ot=zz,br=300"#, "ot=zz is not one of m, a, v", ["br"]),
        (#"ot="v""#, "must be a token", []),
        ("sid=abc", "sid=abc must be a quoted string", []),
        (#"sid="abc"#, "a string is not closed", []),
        ("bl=100,,br=2", "an entry is empty", ["bl", "br"]),
        ("bl=100,", "an entry is empty", ["bl"]),
        ("BL=100", "\"BL\" is not a key", []),
        ("bl=100,bl=200", "bl is sent twice", ["bl"]),
        ("bs=maybe", "bs=maybe is not a boolean", []),
        (#"nrr="a-b""#, "is not a range", []),
        (#"nrr="9-1""#, "is not a range", []),
        ("xyz=1", "xyz is not a CMCD key", ["xyz"]),
        (#"cid="\#(String(repeating: "x", count: 65))""#, "more than 64", []),
        ("bl=<script>", "has a value CMCD cannot hold", []),
    ])
    func aMalformedPayloadIsNamedAndTheRestKept(payload: String, problem: String, kept: [String]) throws {
        let c = try #require(record(target: "http://cdn.example/s.m4s", headers: ["CMCD-Request: " + payload]).cmcd)
        #expect(c.problems.contains { $0.contains(problem) }, "\(payload): \(c.problems)")
        #expect(c.entries.map(\.key) == kept, "\(payload)")
        #expect(c.raw.first?.value == payload)
        #expect(c.cell.hasSuffix("!"))
    }

    @Test func customKeysAndLaterVersionsAreNotJudged() throws {
        let custom = try #require(
            record(target: "http://cdn.example/s.m4s", headers: [#"CMCD-Request: bl=100,com.example-tag="x""#]).cmcd)
        #expect(custom.problems.isEmpty, "\(custom.problems)")
        #expect(custom["com.example-tag"] == .string("x"))
        // A key version 2 defines, from a player that says it speaks version 2.
        let v2 = try #require(
            record(target: "http://cdn.example/s.m4s?CMCD=" + percentEncoded("ltc=120,msd=2000,v=2")).cmcd)
        #expect(v2.problems.isEmpty, "\(v2.problems)")
        #expect(v2.version == 2)
        #expect(v2["ltc"] == .integer(120))
    }

    @Test func aKeyInAnotherKeysHeaderIsNamed() throws {
        let c = try #require(record(target: "http://cdn.example/s.m4s", headers: ["CMCD-Object: bl=100"]).cmcd)
        #expect(c.problems == ["bl belongs in CMCD-Request, not CMCD-Object"])
        #expect(c.bufferLengthMs == 100)
    }

    @Test func aQueryThatIsNotPercentEncodedUTF8IsNamed() throws {
        let c = try #require(record(target: "http://cdn.example/s.m4s?CMCD=bl%3D1%2").cmcd)
        #expect(c.problems.contains { $0.contains("not percent-encoded UTF-8") }, "\(c.problems)")
    }

    @Test func theCMCDParameterAloneLeavesTheRestOfTheURL() {
        #expect(CMCDQuery.removed(from: "http://h/a.m4s?CMCD=bl%3D1") == "http://h/a.m4s")
        #expect(CMCDQuery.removed(from: "http://h/a.m4s?a=1&CMCD=bl%3D1&b=2#f") == "http://h/a.m4s?a=1&b=2#f")
        #expect(CMCDQuery.removed(from: "/a.m4s?CMCD=bl%3D1&x") == "/a.m4s?x")
        #expect(CMCDQuery.removed(from: "/a.m4s?CMCDX=1") == "/a.m4s?CMCDX=1")
    }

    @Test func nextRangesReadAsCTA5004WritesThem() {
        #expect(CMCDNextRange("12323-48763")?.first == 12323)
        #expect(CMCDNextRange("12323-48763")?.last == 48763)
        #expect(CMCDNextRange("12323-")?.last == nil)
        #expect(CMCDNextRange("-500")?.first == nil)
        #expect(CMCDNextRange("-") == nil)
        #expect(CMCDNextRange("99999999999999999999-") == nil)
    }
}

extension String {
    /// Two hex digits.
    fileprivate var leftPadded: String { count < 2 ? "0" + self : self }
}
