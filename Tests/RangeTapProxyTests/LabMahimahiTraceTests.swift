import RangeTapCore
import RangeTapProxy
import Testing

/// The error `MahimahiTrace(parsing:name:)` throws for `text`, or nil when it parses.
private func traceError(_ text: String) -> LabSpecError? {
    do {
        _ = try MahimahiTrace(parsing: text, name: "link.trace")
        return nil
    } catch {
        return error
    }
}

@Suite("Lab: Mahimahi traces")
struct LabMahimahiTraceTests {
    @Test func equalLinesAreSeveralPacketsInOneMillisecond() throws {
        let trace = try MahimahiTrace(parsing: "1\n1\n2\n", name: "t")
        #expect(trace.opportunitiesMs == [1, 1, 2])
        #expect(trace.periodMs == 2)
        // 3 packets of 1500 bytes every 2 ms: 4500 * 8 * 500 bit/s.
        #expect(trace.averageBitsPerSecond == 18_000_000)
    }

    @Test func commentsBlankLinesAndCRLFAreIgnored() throws {
        let trace = try MahimahiTrace(parsing: "# made by hand\r\n\r\n0\r\n  5  \r\n# end\n\n12", name: "t")
        #expect(trace.opportunitiesMs == [0, 5, 12])
        #expect(trace.periodMs == 12)
        #expect(trace.averageBitsPerSecond == 3_000_000)
    }

    @Test(arguments: [
        ("1\n0\n", 2, "0", "goes back in time (the line before says 1)"),
        ("1\nabc\n", 2, "abc", "is not a whole number"),
        ("# c\n-1\n", 2, "-1", "is not a whole number"),
        ("1.5\n", 1, "1.5", "is not a whole number"),
        ("3\n\n4 5\n", 3, "4 5", "is not a whole number"),
        ("99999999999999999999\n", 1, "99999999999999999999", "is not a whole number"),
    ])
    func badLinesNameTheFileAndLine(text: String, line: Int, bad: String, reason: String) throws {
        let error = try #require(traceError(text))
        guard case .badTraceLine(let name, let number, let quoted, _) = error else {
            Issue.record("\(error)")
            return
        }
        #expect(name == "link.trace")
        #expect(number == line)
        #expect(quoted == bad)
        #expect(error.description.hasPrefix("trace link.trace line \(line): \"\(bad)\" \(reason)"))
        #expect(error.description.contains("1500-byte packet"))
    }

    @Test func anEmptyTraceOrOneEndingAtZeroIsAnError() throws {
        #expect(traceError("") == .emptyTrace(name: "link.trace"))
        #expect(traceError("# only a comment\n\n") == .emptyTrace(name: "link.trace"))
        #expect(traceError("0\n0\n") == .zeroTracePeriod(name: "link.trace"))
        #expect(try #require(traceError("0")).description.contains("must be more than 0"))
        #expect(try #require(traceError("")).description.contains("link.trace has no timestamps"))
    }

    @Test func loadingNamesAMissingFile() throws {
        do {
            _ = try MahimahiTrace.load(path: "/nonexistent/dir/x.trace")
            Issue.record("loaded")
        } catch {
            #expect(error == .cannotRead(path: "/nonexistent/dir/x.trace", reason: "no such file"))
            #expect(error.description.contains("cannot read /nonexistent/dir/x.trace: no such file"))
        }
        do {
            _ = try MahimahiTrace.load(path: "/")
            Issue.record("loaded")
        } catch {
            #expect(error == .cannotRead(path: "/", reason: "it is a directory"))
        }
    }
}
