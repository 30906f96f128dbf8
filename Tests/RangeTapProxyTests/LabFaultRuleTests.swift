import RangeTapCore
import RangeTapProxy
import Testing

/// The error `FaultRule(parsing:)` throws for `text`, or nil when it parses.
private func ruleError(_ text: String) -> LabSpecError? {
    do {
        _ = try FaultRule(parsing: text)
        return nil
    } catch {
        return error
    }
}

@Suite("Lab: --fault rule parsing")
struct LabFaultRuleTests {
    @Test func everyMatchKey() throws {
        let rule = try FaultRule(
            parsing: "  host=CDN.example.com:8443, path=/seg-*.m4s ,method=get,range=yes,nth=2,status=503 ")
        #expect(rule.text == "host=CDN.example.com:8443, path=/seg-*.m4s ,method=get,range=yes,nth=2,status=503")
        #expect(rule.description == rule.text)
        #expect(
            rule.match
                == FaultMatch(host: "CDN.example.com:8443", path: "/seg-*.m4s", method: "GET", range: true, nth: 2))
        #expect(rule.actions == [.status(503)])
        #expect(try FaultRule(parsing: "range=NO,status=404").match.range == false)
    }

    @Test(arguments: [
        ("status=503", FaultAction.status(503), "status"),
        ("status=100", .status(100), "status"),
        ("reset-after=64k", .resetAfter(65_536), "reset-after"),
        ("reset-after=0", .resetAfter(0), "reset-after"),
        ("stall-after=1m,for=5s", .stallAfter(1_048_576, forNs: 5_000_000_000), "stall-after"),
        ("for=250ms, stall-after=1000", .stallAfter(1000, forNs: 250_000_000), "stall-after"),
        ("delay-head=1.5s", .delayHead(1_500_000_000), "delay-head"),
        ("ignore-range", .ignoreRange, "ignore-range"),
        ("OFF-BY-ONE", .offByOne, "off-by-one"),
        ("drop-header=Content-Range", .dropHeader("Content-Range"), "drop-header"),
        ("header-case=MIXED", .headerCase(.mixed), "header-case"),
        ("header-case=lower", .headerCase(.lower), "header-case"),
        ("header-case=upper", .headerCase(.upper), "header-case"),
        ("truncate-after=1.5k", .truncateAfter(1536), "truncate-after"),
    ])
    func everyAction(text: String, action: FaultAction, name: String) throws {
        let rule = try FaultRule(parsing: text)
        #expect(rule.actions == [action])
        #expect(action.name == name)
        // No match key: every request.
        #expect(rule.match == FaultMatch())
        #expect(rule.match.matches(host: "any.example:1", path: "/x", method: "POST", hasRange: true))
    }

    @Test func actionsKeepTheirOrder() throws {
        let rule = try FaultRule(
            parsing: "path=*.mp4,status=206,drop-header=Accept-Ranges,header-case=upper,delay-head=20ms")
        #expect(
            rule.actions == [.status(206), .dropHeader("Accept-Ranges"), .headerCase(.upper), .delayHead(20_000_000)])
    }

    @Test(arguments: [
        ("status=999", "100 to 599"), ("status=50", "100 to 599"), ("status=5030", "100 to 599"),
        ("status=+50", "100 to 599"),
        ("reset-after=lots", "64k, 1.5m"), ("truncate-after=-1", "64k, 1.5m"), ("stall-after=1q,for=1s", "64k, 1.5m"),
        ("stall-after=1k,for=1", "80ms, 1.5s"), ("stall-after=1k,for=0", "more than 0"),
        ("delay-head=0", "more than 0"),
        ("delay-head=soon", "80ms, 1.5s"),
        ("drop-header=Content Range", "header field name"), ("drop-header=X:Y", "header field name"),
        ("header-case=camel", "lower, upper or mixed"),
        ("ignore-range=yes", "takes no value"), ("off-by-one=1", "takes no value"),
        ("range=maybe", "yes (requests with a Range header) or no"),
        ("nth=0", "count from 1"), ("nth=two", "count from 1"), ("nth=-1", "count from 1"),
        ("method=G T", "method name"),
        ("host=cdn/x", "host name or address"), ("host=a.com:99999", "host name or address"),
        ("host=a.com:", "host name or address"),
        ("path=a/b.ts", "must start with /"), ("path=/a b", "no spaces"), ("path=/a#frag", "no spaces"),
    ])
    func badValuesSayWhatIsAllowed(text: String, hint: String) throws {
        let rule = "status=500, \(text)".replacingOccurrences(of: "status=500, status", with: "reset-after=1, status")
        let error = try #require(ruleError(rule))
        guard case .badValue(let what, let quotedRule, let item, _) = error else {
            Issue.record("\(rule): \(error)")
            return
        }
        #expect(what == "fault rule")
        #expect(quotedRule == rule)
        #expect(text.contains(item))
        #expect(error.description.contains("fault rule \"\(rule)\": \"\(item)\" is wrong"))
        #expect(error.description.contains(hint))
    }

    @Test func stallAfterAndForGoTogether() throws {
        let missingFor = try #require(ruleError("path=*.ts,stall-after=256k"))
        #expect(
            missingFor
                == .badCombination(
                    what: "fault rule", rule: "path=*.ts,stall-after=256k",
                    reason: "stall-after= needs for= to say how long the stall lasts, as in stall-after=256k,for=5s"))
        let strayFor = try #require(ruleError("for=5s,status=500"))
        #expect(strayFor.description.contains("\"for=5s,status=500\""))
        #expect(strayFor.description.contains("for= goes with stall-after= only"))
    }

    @Test func aRuleNeedsAnAction() throws {
        let error = try #require(ruleError("path=*.ts,nth=3"))
        #expect(error == .noAction(rule: "path=*.ts,nth=3"))
        #expect(error.description.contains("\"path=*.ts,nth=3\""))
        #expect(
            error.description.contains(
                "a rule needs an action: status=, reset-after=, stall-after=, delay-head=, ignore-range, off-by-one, drop-header=, header-case= or truncate-after="
            ))
        let empty = try #require(ruleError("  "))
        guard case .empty(let what, _) = empty else {
            Issue.record("\(empty)")
            return
        }
        #expect(what == "fault rule")
    }

    @Test func listErrorsQuoteTheRuleAndItemAndListTheKeys() throws {
        let allowed = [
            "host=", "path=", "method=", "range=", "nth=", "status=", "reset-after=", "stall-after=", "for=",
            "delay-head=", "ignore-range", "off-by-one", "drop-header=", "header-case=", "truncate-after=",
        ]
        #expect(
            ruleError("colour=red,status=500")
                == .unknownKey(what: "fault rule", rule: "colour=red,status=500", item: "colour=red", allowed: allowed))
        #expect(
            ruleError("status=500, status=503")
                == .repeatedKey(
                    what: "fault rule", rule: "status=500, status=503", item: "status=503", allowed: allowed))
        #expect(
            ruleError("PATH=/a,path=/b,status=500")
                == .repeatedKey(
                    what: "fault rule", rule: "PATH=/a,path=/b,status=500", item: "path=/b", allowed: allowed))
        #expect(
            ruleError("path=/a,status")
                == .missingValue(what: "fault rule", rule: "path=/a,status", item: "status", allowed: allowed))
        #expect(
            ruleError("status=,path=/a")
                == .emptyValue(what: "fault rule", rule: "status=,path=/a", item: "status=", allowed: allowed))
        let description = try #require(ruleError("colour=red,status=500")).description
        #expect(description.contains("fault rule \"colour=red,status=500\": \"colour=red\" is not a known key"))
        #expect(description.contains("host=, path=, method=, range=, nth=, status=, reset-after="))
        #expect(description.contains("ignore-range, off-by-one, drop-header="))
    }

    @Test func aRulesFileHasOneRuleALineWithComments() throws {
        let file = """
            # faults for the player lab

            path=*.ts,nth=3,reset-after=64k
              # indented comment
            \thost=cdn.example.com , status=503\r

            """
        let rules = try FaultRule.parseFile(file, name: "faults.txt")
        #expect(rules.map(\.text) == ["path=*.ts,nth=3,reset-after=64k", "host=cdn.example.com , status=503"])
        #expect(rules[1].actions == [.status(503)])
        #expect(try FaultRule.parseFile("# nothing yet\n\n", name: "f").isEmpty)
    }

    @Test func aRulesFileErrorNamesTheFileAndLine() throws {
        do {
            _ = try FaultRule.parseFile("# header\nstatus=500\n\npath=*.ts,status=99\n", name: "faults.txt")
            Issue.record("parsed")
        } catch {
            guard case .inFile(let name, let line, let inner) = error else {
                Issue.record("\(error)")
                return
            }
            #expect(name == "faults.txt")
            #expect(line == 4)
            #expect(inner == ruleError("path=*.ts,status=99"))
            #expect(
                error.description.hasPrefix(
                    "faults.txt line 4: fault rule \"path=*.ts,status=99\": \"status=99\" is wrong"))
        }
        #expect(throws: LabSpecError.cannotRead(path: "/nonexistent/faults.txt", reason: "no such file")) {
            try FaultRule.load(path: "/nonexistent/faults.txt")
        }
    }
}
