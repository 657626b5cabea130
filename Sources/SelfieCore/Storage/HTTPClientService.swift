import AsyncHTTPClient
import ServiceLifecycle

/// The HTTP client for the object store, owned by the application: created with it, shut down
/// with it. Connection attempts give up after three seconds, so an unreachable store answers 503
/// quickly instead of holding the request until its read deadline.
public struct HTTPClientService: Service {
    public let client: HTTPClient

    public init() {
        var configuration = HTTPClient.Configuration()
        configuration.timeout = .init(connect: .seconds(3), read: .seconds(30))
        self.client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }

    public func run() async throws {
        try? await gracefulShutdown()
        // Even when shutdown has turned into cancellation: what a cut-off upload still has to
        // remove from the object store (an open multipart upload, a stored blob) goes first.
        await CleanUps.finish(within: .seconds(5))
        try await client.shutdown()
    }
}
