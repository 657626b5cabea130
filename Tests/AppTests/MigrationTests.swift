@testable import App
@testable import SelfieCore
import Foundation
import Logging
import PostgresNIO
import HummingbirdTesting
import Testing

@Suite("Migrations")
struct MigrationTests {
    let files = try! Migrator.loadMigrations(from: "\(repositoryRoot)/migrations")

    /// An empty database (not cloned from the migrated template).
    func withEmptyDatabase(_ body: @Sendable (DatabaseURL) async throws -> Void) async throws {
        try await withFreshDatabase { template in
            let empty = template.with(database: template.database + "_empty")
            try await withDatabase(template) { client in
                do {
                    try await client.query("CREATE DATABASE \(unescaped: empty.database)")
                } catch let error as PSQLError {
                    throw TestSetupError("CREATE DATABASE failed: \(error.serverInfo?[.sqlState] ?? "") \(error.serverInfo?[.message] ?? String(reflecting: error))")
                }
            }
            do {
                try await body(empty)
            } catch {
                try? await TestDatabases.shared.dropDatabase(empty)
                throw error
            }
            // Shared drop: it waits out an autovacuum worker tidying the just-migrated database
            // (FORCE cannot end it: 42501), which failed this test once under load.
            try await TestDatabases.shared.dropDatabase(empty)
        }
    }

    @Test("apply in order on an empty database; a second run is a no-op")
    func appliesThenNoOp() async throws {
        let files = self.files
        try await withEmptyDatabase { url in
            try await withDatabase(url) { client in
                let migrator = Migrator(client: client, migrations: files, logger: testLogger)
                #expect(try await migrator.pending().map(\.version) == files.map(\.version))
                let first = try await migrator.migrate()
                #expect(first.map(\.version) == files.map(\.version))
                let second = try await migrator.migrate()
                #expect(second.isEmpty)
                #expect(try await migrator.pending().isEmpty)

                var recorded: [(Int, String, String)] = []
                for try await row in try await client.query("SELECT version, name, checksum FROM schema_migrations ORDER BY version")
                    .decode((Int, String, String).self)
                {
                    recorded.append(row)
                }
                #expect(recorded.map(\.0) == files.map(\.version))
                #expect(recorded.map(\.2) == files.map(\.checksum))
                // the schema is really there
                let tables = try await client.query("SELECT to_regclass('users') IS NOT NULL AND to_regclass('web_sessions') IS NOT NULL")
                    .collect().first?.decode(Bool.self)
                #expect(tables == true)
            }
        }
    }

