import Logging
import PostgresNIO
import ServiceLifecycle

/// A background job run every `interval` while the server runs (first run after one interval, so
/// start-up comes first). Failures are logged and retried next time. A graceful shutdown stops
/// the work under way too (a backfill over every photo would otherwise hold the shutdown until its
/// time is up, and then everything after it is cut off at once).
///
/// With `sharedThrough`, the instances on one database run it once per interval between them: each
/// instance's timer fires, and only the one that claims the task's row in `periodic_task_runs`
/// (its last run at least most of an interval ago, an atomic upsert) does the work. Its first turn
/// comes when the task is due by its last run anywhere (a few seconds after start-up at the
/// soonest): instances that restart more often than the interval would otherwise never reach it.
struct PeriodicTask: Service {
    let name: String
    let interval: Duration
    let logger: Logger
    var sharedThrough: PostgresClient? = nil
    let work: @Sendable () async throws -> Void

    func run() async throws {
        guard var wait = try? await cancelWhenGracefulShutdown({ await firstWait() }) else { return }
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            let sleep = wait
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: sleep) }
            wait = interval
            guard !Task.isShuttingDownGracefully && !Task.isCancelled else { return }
            do {
                if try await claim() { try await cancelWhenGracefulShutdown { try await work() } }
            } catch {
                // Work stopped by the shutdown ends the task quietly: a service that throws then
                // would have the group cancel the ones after it instead of stopping them in order.
                if Task.isShuttingDownGracefully || Task.isCancelled { return }
                logger.warning("\(name) failed: \(String(reflecting: error))")
            }
        }
    }

    /// Until the first turn: a shared task's next by its last run anywhere (its row made now, when
    /// it has none), within a few seconds after start-up and one interval; one interval otherwise.
    func firstWait() async -> Duration {
        guard let client = sharedThrough else { return interval }
        let seconds = Double(interval.components.seconds)
        do {
            let rows = try await client.query(
                """
                WITH registered AS (
                    INSERT INTO periodic_task_runs (name, last_run_at) VALUES (\(name), now()) ON CONFLICT (name) DO NOTHING RETURNING last_run_at
                )
                SELECT extract(epoch FROM coalesce(
                    (SELECT last_run_at FROM registered), (SELECT last_run_at FROM periodic_task_runs WHERE name = \(name))
                ) + make_interval(secs => \(seconds)) - now())::float8
                """,
                logger: logger
            )
            for try await left in rows.decode(Double.self) {
                let soonest = min(interval, .seconds(5))
                return max(soonest, min(interval, .milliseconds(Int64(left * 1000))))
            }
        } catch {
            logger.warning("\(name): when it last ran is unknown (\(String(reflecting: error))); it runs after one interval")
        }
        return interval
    }

    /// Whether this instance runs the task now (always, when it is not shared).
    func claim() async throws -> Bool {
        guard let client = sharedThrough else { return true }
        // A tenth of the interval's slack, so that timers drifting apart do not skip a turn. A run
        // recorded in the future was stamped by a clock since set back: it does not hold the task
        // off until that time comes again. (Future as of this statement's own reading of the clock:
        // another instance's claim that took the row a moment ago is stamped with its transaction's
        // start, later than this one's `now()` — that one is not "in the future".)
        let seconds = Double(interval.components.seconds) * 0.9
        let rows = try await client.query(
            """
            INSERT INTO periodic_task_runs (name, last_run_at) VALUES (\(name), now())
            ON CONFLICT (name) DO UPDATE SET last_run_at = now()
            WHERE periodic_task_runs.last_run_at <= now() - make_interval(secs => \(seconds))
                OR periodic_task_runs.last_run_at > clock_timestamp()
            RETURNING 1
            """,
            logger: logger
        ).collect()
        return !rows.isEmpty
    }
}
