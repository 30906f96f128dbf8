import NIOCore

extension ChannelPipeline.SynchronousOperations {
    /// Adds TLS as rangetap terminates it: a server ``TLSHandler`` with `context`, and right
    /// above it the ``TLSWriteBudget`` that keeps each flush's ciphertext within 32 KiB.
    /// Intercepted tunnels and `serve --tls` both go through here, so no TLS connection is left
    /// without it. Returns the budget.
    @discardableResult
    public func addTLSServerHandlers(context: TLSContext) throws -> TLSWriteBudget {
        let budget = TLSWriteBudget()
        try addHandler(TLSHandler(context: context, role: .server))
        try addHandler(budget)
        return budget
    }
}
