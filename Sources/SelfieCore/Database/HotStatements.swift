import Logging
import Metrics
import NIOCore
import PostgresNIO

/// Runs the statements every request sends (session and token lookups, photo pages): prepared
/// on each connection (PostgreSQL parses and plans them once per connection, not per request), or,
/// with `DATABASE_PREPARED_STATEMENTS=off`, the same SQL text sent unprepared. Either way the rows
/// are decoded by the statement's own `decodeRow`, column by column with concrete types. Each
/// statement names itself (`static let name`): PostgresNIO's default name is the type's
/// `String(reflecting:)`, worked out again on every execution.
///
/// Each runs under a deadline (`databaseWaitLimit` unless said otherwise): a request whose token or
/// session came from the access cache still asks for its photos, and with the network to PostgreSQL
/// gone silent (no reset, packets dropped) that query would wait until TCP gave up, minutes later.
///
/// A request running on an event loop sends them on that loop's own connections
/// (`LoopConnections`) when one can be had: its deadline is then a timer that closes the
/// connection. Otherwise they go through the pool, the deadline in a task of its own (the wait
/// for a pooled connection ends only by cancelling the task that waits).
struct HotStatements: Sendable {
    let client: PostgresClient
    let prepared: Bool
    let loopConnections: LoopConnections?

    init(client: PostgresClient, prepared: Bool, loopConnections: LoopConnections? = nil) {
        self.client = client
        self.prepared = prepared
        self.loopConnections = loopConnections
    }

    /// Hot statements answered on a loop's connection, and sent through the pool (one asked again
    /// there after its loop's connection ended counts in the pool only; one cut by its deadline on
    /// a loop in neither) — `selfie_db_hot_statements_total`: many through the pool at a site's
    /// usual load mean the loops have too few connections (DATABASE_POOL_SIZE, docs/SCALING.md).
    private static let answeredOnALoop = Counter(label: "selfie_db_hot_statements_total", dimensions: [("via", "loop")])
    private static let sentThroughThePool = Counter(label: "selfie_db_hot_statements_total", dimensions: [("via", "pool")])

    func rows<Statement: ReadOnlyStatement>(
        _ statement: Statement,
        within limit: Duration = databaseWaitLimit,
        logger: Logger
    ) async throws -> [Statement.Row] where Statement.Row: Sendable {
        var left = limit
        if let loop = EventLoopTaskExecutor.current?.eventLoop, loop.inEventLoop, let lent = loopConnections?.lend(on: loop) {
            let started = ContinuousClock.now
            let deadline = loop.scheduleTask(in: TimeAmount(limit)) { lent.cutOff() }
            defer { deadline.cancel() }
            do {
                let rows = try await unbounded(statement, on: lent.connection, logger: logger)
                lent.giveBack(succeeded: true)
                Self.answeredOnALoop.increment()
                return rows
            } catch {
                lent.giveBack(succeeded: false)
                if lent.wasCutOff { throw DeadlineExceeded() }
                guard let failure = error as? PSQLError, failure.endedItsConnection else {
                    lent.retire()
                    throw error
                }
                // The connection ended under it: another statement's deadline cut it, or
                // PostgreSQL ended it. Every hot statement is a SELECT: asked again through the
                // pool, in the time left.
                left = limit - (ContinuousClock.now - started)
                guard left > .zero else { throw DeadlineExceeded() }
            }
        }
        Self.sentThroughThePool.increment()
        return try await withDeadline(left) { try await unbounded(statement, on: nil, logger: logger) }
    }

    /// On `connection`, or through the pool when nil.
    private func unbounded<Statement: PostgresPreparedStatement>(
        _ statement: Statement,
        on connection: PostgresConnection?,
        logger: Logger
    ) async throws -> [Statement.Row] {
        var rows: [Statement.Row] = []
        // PostgresNIO does not tag a prepared statement's lines with the request; this line does.
        logger.trace("hot statement", metadata: ["sql.statement": "\(Statement.name)", "sql.prepared": "\(prepared)"])
        if prepared {
            let found = if let connection {
                try await connection.execute(statement, logger: logger)
            } else {
                try await client.execute(statement, logger: logger)
            }
            for try await row in found { rows.append(row) }
        } else {
            let query = PostgresQuery(unsafeSQL: Statement.sql, binds: try statement.makeBindings())
            let found = if let connection {
                try await connection.query(query, logger: logger)
            } else {
                try await client.query(query, logger: logger)
            }
            for try await row in found { rows.append(try statement.decodeRow(row)) }
        }
        return rows
    }
}

/// A statement that only reads, with no side effect (a plain SELECT: no `FOR UPDATE`, no function
/// that writes): `HotStatements` asks it again through the pool when its connection ends under it,
/// so asking twice must do no harm. Only such statements are hot statements.
protocol ReadOnlyStatement: PostgresPreparedStatement {}

/// A statement that finds its row by a token's SHA-256, its one parameter: a session, an API token,
/// a share link.
protocol LookupByTokenHash: ReadOnlyStatement {
    var tokenHash: [UInt8] { get }
}

extension LookupByTokenHash {
    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 1)
        bindings.append(ByteBuffer(bytes: tokenHash))
        return bindings
    }
}

extension PostgresRandomAccessRow {
    /// The column at `index` as `T` (concrete, inlined: no parameter-pack decoding).
    func column<T: PostgresDecodable>(_ index: Int, as type: T.Type = T.self) throws -> T {
        try self[index].decode(T.self, context: .default)
    }
}

/// A row's columns read in order, each as the type asked for: no random-access copy of the row
/// (`makeRandomAccess` copies every cell into an array first; that copy was an eighth of
/// decoding a page of photos).
struct ColumnReader {
    private var cells: PostgresRow.Iterator

    init(_ row: PostgresRow) {
        cells = row.makeIterator()
    }

    /// The next column as `T`; throws if the row has no more.
    mutating func next<T: PostgresDecodable>(_ type: T.Type = T.self) throws -> T {
        guard let cell = cells.next() else { throw ColumnsExhausted() }
        return try cell.decode(T.self, context: .default)
    }

    /// Steps over `count` columns.
    mutating func skip(_ count: Int) {
        for _ in 0..<count { _ = cells.next() }
    }

    struct ColumnsExhausted: Error {}
}
