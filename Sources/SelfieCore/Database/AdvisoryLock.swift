import Logging
import PostgresNIO

/// A PostgreSQL advisory lock that one instance at a time may hold: taken on one connection,
/// released before that connection goes back to the pool.
public struct AdvisoryLock: Sendable {
    let client: PostgresClient
    /// Identifies the lock (any fixed number other locks do not use).
    let key: Int64
    let logger: Logger

    public init(client: PostgresClient, key: Int64, logger: Logger) {
        self.client = client
        self.key = key
        self.logger = logger
    }

    /// Runs `body` while holding the lock; nil, without running it, when someone else holds it.
    public func runIfFree<T: Sendable>(_ body: @Sendable () async throws -> T) async throws -> T? {
        let (key, logger) = (self.key, self.logger)
        return try await client.withConnection { connection in
            let locked = try await connection.query("SELECT pg_try_advisory_lock(\(key))", logger: logger)
                .collect().first?.decode(Bool.self) ?? false
            guard locked else { return nil }
            let unlock = { _ = try? await connection.query("SELECT pg_advisory_unlock(\(key))", logger: logger) }
            do {
                let result = try await body()
                await unlock()
                return result
            } catch {
                await unlock()
                throw error
            }
        }
    }
}
