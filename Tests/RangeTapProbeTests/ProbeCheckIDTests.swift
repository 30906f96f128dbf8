import Foundation
import RangeTapProbe
import Testing

/// `ProbeCheck.ID`: a known id becomes its check, an id from another build still decodes.
@Suite struct ProbeCheckIDTests {
    private func check(id: String) -> String {
        #"{"id":"\#(id)","area":"single-range","title":"t","result":"pass","message":"m","rfc":"RFC 9110","evidence":[]}"#
    }

    @Test func everyCheckRoundTripsThroughJSON() throws {
        for id in ProbeCheckID.allCases {
            let c = ProbeCheck(id, .pass, "m", evidence: [])
            let back = try JSONDecoder().decode(ProbeCheck.self, from: JSONEncoder().encode(c))
            #expect(back.id == .check(id) && back.id.known == id && back == c)
            #expect(String(decoding: try JSONEncoder().encode(c.id), as: UTF8.self) == #""\#(id.rawValue)""#)
        }
    }

    @Test func anUnknownIDDecodes() throws {
        let c = try JSONDecoder().decode(ProbeCheck.self, from: Data(check(id: "range-from-the-future").utf8))
        #expect(c.id == .other("range-from-the-future") && c.id.known == nil)
        #expect(String(decoding: try JSONEncoder().encode(c.id), as: UTF8.self) == #""range-from-the-future""#)
        let known = try JSONDecoder().decode(ProbeCheck.self, from: Data(check(id: "range-probe").utf8))
        #expect(known.id.known == .rangeProbe)
    }
}
