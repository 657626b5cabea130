import Logging
import PostgresNIO
import _ConnectionPoolModule

/// Which step of a transaction (`PostgresClient.transaction`) failed, and with what.
public struct TransactionError: Error, CustomStringConvertible {
    /// `BEGIN` failed; nothing ran.
    public var beginError: (any Error)?
    /// The transaction's body threw; it was rolled back (or its connection was gone).
    public var closureError: (any Error)?
    /// The `ROLLBACK` after `closureError` failed.
    public var rollbackError: (any Error)?
    /// `COMMIT` failed after the body finished.
    public var commitError: (any Error)?

    public var description: String {
        let steps: [(String, (any Error)?)] = [("begin", beginError), ("body", closureError), ("rollback", rollbackError), ("commit", commitError)]
        return "transaction failed: " + steps.compactMap { step, error in error.map { "\(step): \(String(reflecting: $0))" } }.joined(separator: "; ")
    }
}

extension TransactionError {
    /// Whether `error`, thrown by `PostgresClient.transaction`, means that no `COMMIT` was sent, so
    /// nothing of the transaction was written: no connection to be had, a `BEGIN` that failed, or a
    /// body that threw (PostgreSQL rolls back a transaction whose connection ends without a
    /// `COMMIT`). False for a `COMMIT` that failed: that one may have run.
    public static func nothingCommitted(by error: any Error) -> Bool {
        switch error {
        case let error as TransactionError: error.commitError == nil && (error.beginError != nil || error.closureError != nil)
        case is ConnectionPoolError: true
        default: false
        }
    }
}

/// A statement was not sent because its connection had closed.
public struct ConnectionGone: Error, CustomStringConvertible {
    public var description: String { "the connection to PostgreSQL had closed" }
}

extension PostgresClient {
    /// Runs `body` in a transaction on one pooled connection: `BEGIN`, the body, `COMMIT`, or
    /// `ROLLBACK` when the body throws. Use this, not PostgresNIO's `withTransaction`.
    ///
    /// It never writes a statement to a connection that has closed. PostgresNIO (1.33) drops a
    /// query written to a closed connection without ever answering it: when the network to
    /// PostgreSQL broke during a transaction, the `ROLLBACK` that `withTransaction` then sent
    /// waited for ever, and with it the mail sender and the server's graceful shutdown.
    public func transaction<Result>(
        logger: Logger,
        isolation: isolated (any Actor)? = #isolation,
        _ body: (PostgresConnection) async throws -> sending Result
    ) async throws -> sending Result {
        try await withConnection(isolation: isolation) { connection in
            try await connection.transaction(logger: logger, isolation: isolation, body)
        }
    }
}

extension PostgresConnection {
    /// `BEGIN`, `body`, `COMMIT` on this connection, or `ROLLBACK` when `body` throws; none of
    /// them is written once the connection has closed (see `PostgresClient.transaction`).
    public func transaction<Result>(
        logger: Logger,
        isolation: isolated (any Actor)? = #isolation,
        _ body: (PostgresConnection) async throws -> sending Result
    ) async throws -> sending Result {
        do {
            try await controlStatement("BEGIN", logger: logger)
        } catch {
            throw TransactionError(beginError: error)
        }
        let value: Result
        do {
            value = try await body(self)
        } catch {
            var failure = TransactionError(closureError: error)
            do {
                try await controlStatement("ROLLBACK", logger: logger)
            } catch {
                failure.rollbackError = error
            }
            throw failure
        }
        do {
            try await controlStatement("COMMIT", logger: logger)
        } catch {
            throw TransactionError(commitError: error)
        }
        return value
    }

    /// Sends `statement` unless the connection has closed, and gives up on it once the connection
    /// has closed with it unanswered. A connection closed by the other side is marked closed
    /// before its in-flight query fails, so a statement sent after that failure is refused here;
    /// one written in the instant the connection closes (a pooled connection handed out as the
    /// network broke) would be dropped unanswered, so the connection is looked at every 250 ms
    /// while the statement waits (a timer, not a close callback: those would pile up on a
    /// connection that lives for hours). A statement given up on leaves its task suspended for
    /// good (PostgresNIO's query cannot be cancelled): rare, and only on a dead connection.
    private func controlStatement(_ statement: String, logger: Logger) async throws {
        guard !isClosed else { throw ConnectionGone() }
        // Not ended by cancellation: a BEGIN given up on while it still runs would leave the
        // pooled connection inside a transaction for its next user.
        let outcome = FirstOutcome<Void>()
        try await firstOf({ try await self.query(PostgresQuery(unsafeSQL: statement), logger: logger) }, into: outcome, watchingOn: eventLoop) { loop in
            // Closed on two looks in a row: an answer that came just before the close has had a
            // quarter second to reach the statement (reporting a COMMIT that happened as failed
            // would invite a retry that does it twice).
            let closedLooks = ClosedLooks()
            let watch = loop.scheduleRepeatedTask(initialDelay: .milliseconds(250), delay: .milliseconds(250)) { _ in
                guard closedLooks.count(closed: self.isClosed) >= 2 else { return }
                outcome.resume(with: .failure(ConnectionGone()))
            }
            return { watch.cancel() }
        }
    }
}

/// How many times in a row the watch found the connection closed (only touched on the
/// connection's event loop, where the repeated task runs).
private final class ClosedLooks: @unchecked Sendable {
    private var inARow = 0

    func count(closed: Bool) -> Int {
        inARow = closed ? inARow + 1 : 0
        return inARow
    }
}
