import Foundation
import RangeTapCore
@testable import RangeTapProxy
import Testing

/// `--map` rules: their syntax and errors, and which file a `dir=` rule maps a path to (never one
/// outside its directory).
@Suite("Lab: map rules")
struct LabMapRuleTests {
    /// A directory holding `a.mp4` and `sub/b.m4s`, and a file outside it.
    private func tree() throws -> (dir: String, outside: String) {
        let root = FileManager.default.temporaryDirectory.path + "/rangetap-map-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: root + "/www/sub", withIntermediateDirectories: true)
        try Data("a".utf8).write(to: URL(fileURLWithPath: root + "/www/a.mp4"))
        try Data("b".utf8).write(to: URL(fileURLWithPath: root + "/www/sub/b.m4s"))
        try Data("secret".utf8).write(to: URL(fileURLWithPath: root + "/secret.txt"))
        try FileManager.default.createSymbolicLink(
            atPath: root + "/www/link.txt", withDestinationPath: root + "/secret.txt")
        return (root + "/www", root + "/secret.txt")
    }

    @Test func aRuleNamesItsMatchAndOneSource() throws {
        let (dir, _) = try tree()
        let rule = try MapRule(parsing: " path=/v/*.mp4 , method=GET, file=\(dir)/a.mp4 ")
        #expect(rule.match == FaultMatch(path: "/v/*.mp4", method: "GET"))
        #expect(rule.source == .file(realPath(dir + "/a.mp4")))
        #expect(try MapRule(parsing: "dir=\(dir)").source == .directory(realPath(dir)))
    }

    @Test(arguments: [
        ("path=/a", "say which requests"),
        ("file=/nonexistent/x.mp4", "/nonexistent/x.mp4 does not exist"),
        ("file=DIR", "is not a regular file"),
        ("dir=DIR/a.mp4", "is not a directory"),
        ("capture=DIR", "is not a capture directory"),
        ("file=DIR/a.mp4,dir=DIR", "give one of file=, dir= and capture="),
        ("path=/a,status=503", "status"),
        ("nth=0,file=DIR/a.mp4", "nth is a count from 1"),
    ])
    func aBadRuleSaysWhatIsWrong(text: String, message: String) throws {
        let (dir, _) = try tree()
        let written = text.replacingOccurrences(of: "DIR", with: dir)
        #expect {
            try MapRule(parsing: written)
        } throws: { error in
            "\(error)".contains(message)
        }
    }

    @Test func aDirectoryRuleMapsThePathAfterTheGlobsDirectory() throws {
        let (dir, _) = try tree()
        let real = realPath(dir)
        func target(_ glob: String?, _ url: String) -> String? {
            let rule = try! MapRule(parsing: (glob.map { "path=\($0)," } ?? "") + "dir=\(dir)")
            guard case .success(let t) = MapTarget.resolve(rule, url: url, captures: [:]), case .file(let p) = t.bytes
            else { return nil }
            return p
        }
        #expect(target("/video/*", "http://h/video/sub/b.m4s") == real + "/sub/b.m4s")
        #expect(target(nil, "http://h/a.mp4?x=1") == real + "/a.mp4")
        #expect(target("*.mp4", "http://h/a.mp4") == real + "/a.mp4")
        #expect(target(nil, "http://h/sub/%62.m4s") == real + "/sub/b.m4s", "percent-decoded")
        // Nothing outside the directory, whichever way the path tries.
        #expect(target(nil, "http://h/../secret.txt") == nil)
        #expect(target(nil, "http://h/sub/../../secret.txt") == nil)
        #expect(target(nil, "http://h/%2e%2e/secret.txt") == nil)
        #expect(target(nil, "http://h/link.txt") == nil, "a symbolic link leading out")
        #expect(target(nil, "http://h/sub") == nil, "a directory is not a file")
        #expect(target(nil, "http://h/") == nil)
    }

    @Test func aFileIsARepresentationWithNginxsValidators() throws {
        let (dir, _) = try tree()
        guard case .success(let t) = MapTarget.file(dir + "/a.mp4") else {
            Issue.record("no target")
            return
        }
        let attributes = try FileManager.default.attributesOfItem(atPath: dir + "/a.mp4")
        let mtime = Int64((attributes[.modificationDate] as! Date).timeIntervalSince1970)
        #expect(t.representation.length == 1)
        #expect(t.representation.etag == "\"\(String(mtime, radix: 16))-1\"")
        #expect(t.representation.lastModified == HTTPDate.format(mtime))
        #expect(t.representation.contentType == "video/mp4")
        #expect(MediaType.of(path: "/x/seg.M4S") == "video/iso.segment")
        #expect(MediaType.of(path: "/x/.hidden") == "application/octet-stream")
    }
}

/// The real path, as rules store them.
private func realPath(_ path: String) -> String {
    URL(fileURLWithPath: path).resolvingSymlinksInPath().path
}
