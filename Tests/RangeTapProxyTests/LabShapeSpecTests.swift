import RangeTapCore
import RangeTapProxy
import Testing

/// The error `ShapeSpec(parsing:)` throws for `text`, or nil when it parses.
private func shapeError(_ text: String) -> LabSpecError? {
    do {
        _ = try ShapeSpec(parsing: text)
        return nil
    } catch {
        return error
    }
}

@Suite("Lab: --shape parsing")
struct LabShapeSpecTests {
    @Test func everyKey() throws {
        let spec = try ShapeSpec(parsing: "rate=2mbit,latency=80ms,jitter=10ms,scope=connection")
        #expect(spec.rateBitsPerSecond == 2_000_000)
        #expect(spec.latencyNs == 80_000_000)
        #expect(spec.jitterNs == 10_000_000)
        #expect(spec.scope == .connection)
        #expect(spec.trace == nil && spec.traceName == nil)
        #expect(!spec.isOff)
        #expect(spec.description == "rate=2mbit,latency=80ms,jitter=10ms,scope=connection")
    }

    @Test func blanksCaseAndOrderDoNotMatter() throws {
        let spec = try ShapeSpec(parsing: "  Scope = LINK ,  LATENCY=1.5s,RATE=1.5Mbit ,")
        #expect(spec.rateBitsPerSecond == 1_500_000)
        #expect(spec.latencyNs == 1_500_000_000)
        #expect(spec.jitterNs == 0)
        #expect(spec.scope == .link)
        #expect(spec.description == "rate=1.5mbit,latency=1500ms,scope=link")
    }

    @Test func defaultsAndOff() throws {
        for text in ["off", " OFF "] {
            let spec = try ShapeSpec(parsing: text)
            #expect(spec == ShapeSpec())
            #expect(spec.isOff)
            #expect(spec.description == "off")
        }
        let latencyOnly = try ShapeSpec(parsing: "latency=50ms")
        #expect(latencyOnly.rateBitsPerSecond == nil)
        #expect(latencyOnly.scope == .link)
        #expect(!latencyOnly.isOff)
        #expect(latencyOnly.description == "latency=50ms,scope=link")
        #expect(try ShapeSpec(parsing: "jitter=3ms").isOff == false)
        #expect(try ShapeSpec(parsing: "latency=0,jitter=0").isOff)
    }

    @Test(arguments: [
        ("64000bit", 64_000, "64kbit"), ("500kbit", 500_000, "500kbit"), ("1.5mbit", 1_500_000, "1.5mbit"),
        ("2mbit", 2_000_000, "2mbit"), ("1gbit", 1_000_000_000, "1gbit"), ("1234bit", 1234, "1.234kbit"),
        ("999bit", 999, "999bit"),
        ("1234.567kbit", 1_234_567, "1234.567kbit"), ("0.25gbit", 250_000_000, "250mbit"),
        ("2.001mbit", 2_001_000, "2.001mbit"),
    ])
    func ratesInBitsPowersOf1000(text: String, bits: Int64, normalised: String) throws {
        let spec = try ShapeSpec(parsing: "rate=" + text)
        #expect(spec.rateBitsPerSecond == bits)
        #expect(spec.description == "rate=\(normalised),scope=link")
        #expect(try ShapeSpec(parsing: spec.description) == spec)
    }

    @Test(arguments: [
        "rate=2mbps", "rate=250kbps", "rate=1gbps", "rate=100bps", "rate=2MB/s", "rate=300Kbps", "rate=10bytes",
    ])
    func byteSpellingsAreRefusedWithTheBitSpelling(text: String) throws {
        let error = try #require(shapeError(text))
        guard case .badValue(_, let rule, let item, _) = error else {
            Issue.record("\(error)")
            return
        }
        #expect(rule == text && item == text)
        #expect(error.description.contains("\"\(text)\""))
        #expect(error.description.contains("not bytes"))
        #expect(error.description.contains("mbit"))
    }

