import Logging
import ServiceLifecycle

/// Deletes expired browser sessions every few minutes, for as long as the server runs.
struct ExpiredSessionSweeper: Service {
    let sessions: any WebSessionRepository
    let interval: Duration
    let logger: Logger

    func run() async throws {
        // First sweep after one interval: start-up (and its migration check) comes first.
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            try? await gracefulShutdownSleep(interval)
            guard !Task.isShuttingDownGracefully && !Task.isCancelled else { return }
            do {
                let count = try await sessions.deleteExpired()
                if count > 0 { logger.info("deleted \(count) expired session(s)") }
            } catch {
                logger.warning("could not delete expired sessions: \(String(reflecting: error))")
            }
        }
    }

    private func gracefulShutdownSleep(_ duration: Duration) async throws {
        try await cancelWhenGracefulShutdown {
            try await Task.sleep(for: duration)
        }
    }
}
