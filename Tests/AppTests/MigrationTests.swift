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

    /// What every database that applied them recorded (`schema_migrations.checksum`). A migration
    /// edited after it was applied makes every such database refuse to start (`checksumMismatch`):
    /// this happened three times by hand (comments included, the checksum is of the whole file).
    /// Change the schema with a new migration; append a new one's checksum here.
    static let appliedChecksums: [Int: String] = [
        1: "368487570f68553b8fd30cfe643c2f736fb332443a89efbd5a08e59cbe6641f2",
        2: "2464d93a9bd99cc40b5b5670fc2177f4228ffe332e483ef01c61b2c90deb52d0",
        3: "21c88c404548d471fcd6350439344e04a17a696653be79d72a0427b5c69cd953",
        4: "044916cf52b0229844c74f9358cbd1a208acb16c391ae51c6494fcad9a05967c",
        5: "49bf6d8be2335cf2fe7a089f7858ccc6cbed3dd1f2384a136e8b6de757914616",
        6: "db25e59d8626e2eb16cd10fb71b0f682220583714f274582fdf706ea3ae0d43c",
        7: "af58776946b01a5c50593e9e5898d4a2b3e9e13b94ed015de50f095c7c7f0f1b",
        8: "e99c12e4ece670942ed3508ae1f15fcb7dd537c49b33b7f98fe22b7184b9f14f",
        9: "6bc8af2cda70583b57141a300cd646dd7646e56c04a97c4729211403f335d461",
        10: "1a54f5f34afc84506416e53126f8660885b699554f9b78005212d5a27870ecc2",
        11: "53fe9f11593bf1561c6ce45ef149375410bff6b1123bae67a0904c497d1956f2",
        12: "5685cda4246f5c61a1718472da437092251ef649ca7d99beceaa01e9a447dcb8",
        13: "cc65ca87f581c92b24ef2083afb72edc53796a0bd62b82dfb1a7010c33c3ea73",
        14: "8a4b2a8f1a1a34bf56fe866caa804a11ee90ccdd45c976ac8c6cf9666753efc3",
        15: "20979e491154d102de0fe74040070946d6c2227d20c1cd62b4980702b66b5c25",
        16: "979ac199f0bcfa1ff43d0962318bb455e868cfdc6828b4f55124049398f66f7d",
        17: "05b24ee6745443c92d4d1b02c332490f4b5b17b09a1b32dfe23600bf154eee67",
        18: "39eac652fdfd829dafc6b4513ef3bb7ec6f816c4884bd8321ab1fe9b8e7d5c56",
        19: "e7f634b165d989ab6705f251732be4b8a436e9430790c2eb5ab9a458a9b8428c",
        20: "d836e240ff910fbd7d71aca22fffbb7ea469741679bf1aa3c21d414a5a980b64",
        21: "ca12bf31bfc57d88c6e5eba123743d5e5a207208249f38a612d5ab630ddbb7f5",
        22: "0b53f4509d4509511eeda6c04dafd6453fbbe453de7f3a30756cff3d086cd2d9",
        23: "c4a7fc1cf9fa66c2f686c09f1827a5eb995eb24b632a9c89898fc65f6e67c290",
        24: "58010a13db42a34448972fa6b97efb45ab5f68205abd64caf597cec28c9b435c",
        25: "bea118c63231b047d0c8adc1ad206bfea3eaca9b5ebe8fb8e9f49b944ee8c9fa",
    ]

    @Test("no applied migration is edited: each file's checksum is the one databases recorded when it was applied")
    func appliedMigrationsUnchanged() {
        for migration in files where migration.version <= Self.appliedChecksums.keys.max()! {
            #expect(migration.checksum == Self.appliedChecksums[migration.version], "\(migration.label) changed after it was applied")
        }
        #expect(Set(files.map(\.version)).isSuperset(of: Self.appliedChecksums.keys), "an applied migration's file is gone")
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
        // An older build: it knows every migration before the database's last one that is not
        // additive (the additive ones after it an older build may run beside).
        let unknown = try #require(files.last { !$0.isAdditive }).version
        let olderFiles = files.filter { $0.version < unknown }
        try await withEmptyDatabase { url in
            try await withDatabase(url) { client in
                let newer = Migrator(client: client, migrations: files, logger: testLogger)
                try await newer.migrate()
                let older = Migrator(client: client, migrations: olderFiles, logger: testLogger)
                await #expect(throws: MigrationError.unknownAppliedVersion(unknown)) { try await older.pending() }
                await #expect(throws: MigrationError.unknownAppliedVersion(unknown)) { try await older.migrate() }
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