    @Test("a changed applied migration is refused")
    func changedMigrationRefused() async throws {
        let files = self.files
        try await withEmptyDatabase { url in
            try await withDatabase(url) { client in
                try await Migrator(client: client, migrations: files, logger: testLogger).migrate()
                var edited = files
                edited[0] = Migration(version: files[0].version, name: files[0].name, sql: files[0].sql + "\n-- edited\n")
                let migrator = Migrator(client: client, migrations: edited, logger: testLogger)
                await #expect(throws: MigrationError.checksumMismatch(String(format: "%04d_%@", files[0].version, files[0].name))) {
                    try await migrator.migrate()
                }
                await #expect(throws: MigrationError.self) { try await migrator.pending() }
            }
        }
    }

    @Test("a database newer than the binary (a migration it does not know) is refused, and nothing is applied")
    func newerDatabaseRefused() async throws {
        let files = self.files
        try await withEmptyDatabase { url in
            try await withDatabase(url) { client in
                // An older build: it knows every migration but the last one the database has.
                let newer = Migrator(client: client, migrations: files, logger: testLogger)
                try await newer.migrate()
                let older = Migrator(client: client, migrations: Array(files.dropLast()), logger: testLogger)
                await #expect(throws: MigrationError.unknownAppliedVersion(files.last!.version)) { try await older.pending() }
                await #expect(throws: MigrationError.unknownAppliedVersion(files.last!.version)) { try await older.migrate() }
                #expect(MigrationError.unknownAppliedVersion(17).description.contains("the database is newer than this build"))
            }
        }
    }

    @Test("a database a newer build migrated with additive migrations only: this build runs on it (a rolling upgrade); one that is not additive stops it")
    func newerAdditiveDatabaseRuns() async throws {
        let files = self.files
        let additive = Migration(
            version: 9_000, name: "future_note",
            sql: "-- additive: a nullable column this build never reads\nALTER TABLE photos ADD COLUMN future_note text;\n"
        )
        let breaking = Migration(version: 9_001, name: "future_rename", sql: "ALTER TABLE photos RENAME COLUMN future_note TO note;\n")
        #expect(additive.isAdditive && !breaking.isAdditive)
        try await withEmptyDatabase { url in
            try await withDatabase(url) { client in
                let current = Migrator(client: client, migrations: files, logger: testLogger)
                try await Migrator(client: client, migrations: files + [additive], logger: testLogger).migrate()
                #expect(try await current.status() == SchemaStatus(pending: [], newerAdditive: [9_000]))
                #expect(try await current.pending().isEmpty)
                #expect(try await current.migrate().isEmpty, "nothing to apply, nothing refused")
                let recorded = try await client.query("SELECT additive FROM schema_migrations WHERE version IN (\(files.last!.version), 9000) ORDER BY version")
                    .collect().map { try $0.decode(Bool.self) }
                #expect(recorded == [files.last!.isAdditive, true])

                try await Migrator(client: client, migrations: files + [additive, breaking], logger: testLogger).migrate()
                await #expect(throws: MigrationError.unknownAppliedVersion(9_001)) { try await current.pending() }
                await #expect(throws: MigrationError.unknownAppliedVersion(9_001)) { try await current.migrate() }
            }
        }
    }

    @Test("a migrations table made before the additive column: read as not additive, the column added by the next migrate")
    func tableBeforeTheAdditiveColumn() async throws {
        let files = self.files
        try await withEmptyDatabase { url in
            try await withDatabase(url) { client in
                let older = Migrator(client: client, migrations: Array(files.dropLast()), logger: testLogger)
                try await Migrator(client: client, migrations: files, logger: testLogger).migrate()
                try await client.query("ALTER TABLE schema_migrations DROP COLUMN additive")
                await #expect(throws: MigrationError.unknownAppliedVersion(files.last!.version)) { try await older.pending() }
                let current = Migrator(client: client, migrations: files, logger: testLogger)
                #expect(try await current.migrate().isEmpty)
                let column = try await client.query("SELECT count(*)::int FROM information_schema.columns WHERE table_name = 'schema_migrations' AND column_name = 'additive'")
                    .collect().first?.decode(Int.self)
                #expect(column == 1)
            }
        }
    }

    @Test("a failing migration rolls back whole and is not recorded")
    func failingMigrationRollsBack() async throws {
        let files = self.files
        try await withEmptyDatabase { url in
            try await withDatabase(url) { client in
                let broken = Migration(version: 9999, name: "broken", sql: "CREATE TABLE half_done (id int);\nSELECT * FROM no_such_table;")
                let migrator = Migrator(client: client, migrations: files + [broken], logger: testLogger)
                await #expect(throws: MigrationError.failed("9999_broken", reason: #"relation "no_such_table" does not exist"#)) {
                    try await migrator.migrate()
                }
                let halfDone = try await client.query("SELECT to_regclass('half_done') IS NULL").collect().first?.decode(Bool.self)
                #expect(halfDone == true)
                #expect(try await migrator.pending().map(\.version) == [9999])
            }
        }
    }

    @Test("concurrent migrators apply each migration once (advisory lock)")
    func concurrentMigrators() async throws {
        let files = self.files
        try await withEmptyDatabase { url in
            try await withDatabase(url) { client in
                let applied = try await withThrowingTaskGroup(of: Int.self) { group in
                    for _ in 0..<3 {
                        group.addTask { try await Migrator(client: client, migrations: files, logger: testLogger).migrate().count }
                    }
                    return try await group.reduce(0, +)
                }
                #expect(applied == files.count)
            }
        }
    }

    @Test("serve refuses to start with pending migrations; with --migrate it applies them and serves")
    func serveRefusesPending() async throws {
        let labels = files.map(\.label)
        try await withEmptyDatabase { url in
            let config = try AppConfiguration.testing(database: url)
            // Refused before any service starts (so nothing is left running to hang the process).
            await #expect(throws: MigrationError.pending(labels)) {
                _ = try await buildApplication(config, paths: ResourcePaths(root: repositoryRoot), logger: testLogger)
            }
            let migrating = try await buildApplication(
                config,
                paths: ResourcePaths(root: repositoryRoot),
                migrations: .apply,
                logger: testLogger
            )
            try await migrating.test(.live) { client in
                let response = try await Browser(client: client).signUp(email: uniqueEmail())
                #expect(response.status == .seeOther)
            }
            let pending = try await withDatabase(url) { client in
                try await Migrator(client: client, migrations: try Migrator.loadMigrations(from: "\(repositoryRoot)/migrations"), logger: testLogger).pending()
            }
            #expect(pending.isEmpty)
        }
    }

    @Test("migration files are named NNNN_description.sql and numbered without gaps")
    func fileNames() {
        #expect(files.map(\.version) == Array(1...files.count))
    }

    @Test("SQL scripts split at top-level semicolons only")
    func splitter() {
        let script = """
            -- comment; not a split
            CREATE TABLE a (note text DEFAULT 'x;y');
            /* block; comment */ INSERT INTO a VALUES ('it''s; fine');
            CREATE FUNCTION f() RETURNS int AS $body$ BEGIN RETURN 1; END; $body$ LANGUAGE plpgsql;
            SELECT "odd;name" FROM a WHERE note = $$;$$
            """
        let statements = SQLScript.statements(in: script)
        #expect(statements.count == 4)
        #expect(statements[1].hasSuffix("VALUES ('it''s; fine')"))
        #expect(statements[2].contains("RETURN 1; END;"))
        #expect(statements[3].hasSuffix("$$;$$"))
    }
}
