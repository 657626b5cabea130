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

    public init(version: Int, name: String, sql: String) {
        self.version = version
        self.name = name
        self.sql = sql
        self.checksum = SHA256.hash(data: Data(sql.utf8)).hexString
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
            return "the database has migration \(version) applied, which this Selfie does not know: the database is newer than this build. "
                + "Run the Selfie that upgraded it, or restore the backup made before the upgrade (`selfie restore DIR`)."
        case .failed(let label, let reason):
            return "migration \(label) failed and was rolled back: \(reason)"
        case .pending(let labels):
            return "\(labels.count) pending migration(s): \(labels.joined(separator: ", ")). "
                + "Run `selfie migrate`, or start with `selfie serve --migrate`."
        }
    }
}

/// Applies SQL migrations in order, each in its own transaction, under an advisory lock so that
/// several instances starting together migrate once. Applied files are tracked with a checksum.
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

    /// Migrations not yet applied. Throws if an applied file was changed.
    public func pending() async throws -> [Migration] {
        try await client.withConnection { connection in
            try await pending(on: connection)
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
            }
            var applied: [Migration] = []
            for migration in try await pending(on: connection) {
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
                            INSERT INTO schema_migrations (version, name, checksum)
                            VALUES (\(migration.version), \(migration.name), \(migration.checksum))
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

    private func pending(on connection: PostgresConnection) async throws -> [Migration] {
        let tableExists = try await connection.query(
            "SELECT to_regclass('schema_migrations') IS NOT NULL",
            logger: logger
        ).collect().first?.decode(Bool.self) ?? false
        guard tableExists else { return migrations }

        var applied: [Int: String] = [:]
        for try await (version, checksum) in try await connection.query(
            "SELECT version, checksum FROM schema_migrations",
            logger: logger
        ).decode((Int, String).self) {
            applied[version] = checksum
        }
        for (version, checksum) in applied {
            guard let migration = migrations.first(where: { $0.version == version }) else {
                throw MigrationError.unknownAppliedVersion(version)
            }
            guard migration.checksum == checksum else {
                throw MigrationError.checksumMismatch(migration.label)
            }
        }
        return migrations.filter { applied[$0.version] == nil }
    }
}
