import Foundation
import RangeTapCore
import Testing

/// `ErrorEvent.Kind` and `ConnectionCloseEvent.Closer`: every case keeps its string through a
/// capture line and through Codable, and a string this build does not know still decodes.
@Suite struct CaptureEventValueTests {
    /// Each case with the string a capture holds for it (docs/capture-format.md).
    static let kinds: [(ErrorEvent.Kind, String)] = [
        (.badRequest, "bad-request"), (.refused, "refused"), (.upstream, "upstream"),
        (.upstreamTimeout, "upstream-timeout"),
        (.interrupted, "interrupted"), (.client, "client"), (.headTimeout, "head-timeout"),
        (.bodyTimeout, "body-timeout"), (.tls, "tls"), (.fault, "fault"),
    ]
    static let closers: [(ConnectionCloseEvent.Closer, String)] = [(.client, "client"), (.proxy, "proxy")]

    private func line(_ event: CaptureEvent) -> String { String(decoding: event.jsonLine(), as: UTF8.self) }

    private func decode(_ text: String) throws -> CaptureEvent? {
        try CaptureEvent.decode(jsonLine: Data(text.utf8), lineNumber: 1)
    }

    @Test func everyKindKeepsItsStringInACaptureLine() throws {
        #expect(Self.kinds.map(\.0) == ErrorEvent.Kind.known)
        for (kind, raw) in Self.kinds {
            let event = CaptureEvent.error(ErrorEvent(t: 1, exchange: 2, connection: 3, kind: kind, message: "m"))
            #expect(line(event).contains(#""kind":"\#(raw)""#))
            #expect(try decode(line(event)) == event)
            #expect(ErrorEvent.Kind(rawValue: raw) == kind && kind.rawValue == raw)
        }
    }

    @Test func everyCloserKeepsItsStringInACaptureLine() throws {
        #expect(Self.closers.map(\.0) == ConnectionCloseEvent.Closer.known)
        for (by, raw) in Self.closers {
            let event = CaptureEvent.connectionClose(ConnectionCloseEvent(t: 1, connection: 2, by: by, requests: 3))
            #expect(line(event).contains(#""by":"\#(raw)""#))
            #expect(try decode(line(event)) == event)
        }
    }

    @Test func everyCaseRoundTripsThroughCodable() throws {
        for (kind, raw) in Self.kinds {
            #expect(String(decoding: try JSONEncoder().encode([kind]), as: UTF8.self) == #"["\#(raw)"]"#)
            #expect(try JSONDecoder().decode([ErrorEvent.Kind].self, from: JSONEncoder().encode([kind])) == [kind])
        }
        for (by, raw) in Self.closers {
            #expect(String(decoding: try JSONEncoder().encode([by]), as: UTF8.self) == #"["\#(raw)"]"#)
            #expect(
                try JSONDecoder().decode([ConnectionCloseEvent.Closer].self, from: JSONEncoder().encode([by])) == [by])
        }
    }

    @Test func anUnknownKindDecodesAndIsWrittenBackAsItWas() throws {
        let text = #"{"type":"error","t":5,"conn":1,"kind":"quota-exceeded","message":"later rangetap"}"#
        guard case .error(let e)? = try decode(text) else {
            Issue.record("not an error event")
            return
        }
        #expect(e.kind == .other("quota-exceeded"))
        #expect(line(.error(e)).contains(#""kind":"quota-exceeded""#))
        #expect(
            try JSONDecoder().decode(ErrorEvent.Kind.self, from: Data(#""quota-exceeded""#.utf8))
                == .other("quota-exceeded"))
    }

    @Test func anUnknownCloserDecodesAndIsWrittenBackAsItWas() throws {
        let text = #"{"type":"conn.close","t":5,"conn":1,"by":"upstream","requests":0}"#
        guard case .connectionClose(let e)? = try decode(text) else {
            Issue.record("not a conn.close event")
            return
        }
        #expect(e.by == .other("upstream"))
        #expect(line(.connectionClose(e)).contains(#""by":"upstream""#))
    }

    @Test func anOtherSpellingAKnownValueEqualsThatCase() {
        #expect(ErrorEvent.Kind.other("upstream") == .upstream)
        #expect(Set([ErrorEvent.Kind.other("tls"), .tls]).count == 1)
        #expect(ConnectionCloseEvent.Closer.other("proxy") == .proxy)
        #expect(ErrorEvent.Kind(rawValue: "upstream") != .other("Upstream"))
    }
}
