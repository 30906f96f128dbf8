import ArgumentParser
import Logging
import RangeTapCore

/// `-x/--proxy` and `--noproxy` for commands that fetch (`play`, `probe`), read with the
/// `http_proxy`, `https_proxy`, `all_proxy` and `no_proxy` environment variables as curl reads them.
struct ProxyOptions: ParsableArguments {
    @Option(
        name: [.customShort("x"), .long],
        help: ArgumentHelp(
            "HTTP proxy to go through, such as http://127.0.0.1:8080 (a rangetap record); overrides http_proxy/https_proxy; \"\" for none.",
            valueName: "url"))
    var proxy: String?

    @Option(
        name: .customLong("noproxy"),
        help: ArgumentHelp(
            "Hosts to reach directly, comma-separated ('*' for all); overrides no_proxy.", valueName: "hosts"))
    var noProxy: String?

    /// The proxy for `url`, logged at debug level with where it came from.
    func selection(for url: String, environment: [String: String], logger: Logger) -> ProxySelection {
        let selection = ProxySelection(url: url, flag: proxy, noProxyFlag: noProxy, environment: environment)
        logger.debug(
            "proxy for \(url): \(selection.proxy.map { URLRedaction.redactingUserinfo($0, if: true) } ?? "none (direct)") (from \(selection.source))"
        )
        return selection
    }
}
