import Foundation
import RangeTapTestSupport
import Testing

/// `play` and `probe` find their proxy as curl does: `-x/--proxy`, else `http_proxy` (never
/// upper-case `HTTP_PROXY`); `--noproxy` or `no_proxy` `*` goes direct. Checked against a real
/// recording proxy (what went through it is in its capture) and a dead one (a request sent
/// there fails with exit 2).
@Suite(.serialized)
struct ClientProxyCLITests {
    /// The test's environment without any proxy variable, plus `extra`.
    func environment(_ extra: [String: String]) -> [String: String] {
        var env = ProcessInfo.processInfo.environment
        for name in [
            "http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY", "no_proxy", "NO_PROXY",
        ] { env[name] = nil }
        return env.merging(extra) { $1 }
    }

    func run(_ args: [String], _ env: [String: String]) throws -> CommandResult {
        try runCommand(Paths.rangetap, args + ["-v"], environment: environment(env), timeout: 60)
    }

    /// Requests that went through a fresh recording proxy while `body` ran.
    func throughProxy(_ body: (String) throws -> Void) async throws -> Int {
        let proxy = try await ProxyHarness()
        try body(proxy.url)
        return try await proxy.stopAndRead().requests.count
    }

    @Test(arguments: ["probe", "play"])
    func proxyFromTheEnvironmentOrTheFlagLikeCurl(command: String) async throws {
        let origin = try QuirkOrigin(size: 64 * 1024)
        defer { origin.stop() }
        let url = origin.url(command == "probe" ? "/strict/head-206" : "/normal")
        let args = [command, url] + (command == "probe" ? ["--timeout", "5s"] : ["--pattern", "linear"])
        let dead = "http://127.0.0.1:\(try freePort())"

        // http_proxy is used, and -v says where the proxy came from.
        let viaEnv = try await throughProxy { proxy in
            let r = try run(args, ["http_proxy": proxy])
            #expect(r.status != 2, "\(r.stderr)")
            #expect(r.stderr.contains("(from http_proxy)"), "\(r.stderr)")
        }
        #expect(viaEnv > 0)
        // -x beats http_proxy, and no_proxy in the environment does not bypass it.
        let viaFlag = try await throughProxy { proxy in
            let r = try run(args + ["-x", proxy], ["http_proxy": dead, "no_proxy": "127.0.0.1,localhost"])
            #expect(r.status != 2, "\(r.stderr)")
            #expect(r.stderr.contains("(from -x/--proxy)"), "\(r.stderr)")
        }
        #expect(viaFlag > 0)
        // Upper-case HTTP_PROXY is ignored (as curl does); no_proxy '*' and --noproxy go direct.
        for (extraArgs, env) in [
            ([String](), ["HTTP_PROXY": dead]), ([], ["http_proxy": dead, "no_proxy": "*"]),
            (["-x", dead, "--noproxy", "127.0.0.1"], [:]),
        ] {
            let r = try run(args + extraArgs, env)
            #expect(r.status != 2, "\(extraArgs) \(env): \(r.stderr)")
        }
        // And the dead proxy really is dead: used, it fails.
        let failing = try run(args, ["http_proxy": dead])
        #expect(failing.status == 2, "\(failing.stderr)")
    }
}
