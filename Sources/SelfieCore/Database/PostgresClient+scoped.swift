import Logging
import PostgresNIO
import _ConnectionPoolModule

extension PostgresClient {
    /// Runs `body` with a client whose connection pool runs for exactly that long
    /// (for CLI commands and tests; the server runs its client as a service instead).
    @discardableResult
    public static func withClient<Result: Sendable>(
        _ url: DatabaseURL,
        logger: Logger,
        _ body: @Sendable (PostgresClient) async throws -> Result
    ) async throws -> Result {
        // The pool's background chatter (e.g. a lease racing `run()` starting) stays out of the way;
        // query errors still reach the caller as thrown errors.
        var background = logger
        background.logLevel = max(logger.logLevel, .error)
        let client = PostgresClient(configuration: url.clientConfiguration, backgroundLogger: background)
        return try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { await client.run() }
            defer { group.cancelAll() }
            return try await body(client)
        }
    }
}

/// SQLSTATE codes we react to (https://www.postgresql.org/docs/current/errcodes-appendix.html).
enum SQLState {
    static let uniqueViolation = "23505"
    static let foreignKeyViolation = "23503"
}

extension PSQLError {
    /// The server's SQLSTATE, when the error came from the server.
    var sqlState: String? { serverInfo?[.sqlState] }

    /// True when a unique index refused the row; `constraint` narrows it to one index.
    func isUniqueViolation(constraint: String? = nil) -> Bool {
        guard sqlState == SQLState.uniqueViolation else { return false }
        guard let constraint else { return true }
        return serverInfo?[.constraintName] == constraint
    }

    /// True when a row it refers to is gone: deleted by another transaction after this statement
    /// read it (its foreign key is checked on the committed row).
    var isForeignKeyViolation: Bool { sqlState == SQLState.foreignKeyViolation }

    /// True when PostgreSQL refused a value (data exception, class 22; check violation, 23514).
    public var isRejectedValue: Bool {
        guard let state = sqlState else { return false }
        return state.hasPrefix("22") || state == "23514"
    }

    /// True when the statement failed because its connection ended under it: closed by either
    /// side, broken (a reset, TLS cut short: `connectionError` once open), or ended by the server
    /// with a word first (57P01 an administrator's `pg_terminate_backend` or a fast shutdown, 57P02
    /// a crash of another backend, 57P05 `idle_session_timeout` racing the statement), which
    /// arrives as the statement's error. The statement was not at fault: asked again on another
    /// connection it may well pass.
    var endedItsConnection: Bool {
        switch code {
        case .clientClosedConnection, .serverClosedConnection, .connectionError: true
        default: sqlState.map { ["57P01", "57P02", "57P05"].contains($0) } ?? false
        }
    }

    /// True when the database could not be reached, the connection broke, or it refused for now
    /// what a retry can do: a 503, not a bug.
    var isUnavailable: Bool {
        if endedItsConnection { return true }
        switch code {
        case .poolClosed, .uncleanShutdown, .sslUnsupported, .failedToAddSSLHandler, .queryCancelled:
            return true
        default:
            guard let state = sqlState else { return false }
            // 08 connection exceptions, 53 insufficient resources (too many connections, a full
            // disk), 57P03 starting (57P01, 57P02, 57P05: `endedItsConnection`). And the
            // transient refusals a retry can pass, which a busy database gives correct code: 40001 serialization failure, 40P01
            // deadlock detected, 55P03 lock not available (a lock_timeout), 57014 query cancelled
            // (a statement_timeout a managed database may set on the role).
            return state.hasPrefix("08") || state.hasPrefix("53") || state == "57P03"
                || state == "40001" || state == "40P01" || state == "55P03" || state == "57014"
        }
    }
}

public enum DatabaseAvailability {
    /// True for errors that mean "the database cannot be reached right now" (answered with 503),
    /// as opposed to errors in what was asked of it (a bug: 500).
    public static func isUnavailable(_ error: any Error) -> Bool {
        switch error {
        case let error as PSQLError: error.isUnavailable
        case is ConnectionPoolError, is DeadlineExceeded, is ConnectionGone: true
        case let error as TransactionError:
            // A transaction that could not begin, run or commit because the database went away.
            [error.beginError, error.closureError, error.commitError].contains { $0.map(isUnavailable) ?? false }
        default: false
        }
    }
}
