import Crypto
import Foundation
import Logging
import PostgresNIO

/// One `migrations/NNNN_description.sql` file.
public struct Migration: Sendable, Equatable {
    public let version: Int
    public let name: String
    public let sql: String
    /// SHA-256 of the file, hex; an applied migration whose file changed is refused.
    public let checksum: String
    /// Whether code from before this migration runs on the schema it makes (it only adds what
    /// older code never reads: a table, a nullable column, an index), as the file says with a
    /// line `-- additive: …`. An older instance then keeps serving beside a newer one after the
    /// newer one migrated (a rolling upgrade); any other migration stops it.
    public let isAdditive: Bool

    /// The line that marks a migration additive (the rest of the line says why).
    public static let additiveMarker = "-- additive:"

    public init(version: Int, name: String, sql: String) {
        self.version = version
        self.name = name
        self.sql = sql
        self.checksum = SHA256.hash(data: Data(sql.utf8)).hexString
        self.isAdditive = sql.split(whereSeparator: \.isNewline).contains { $0.hasPrefix(Self.additiveMarker) }
    }

    public var label: String { String(format: "%04d_%@", version, name) }
}

public enum MigrationError: Error, CustomStringConvertible, Equatable {
    case unreadableDirectory(String)
    case badFileName(String)
    case duplicateVersion(Int)
    case checksumMismatch(String)
    case unknownAppliedVersion(Int)
    case pending([String])
    case failed(String, reason: String)

    public var description: String {
        switch self {
        case .unreadableDirectory(let path):
            return "cannot read the migrations directory \(path)"
        case .badFileName(let name):
            return "migration file \(name) is not named NNNN_description.sql"
        case .duplicateVersion(let version):
            return "two migration files share version \(version)"
        case .checksumMismatch(let label):
            return "migration \(label) was changed after it was applied; add a new migration instead of editing it"
        case .unknownAppliedVersion(let version):
            return "the database has migration \(version) applied, which this Selfie does not know and which is not marked additive: "
                + "the database is newer than this build. "
                + "Run the Selfie that upgraded it, or restore the backup made before the upgrade (`selfie restore DIR`)."
        case .failed(let label, let reason):
            return "migration \(label) failed and was rolled back: \(reason)"
        case .pending(let labels):
            return "\(labels.count) pending migration(s): \(labels.joined(separator: ", ")). "
                + "Run `selfie migrate`, or start with `selfie serve --migrate`."
        }
    }
}

/// Where a database's schema stands for this build.
public struct SchemaStatus: Sendable, Equatable {
    /// This build's migrations the database has not had, in order.
    public let pending: [Migration]
    /// Applied migrations this build does not know, every one of them additive (a newer build
    /// migrated: this one runs on it). Empty unless a rolling upgrade is under way.
    public let newerAdditive: [Int]
}

/// Applies SQL migrations in order, each in its own transaction, under an advisory lock so that
/// several instances starting together migrate once. Applied files are tracked with a checksum,
/// and whether each is additive (`Migration.isAdditive`), which older builds read.
public struct Migrator: Sendable {
    /// Arbitrary constant naming Selfie's migration lock among the database's advisory locks.
    static let advisoryLockKey: Int64 = 0x5E1F_1E00
    let client: PostgresClient
    let migrations: [Migration]
    let logger: Logger

    public init(client: PostgresClient, migrations: [Migration], logger: Logger) {
        self.client = client
        self.migrations = migrations.sorted { $0.version < $1.version }
        self.logger = logger
    }

    /// Reads `NNNN_description.sql` files from `directory`.
    public static func loadMigrations(from directory: String) throws -> [Migration] {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else {
            throw MigrationError.unreadableDirectory(directory)
        }
        var migrations: [Migration] = []
        for fileName in names.sorted() where fileName.hasSuffix(".sql") {
            let stem = fileName.dropLast(4)
            guard let underscore = stem.firstIndex(of: "_"),
                let version = Int(stem[..<underscore]),
                stem.index(after: underscore) < stem.endIndex
            else {
                throw MigrationError.badFileName(fileName)
            }
            let sql = try String(contentsOfFile: "\(directory)/\(fileName)", encoding: .utf8)
            let migration = Migration(version: version, name: String(stem[stem.index(after: underscore)...]), sql: sql)
            if migrations.contains(where: { $0.version == version }) {
                throw MigrationError.duplicateVersion(version)
            }
            migrations.append(migration)
        }
        return migrations
    }

