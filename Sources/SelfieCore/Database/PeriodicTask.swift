import Logging
import PostgresNIO
import ServiceLifecycle

/// A background job run every `interval` while the server runs (first run after one interval, so
/// start-up comes first). Failures are logged and retried next time.
///
/// With `sharedThrough`, the instances on one database run it once per interval between them: each
/// instance's timer fires, and only the one that claims the task's row in `periodic_task_runs`
/// (its last run at least most of an interval ago, an atomic upsert) does the work.
struct PeriodicTask: Service {
    let name: String
    let interval: Duration
    let logger: Logger
    var sharedThrough: PostgresClient? = nil
    let work: @Sendable () async throws -> Void

    func run() async throws {
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: interval) }
            guard !Task.isShuttingDownGracefully && !Task.isCancelled else { return }
            do {
                if try await claim() { try await work() }
            } catch {
                logger.warning("\(name) failed: \(String(reflecting: error))")
            }
        }
    }

    /// Whether this instance runs the task now (always, when it is not shared).
    func claim() async throws -> Bool {
        guard let client = sharedThrough else { return true }
        // A tenth of the interval's slack, so that timers drifting apart do not skip a turn.
        let seconds = Double(interval.components.seconds) * 0.9
        let rows = try await client.query(
            """
            INSERT INTO periodic_task_runs (name, last_run_at) VALUES (\(name), now())
            ON CONFLICT (name) DO UPDATE SET last_run_at = now()
            WHERE periodic_task_runs.last_run_at <= now() - make_interval(secs => \(seconds))
            RETURNING 1
            """,
            logger: logger
        ).collect()
        return !rows.isEmpty
    }
}
