import Logging
import PostgresNIO

/// Whether PostgreSQL answers: `SELECT 1`, for `/healthz`. Load balancers and monitors ask every
/// few seconds, some every second, so it is a hot statement like the lookups: prepared once per
/// connection (or sent unprepared with `DATABASE_PREPARED_STATEMENTS=off`).
public struct DatabaseProbe: Sendable {
    let statements: HotStatements

    public init(client: PostgresClient, preparedStatements: Bool, loopConnections: LoopConnections? = nil) {
        statements = HotStatements(client: client, prepared: preparedStatements, loopConnections: loopConnections)
    }

    /// Returns when PostgreSQL has answered; throws what the pool or the connection threw, or
    /// `DeadlineExceeded` after `limit`.
    public func check(within limit: Duration, logger: Logger) async throws {
        guard try await statements.rows(SelectOne(), within: limit, logger: logger) == [1] else { throw Unexpected() }
    }

    struct Unexpected: Error {}

    struct SelectOne: ReadOnlyStatement {
        static let name = "select_one"
        static let sql = "SELECT 1"

        func makeBindings() throws -> PostgresBindings { PostgresBindings() }

        func decodeRow(_ row: PostgresRow) throws -> Int32 {
            try row.makeRandomAccess().column(0)
        }
    }
}