    @Test(arguments: [
        ("rate=2", "64000bit, 500kbit"), ("rate=2kb", "64000bit, 500kbit"), ("rate=fast", "64000bit, 500kbit"),
        ("rate=1..5mbit", "64000bit"), ("rate=-1mbit", "64000bit"), ("rate=0", "rate of 0"),
        ("rate=0kbit", "rate of 0"), ("rate=0bit", "rate of 0"), ("rate=0.0001bit", "rate of 0"),
        ("rate=2000gbit", "at most 1000gbit"),
        ("latency=80", "80ms, 1.5s"), ("latency=-5ms", "80ms, 1.5s"), ("jitter=10us", "80ms, 1.5s"),
        ("scope=global", "link (all connections"),
    ])
    func badValuesSayWhatIsAllowed(text: String, hint: String) throws {
        let whole = (text.hasPrefix("scope") ? "rate=1mbit, " : "scope=link, ") + text
        let error = try #require(shapeError(whole))
        guard case .badValue(let what, let rule, let item, _) = error else {
            Issue.record("\(error)")
            return
        }
        #expect(what == "shape")
        #expect(rule == whole)
        #expect(item == text)
        #expect(error.description.contains("shape \"\(whole)\": \"\(text)\" is wrong"))
        #expect(error.description.contains(hint))
    }

    @Test func listErrorsQuoteTheRuleAndItemAndListTheKeys() throws {
        let keys = "rate=, latency=, jitter= or scope="
        let unknown = try #require(shapeError("rate=1mbit,speed=2mbit"))
        #expect(
            unknown
                == .unknownKey(
                    what: "shape", rule: "rate=1mbit,speed=2mbit", item: "speed=2mbit",
                    allowed: ["rate=", "latency=", "jitter=", "scope="]))
        #expect(unknown.description.contains("\"speed=2mbit\" is not a known key: the keys are \(keys)"))

        let repeated = try #require(shapeError("rate=1mbit, rate=2mbit"))
        guard case .repeatedKey(_, _, let item, _) = repeated else {
            Issue.record("\(repeated)")
            return
        }
        #expect(item == "rate=2mbit")
        #expect(repeated.description.contains("rate=1mbit, rate=2mbit"))
        #expect(repeated.description.contains(keys))

        let noValue = try #require(shapeError("rate"))
        guard case .missingValue(_, _, let bare, _) = noValue else {
            Issue.record("\(noValue)")
            return
        }
        #expect(bare == "rate")
        #expect(noValue.description.contains("\"rate\" has no value"))

        let empty = try #require(shapeError("latency=10ms,rate= "))
        guard case .emptyValue(_, let rule, let emptyItem, _) = empty else {
            Issue.record("\(empty)")
            return
        }
        #expect(rule == "latency=10ms,rate=")
        #expect(emptyItem == "rate=")
        #expect(empty.description.contains(keys))

        let offAndMore = try #require(shapeError("off,rate=1mbit"))
        guard case .unknownKey(_, _, let offItem, _) = offAndMore else {
            Issue.record("\(offAndMore)")
            return
        }
        #expect(offItem == "off")
    }

    @Test(arguments: ["", "  ", " , ,"])
    func anEmptyShapeIsAnError(text: String) throws {
        let error = try #require(shapeError(text))
        guard case .empty(let what, _) = error else {
            Issue.record("\(error)")
            return
        }
        #expect(what == "shape")
        #expect(error.description.contains("rate=2mbit,latency=80ms"))
        #expect(error.description.contains("off"))
    }

    @Test func aTraceAndARateDoNotGoTogether() throws {
        let trace = try MahimahiTrace(parsing: "1\n2\n", name: "t.trace")
        let withTrace = try ShapeSpec(parsing: "latency=20ms").withTrace(trace, name: "t.trace")
        #expect(withTrace.trace == trace)
        #expect(withTrace.traceName == "t.trace")
        #expect(!withTrace.isOff)
        #expect(withTrace.description == "latency=20ms,scope=link")
        #expect(throws: LabSpecError.self) { try ShapeSpec(parsing: "rate=1mbit").withTrace(trace, name: "t.trace") }
        do {
            _ = try ShapeSpec(parsing: "rate=1mbit").withTrace(trace, name: "t.trace")
        } catch {
            #expect(error.description.contains("t.trace"))
            #expect(error.description.contains("leave rate= out"))
        }
        // A refusal worded by the caller is printed as it is.
        #expect(
            LabSpecError.conflict("scope=connection: the scope is fixed when record starts").description
                == "scope=connection: the scope is fixed when record starts")
    }
}
