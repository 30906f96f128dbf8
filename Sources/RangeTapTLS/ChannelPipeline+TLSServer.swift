import NIOCore
import NIOSSL

extension ChannelPipeline.SynchronousOperations {
    /// Adds TLS as rangetap terminates it: `NIOSSLServerHandler` with `context`, and right above
    /// it the ``TLSWriteBudget`` that keeps NIOSSL's outbound buffer at 32 KiB. Intercepted
    /// tunnels and `serve --tls` both go through here, so no TLS connection is left without it.
    /// Returns the budget, which HTTP/2 narrows once ALPN has chosen it.
    @discardableResult
    public func addTLSServerHandlers(context: NIOSSLContext) throws -> TLSWriteBudget {
        let budget = TLSWriteBudget()
        try addHandler(NIOSSLServerHandler(context: context))
        try addHandler(budget)
        return budget
    }
}
