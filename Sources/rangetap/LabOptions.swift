import RangeTapCore
import RangeTapProxy

/// `record`'s player-lab flags (`--fault`, `--faults`, `--shape`, `--shape-trace`) turned into
/// rules and a link, with errors that name the flag.
enum LabOptions {
    /// A flag's value was refused.
    struct Refusal: Error, CustomStringConvertible {
        let flag: String
        let error: LabSpecError
        var description: String { "\(flag): \(error)" }
    }

    /// The rules of every `--fault` and of the `--faults` file, in that order.
    static func faultRules(_ rules: [String], file: String?) throws(Refusal) -> [FaultRule] {
        var out: [FaultRule] = []
        for text in rules {
            do { out.append(try FaultRule(parsing: text)) } catch { throw Refusal(flag: "--fault", error: error) }
        }
        if let file {
            do { out += try FaultRule.load(path: file) } catch { throw Refusal(flag: "--faults", error: error) }
        }
        return out
    }

    /// The rules of every `--map`, in order.
    static func mapRules(_ rules: [String]) throws(Refusal) -> [MapRule] {
        var out: [MapRule] = []
        for text in rules {
            do { out.append(try MapRule(parsing: text)) } catch { throw Refusal(flag: "--map", error: error) }
        }
        return out
    }

    /// The link of `--shape` and `--shape-trace`; nil when neither is given.
    static func shape(_ spec: String?, trace: String?) throws(Refusal) -> ShapeSpec? {
        guard spec != nil || trace != nil else { return nil }
        var shape = ShapeSpec()
        if let spec {
            do { shape = try ShapeSpec(parsing: spec) } catch { throw Refusal(flag: "--shape", error: error) }
        }
        if let trace {
            if shape.rateBitsPerSecond != nil {
                throw Refusal(
                    flag: "--shape-trace",
                    error: .conflict("rate= in --shape and --shape-trace both set the rate: keep one"))
            }
            do { shape.trace = try MahimahiTrace.load(path: trace) } catch {
                throw Refusal(flag: "--shape-trace", error: error)
            }
            shape.traceName = trace
        }
        return shape
    }
}
