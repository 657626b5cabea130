import Logging
import PostgresNIO

/// A PostgreSQL advisory lock that one instance at a time may hold, on a connection of the lock's
/// own for as long as it is held. Not one of the pool's: the work done under the lock takes the
/// pool's connections, and with a pool of one it would wait for itself; an advisory lock is the
/// session's, so through a pooler in transaction mode it must be taken on the direct connection
/// (`DATABASE_LISTEN_URL`, as the access-change listener's).
public struct AdvisoryLock: Sendable {
    let database: DatabaseURL
    /// Identifies the lock (any fixed number other locks do not use).
    let key: Int64
    let logger: Logger

    public init(database: DatabaseURL, key: Int64, logger: Logger) {
        self.database = database
        self.key = key
        self.logger = logger
    }

    /// Runs `body` while holding the lock; nil, without running it, when someone else holds it.
    /// The lock is released before the connection closes: through a pooler in transaction mode
    /// (no `DATABASE_LISTEN_URL`) the server's connection, and a lock left on it, outlives ours.
    public func runIfFree<T: Sendable>(_ body: @Sendable () async throws -> T) async throws -> T? {
        let (key, logger) = (self.key, self.logger)
        let connection = try await PostgresConnection.connect(configuration: database.connectionConfiguration(), id: 0, logger: logger)
        func unlockAndClose(_ locked: Bool) async {
            if locked { _ = try? await connection.query("SELECT pg_advisory_unlock(\(key))", logger: logger) }
            try? await connection.close()
        }
        var locked = false
        do {
            locked = try await connection.query("SELECT pg_try_advisory_lock(\(key))", logger: logger)
                .collect().first?.decode(Bool.self) ?? false
            let result = locked ? try await body() : nil
            await unlockAndClose(locked)
            return result
        } catch {
            await unlockAndClose(locked)
            throw error
        }
    }
}
