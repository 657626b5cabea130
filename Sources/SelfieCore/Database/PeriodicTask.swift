import Logging
import ServiceLifecycle

/// A background job run every `interval` while the server runs (first run after one interval, so
/// start-up comes first). Failures are logged and retried next time.
struct PeriodicTask: Service {
    let name: String
    let interval: Duration
    let logger: Logger
    let work: @Sendable () async throws -> Void

    func run() async throws {
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: interval) }
            guard !Task.isShuttingDownGracefully && !Task.isCancelled else { return }
            do {
                try await work()
            } catch {
                logger.warning("\(name) failed: \(String(reflecting: error))")
            }
        }
    }
}
