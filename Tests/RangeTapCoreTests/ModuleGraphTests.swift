import Foundation
import RangeTapTestSupport
import Testing

/// The module map of docs/ARCHITECTURE.md against the code: each module's `imports` column is
/// exactly what its Swift files import, Package.swift declares no dependency a module does not
/// import, and the project's modules form no cycle.
@Suite
struct ModuleGraphTests {
    /// Modules of the platform and the toolchain, which the map leaves out.
    static let system: Set<String> = [
        "Foundation", "FoundationNetworking", "FoundationEssentials", "Glibc", "Musl", "Darwin", "Dispatch",
        "Synchronization", "_Concurrency",
    ]

    /// Module → the modules its `imports` cell names, from the map's table.
    static func documented() throws -> [String: Set<String>] {
        let text = try String(contentsOfFile: Paths.root + "/docs/ARCHITECTURE.md", encoding: .utf8)
        var rows: [String: Set<String>] = [:]
        var inTable = false
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix("| module | holds | imports |") {
                inTable = true
                continue
            }
            guard inTable else { continue }
            guard line.hasPrefix("|") else {
                if !rows.isEmpty { break }
                continue
            }
            let cells = line.split(separator: "|", omittingEmptySubsequences: false).map {
                $0.trimmingCharacters(in: .whitespaces)
            }
            guard cells.count >= 4, cells[1].hasPrefix("`") else { continue }
            let name = cells[1].trimmingCharacters(in: CharacterSet(charactersIn: "`"))
            rows[name] = Set(backticked(cells[3]))
        }
        return rows
    }

    /// The `…` spans of `cell`.
    static func backticked(_ cell: String) -> [String] {
        cell.split(separator: "`", omittingEmptySubsequences: false).enumerated()
            .filter { $0.offset % 2 == 1 }.map { String($0.element) }
    }

    /// The modules the Swift files under `Sources/module` import, system modules left out.
    static func imported(by module: String) throws -> Set<String> {
        let dir = Paths.root + "/Sources/" + module
        var found: Set<String> = []
        guard let files = FileManager.default.enumerator(atPath: dir) else { return found }
        for case let file as String in files where file.hasSuffix(".swift") {
            let text = try String(contentsOfFile: dir + "/" + file, encoding: .utf8)
            for line in text.split(separator: "\n") {
                let words = line.split(separator: " ")
                guard let i = words.firstIndex(of: "import"), i + 1 < words.count,
                    words[..<i].allSatisfy({ $0.hasPrefix("@") })
                else { continue }
                found.insert(String(words[i + 1]))
            }
        }
        return found.subtracting(system)
    }

    /// Target → the dependencies Package.swift declares for it (target and product names).
    static func declared() throws -> [String: Set<String>] {
        let text = try String(contentsOfFile: Paths.root + "/Package.swift", encoding: .utf8)
        var out: [String: Set<String>] = [:]
        for block in text.components(separatedBy: "Target(").dropFirst()
            + text.components(separatedBy: ".target(")
            .dropFirst()
        {
            guard let nameRange = block.range(of: #"name: "([A-Za-z]+)""#, options: .regularExpression) else {
                continue
            }
            let name = String(block[nameRange].dropFirst(7).dropLast())
            guard let deps = block.range(of: "dependencies: [") else {
                out[name] = []
                continue
            }
            // The list runs to its matching bracket.
            var depth = 1
            var end = deps.upperBound
            while end < block.endIndex, depth > 0 {
                if block[end] == "[" { depth += 1 }
                if block[end] == "]" { depth -= 1 }
                end = block.index(after: end)
            }
            let list = block[deps.upperBound..<end]
            var names: Set<String> = []
            for item in list.split(separator: ",") {
                guard let q = item.range(of: #""[A-Za-z0-9_]+""#, options: .regularExpression) else { continue }
                names.insert(String(item[q].dropFirst().dropLast()))
            }
            out[name] = names
        }
        return out
    }

    /// The project's Swift modules: folders of `Sources/` with Swift files.
    static func projectModules() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: Paths.root + "/Sources").sorted().filter { module in
            let files = FileManager.default.enumerator(atPath: Paths.root + "/Sources/" + module)
            return (files?.allObjects as? [String] ?? []).contains { $0.hasSuffix(".swift") }
        }
    }

    @Test func everyModuleIsInTheMapWithExactlyItsImports() throws {
        let map = try Self.documented()
        let modules = try Self.projectModules()
        #expect(modules.count >= 10, "Sources/ holds the project's modules")
        for module in modules {
            let doc = try #require(map[module], "docs/ARCHITECTURE.md's module map has no row for \(module)")
            let code = try Self.imported(by: module)
            #expect(
                doc == code,
                """
                \(module): the map says \(doc.sorted()), the code imports \(code.sorted()) \
                (missing from the map: \(code.subtracting(doc).sorted()); not imported: \(doc.subtracting(code).sorted()))
                """)
        }
        for name in map.keys where !modules.contains(name) && !name.hasPrefix("C") {
            Issue.record("docs/ARCHITECTURE.md's module map names \(name), which is not a module of Sources/")
        }
    }

    @Test func packageDeclaresNoDependencyAModuleDoesNotImport() throws {
        let declared = try Self.declared()
        for module in try Self.projectModules() {
            let deps = try #require(declared[module], "Package.swift has no target \(module)")
            let code = try Self.imported(by: module)
            #expect(
                deps.subtracting(code).isEmpty,
                "\(module) depends on \(deps.subtracting(code).sorted()) but never imports it")
        }
    }

    @Test func theProjectModulesFormNoCycle() throws {
        let modules = Set(try Self.projectModules())
        var edges: [String: Set<String>] = [:]
        for module in modules { edges[module] = try Self.imported(by: module).intersection(modules) }
        // Kahn's algorithm: a module is taken away once every module it imports has been.
        var left = edges
        while let ready = left.first(where: { $0.value.isEmpty })?.key {
            left[ready] = nil
            for key in left.keys { left[key]?.remove(ready) }
        }
        #expect(left.isEmpty, "these modules import each other in a cycle: \(left.keys.sorted())")
    }
}
