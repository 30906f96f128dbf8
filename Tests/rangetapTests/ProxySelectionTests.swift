@testable import rangetap
import Testing

@Suite("ProxySelection")
struct ProxySelectionTests {
    func pick(_ url: String, flag: String? = nil, noProxy: String? = nil, _ env: [String: String]) -> String? {
        ProxySelection(url: url, flag: flag, noProxyFlag: noProxy, environment: env).proxy
    }

    @Test func environmentVariablesAsCurlReadsThem() {
        #expect(pick("http://a.test/x", ["http_proxy": "http://p:1"]) == "http://p:1")
        #expect(pick("http://a.test/x", ["HTTP_PROXY": "http://p:1"]) == nil, "upper-case HTTP_PROXY is ignored")
        #expect(pick("https://a.test/x", ["HTTPS_PROXY": "http://p:2"]) == "http://p:2")
        #expect(pick("https://a.test/x", ["https_proxy": "http://p:2", "HTTPS_PROXY": "http://p:3"]) == "http://p:2")
        #expect(pick("https://a.test/x", ["http_proxy": "http://p:1"]) == nil, "http_proxy is for http URLs")
        #expect(pick("https://a.test/x", ["ALL_PROXY": "http://p:4"]) == "http://p:4")
        #expect(pick("http://a.test/x", ["http_proxy": ""]) == nil)
    }

    @Test func theFlagWinsAndNoProxyBypasses() {
        #expect(pick("http://a.test/x", flag: "http://f:1", ["http_proxy": "http://p:1"]) == "http://f:1")
        #expect(pick("http://a.test/x", flag: "", ["http_proxy": "http://p:1"]) == nil, "-x \"\" goes direct")
        #expect(
            pick("http://a.test/x", flag: "http://f:1", ["no_proxy": "*"]) == "http://f:1", "only --noproxy bypasses -x"
        )
        #expect(pick("http://a.test/x", flag: "http://f:1", noProxy: "a.test", [:]) == nil)
        #expect(pick("http://cdn.a.test/x", ["http_proxy": "http://p:1", "no_proxy": ".a.test"]) == nil)
        #expect(pick("http://cdn.a.test/x", ["http_proxy": "http://p:1", "NO_PROXY": "a.test:80"]) == nil)
        #expect(
            pick("http://ba.test/x", ["http_proxy": "http://p:1", "no_proxy": "a.test"]) == "http://p:1",
            "a suffix is not a domain")
        #expect(
            pick("http://a.test/x", noProxy: "other.test", ["http_proxy": "http://p:1", "no_proxy": "*"])
                == "http://p:1", "--noproxy overrides no_proxy")
        #expect(pick("http://[::1]:8/x", ["http_proxy": "http://p:1", "no_proxy": "[::1]"]) == nil)
        #expect(
            pick("http://user:pw@A.TEST:8/x", ["http_proxy": "http://p:1", "no_proxy": " x.test , a.test "]) == nil)
    }
}
