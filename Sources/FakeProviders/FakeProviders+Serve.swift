import Hummingbird
import Logging
import NIOCore

extension FakeProviders {
    /// Serves the fake on 127.0.0.1:`port` (0: any free port) until `body` returns.
    public func serving<T: Sendable>(port: Int = 0, _ body: @Sendable (String) async throws -> T) async throws -> T {
        let (stream, continuation) = AsyncStream.makeStream(of: Int.self)
        var logger = Logger(label: "fake-providers")
        logger.logLevel = .critical  // cancelling it at the end of a test is not an error
        let app = Application(
            router: router(),
            configuration: .init(address: .hostname("127.0.0.1", port: port)),
            onServerRunning: { channel in continuation.yield(channel.localAddress?.port ?? 0) },
            logger: logger
        )
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await app.runService(gracefulShutdownSignals: []) }
            var iterator = stream.makeAsyncIterator()
            guard let bound = await iterator.next() else { throw CancellationError() }
            setBaseURL("http://127.0.0.1:\(bound)")
            defer { group.cancelAll() }
            return try await body(baseURL)
        }
    }
}