    /// Migrations not yet applied. Throws if an applied file was changed, or if the database has
    /// a migration this build does not know that is not additive.
    public func pending() async throws -> [Migration] {
        try await status().pending
    }

    /// The pending migrations and the newer additive ones; throws as `pending()`.
    public func status() async throws -> SchemaStatus {
        try await client.withConnection { connection in
            try await status(on: connection)
        }
    }

    /// Applies every pending migration; returns those it applied (empty when up to date).
    ///
    /// Each migration runs in its own transaction holding a transaction-scoped advisory lock, so
    /// instances starting together apply it once, and the lock can never outlive its transaction.
    @discardableResult
    public func migrate() async throws -> [Migration] {
        try await client.withConnection { connection in
            try await connection.transaction(logger: logger) { transaction in
                try await lockMigrations(on: transaction)
                try await transaction.query(
                    """
                    CREATE TABLE IF NOT EXISTS schema_migrations (
                        version integer PRIMARY KEY,
                        name text NOT NULL,
                        checksum text NOT NULL,
                        applied_at timestamptz NOT NULL DEFAULT now()
                    )
                    """,
                    logger: logger
                )
                // Builds before this column read only version and checksum: they are unaffected.
                try await transaction.query(
                    "ALTER TABLE schema_migrations ADD COLUMN IF NOT EXISTS additive boolean NOT NULL DEFAULT false",
                    logger: logger
                )
            }
            var applied: [Migration] = []
            for migration in try await status(on: connection).pending {
                do {
                    let ran = try await connection.transaction(logger: logger) { transaction in
                        try await lockMigrations(on: transaction)
                        // Another instance may have applied it while this one waited for the lock.
                        guard try await !isApplied(migration, on: transaction) else { return false }
                        logger.info("applying migration \(migration.label)")
                        for statement in SQLScript.statements(in: migration.sql) {
                            try await transaction.query(PostgresQuery(unsafeSQL: statement), logger: logger)
                        }
                        try await transaction.query(
                            """
                            INSERT INTO schema_migrations (version, name, checksum, additive)
                            VALUES (\(migration.version), \(migration.name), \(migration.checksum), \(migration.isAdditive))
                            """,
                            logger: logger
                        )
                        return true
                    }
                    if ran { applied.append(migration) }
                } catch let error as TransactionError {
                    let cause = error.closureError ?? error.beginError ?? error.commitError ?? error
                    let reason = (cause as? PSQLError)?.serverInfo?[.message] ?? String(describing: cause)
                    throw MigrationError.failed(migration.label, reason: reason)
                }
            }
            return applied
        }
    }

    /// Waits (at most two minutes) for the migration lock, released when the transaction ends.
    private func lockMigrations(on transaction: PostgresConnection) async throws {
        try await transaction.query("SET LOCAL lock_timeout = '120s'", logger: logger)
        try await transaction.query("SELECT pg_advisory_xact_lock(\(Self.advisoryLockKey))", logger: logger)
    }

    private func isApplied(_ migration: Migration, on connection: PostgresConnection) async throws -> Bool {
        try await connection.query(
            "SELECT count(*)::int FROM schema_migrations WHERE version = \(migration.version)",
            logger: logger
        ).collect().first?.decode(Int.self) == 1
    }

    private func status(on connection: PostgresConnection) async throws -> SchemaStatus {
        let tableExists = try await connection.query(
            "SELECT to_regclass('schema_migrations') IS NOT NULL",
            logger: logger
        ).collect().first?.decode(Bool.self) ?? false
        guard tableExists else { return SchemaStatus(pending: migrations, newerAdditive: []) }

        var applied: [Int: String] = [:]
        var newerAdditive: [Int] = []
        // `additive` read through the row's JSON: a table made before the column has none (false).
        for try await (version, checksum, additive) in try await connection.query(
            "SELECT version, checksum, coalesce((to_jsonb(m) ->> 'additive')::boolean, false) FROM schema_migrations m ORDER BY version",
            logger: logger
        ).decode((Int, String, Bool).self) {
            applied[version] = checksum
            guard let migration = migrations.first(where: { $0.version == version }) else {
                guard additive else { throw MigrationError.unknownAppliedVersion(version) }
                newerAdditive.append(version)
                continue
            }
            guard migration.checksum == checksum else {
                throw MigrationError.checksumMismatch(migration.label)
            }
        }
        return SchemaStatus(pending: migrations.filter { applied[$0.version] == nil }, newerAdditive: newerAdditive)
    }
}
