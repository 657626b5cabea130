import App
@testable import SelfieCore
import Foundation
import Logging
import PostgresNIO

/// One fresh PostgreSQL database per test, cloned from a template that is migrated once per
/// test run. Tests therefore run in parallel and never see each other's rows.
///
/// Names carry the test process's pid (`selfie_t<pid>_…`), so two test runs against one server
/// (two checkouts, CI beside a developer) leave each other alone; leftovers of runs whose process
/// is gone are dropped at start.
///
/// The server and credentials come from `TEST_DATABASE_URL` (a role with CREATEDB; `make test`
/// writes it to `.env`), falling back to `DATABASE_URL`.
actor TestDatabases {
    static let shared = TestDatabases()
    static let prefix = "selfie_t\(getpid())_"
    static let templateName = prefix + "template"

    private var adminClient: PostgresClient?
    private var template: Task<Void, any Error>?
    let logger: Logger = {
        var logger = Logger(label: "tests")
        logger.logLevel = .warning
        return logger
    }()

    /// The server's maintenance connection settings (from the environment or `.env`).
    nonisolated static func serverURL() throws -> DatabaseURL {
        let environment = DotEnvFile.environment(overlaying: "\(repositoryRoot)/.env")
        guard let text = environment["TEST_DATABASE_URL"] ?? environment["DATABASE_URL"] else {
            throw TestSetupError(
                "TEST_DATABASE_URL is not set: run the tests with `make test`, which starts PostgreSQL and writes it to .env"
            )
        }
        return try DatabaseURL(text)
    }

    /// Creates a new database from the migrated template and returns its URL.
    func makeDatabase() async throws -> DatabaseURL {
        try await prepareTemplate()
        let name = Self.prefix + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased().prefix(16)
        // CREATE DATABASE … TEMPLATE refuses while anything else touches the template (55006), and
        // concurrent copies can collide on it: try again briefly rather than fail the test.
        var attempt = 0
        while true {
            do {
                try await admin().query("CREATE DATABASE \(unescaped: name) TEMPLATE \(unescaped: Self.templateName)", logger: logger)
                return try Self.serverURL().with(database: name)
            } catch let error as PSQLError where attempt < 10 {
                attempt += 1
                FileHandle.standardError.write(Data("creating \(name) failed (attempt \(attempt)): \(error.details)\n".utf8))
                try await Task.sleep(for: .milliseconds(200 * attempt))
            }
        }
    }

    func dropDatabase(_ url: DatabaseURL) async throws {
        guard url.database.hasPrefix(Self.prefix) else { return }
        try await drop(url.database)
    }

    private func drop(_ name: String) async throws {
        // FORCE cannot end an autovacuum worker (it has no role our role is a member of, 42501)
        // that happens to be tidying the database: it finishes, so try again — for up to 30 s,
        // since analysing a freshly migrated database on a loaded machine took longer than 5.
        var attempt = 0
        while true {
            do {
                try await admin().query("DROP DATABASE IF EXISTS \(unescaped: name) WITH (FORCE)", logger: logger)
                return
            } catch let error as PSQLError where error.serverInfo?[.sqlState] == "42501" && attempt < 120 {
                attempt += 1
                try await Task.sleep(for: .milliseconds(250))
            }
        }
    }

    private func prepareTemplate() async throws {
        if template == nil {
            template = Task { try await self.buildTemplate() }
        }
        try await template!.value
    }

    /// Drops what finished runs left behind and migrates a new template database.
    private func buildTemplate() async throws {
        let admin = try admin()
        var leftovers: [String] = []
        for try await name in try await admin.query(
            "SELECT datname FROM pg_database WHERE datname LIKE 'selfie\\_t%\\_%'",
            logger: logger
        ).decode(String.self) {
            let pid = name.dropFirst("selfie_t".count).prefix(while: \.isNumber)
            if let pid = Int32(pid), pid == getpid() || kill(pid, 0) != 0 { leftovers.append(name) }
        }
        // A leftover that cannot be dropped now is left for the next run: it is not this run's.
        // (An autovacuum worker analysing a finished run's freshly migrated template refused the
        // drop once in 25 runs, and the whole run failed on it.)
        for name in leftovers {
            do {
                try await drop(name)
            } catch let error as PSQLError {
                FileHandle.standardError.write(Data("leaving \(name) for the next run: \(error.details)\n".utf8))
            }
        }
        try await admin.query("CREATE DATABASE \(unescaped: Self.templateName)", logger: logger)
        let migrations = try Migrator.loadMigrations(from: "\(repositoryRoot)/migrations")
        let logger = self.logger
        try await PostgresClient.withClient(Self.serverURL().with(database: Self.templateName), logger: logger) {
            client in
            try await Migrator(client: client, migrations: migrations, logger: logger).migrate()
        }
    }

    /// A long-lived client to the maintenance database, for CREATE/DROP DATABASE.
    private func admin() throws -> PostgresClient {
        if let adminClient { return adminClient }
        let client = PostgresClient(configuration: try Self.serverURL().clientConfiguration, backgroundLogger: logger)
        Task.detached { await client.run() }
        adminClient = client
        return client
    }
}

/// The repository checkout, found from this file's path (Tests/AppTests/Support/…).
let repositoryRoot: String = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .path

extension PSQLError {
    /// What PostgreSQL said and to which statement: PSQLError hides its details from
    /// `description`, and a failing test should show them.
    var details: String {
        "\(serverInfo?[.sqlState] ?? "") \(serverInfo?[.message] ?? "") in \(query?.sql ?? "?") (\(code))"
    }
}

struct TestSetupError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// How many tests hold a database at once. Each test's server pools up to 3 connections and its
/// checks open more; PostgreSQL allows 100 in all. Swift Testing starts every test at once, so
/// the rest wait for a slot here rather than be refused by the server ("too many clients").
let databaseSlots = TestSlots(count: 18)

/// At most `count` slots held at once; the others wait in order.
actor TestSlots {
    let count: Int
    private var free: Int
    private var waiting: [(slots: Int, continuation: CheckedContinuation<Void, Never>)] = []

    init(count: Int) {
        self.count = count
        free = count
    }

    func acquire(_ slots: Int = 1) async {
        if waiting.isEmpty, free >= slots {
            free -= slots
            return
        }
        await withCheckedContinuation { waiting.append((slots, $0)) }
    }

    func release(_ slots: Int = 1) {
        free += slots
        while let first = waiting.first, free >= first.slots {
            free -= first.slots
            waiting.removeFirst()
            first.continuation.resume()
        }
    }
}

/// Set while a test holds every slot (its own databases then take none).
enum SlotHolding {
    @TaskLocal static var holdsAll = false
}

/// Runs `body` while no other test holds a database: for the few tests that measure a delay in
/// milliseconds, which a hundred busy neighbours on two cores would stretch.
func withDatabasesToItself<T: Sendable>(_ body: () async throws -> T) async throws -> T {
    let all = databaseSlots.count
    await databaseSlots.acquire(all)
    do {
        let result = try await SlotHolding.$holdsAll.withValue(true) { try await body() }
        await databaseSlots.release(all)
        return result
    } catch {
        await databaseSlots.release(all)
        throw error
    }
}

/// Runs `body` with a fresh migrated database, dropped afterwards whatever happens.
func withFreshDatabase<T: Sendable>(_ body: (DatabaseURL) async throws -> T) async throws -> T {
    try await StuckTestWatch.watching {
        if SlotHolding.holdsAll { return try await withFreshDatabaseHeld(body) }
        await databaseSlots.acquire()
        do {
            let result = try await withFreshDatabaseHeld(body)
            await databaseSlots.release()
            return result
        } catch {
            await databaseSlots.release()
            throw error
        }
    }
}

private func withFreshDatabaseHeld<T: Sendable>(_ body: (DatabaseURL) async throws -> T) async throws -> T {
    StuckTestWatch.enter("cloning its database")
    let url: DatabaseURL
    do {
        url = try await TestDatabases.shared.makeDatabase()
    } catch let error as PSQLError {
        throw TestSetupError("PostgreSQL, making the test's database: \(error.details)")
    }
    do {
        StuckTestWatch.enter("running")
        let result = try await body(url)
        StuckTestWatch.enter("dropping its database")
        try await TestDatabases.shared.dropDatabase(url)
        return result
    } catch let error as PSQLError {
        try? await TestDatabases.shared.dropDatabase(url)
        throw TestSetupError("PostgreSQL: \(error.details)")
    } catch {
        try? await TestDatabases.shared.dropDatabase(url)
        throw error
    }
}

/// Runs one query-using closure against `url` with a short-lived client (for test assertions).
@discardableResult
func withDatabase<T: Sendable>(_ url: DatabaseURL, _ body: @Sendable (PostgresClient) async throws -> T) async throws -> T {
    var logger = Logger(label: "tests.db")
    logger.logLevel = .warning
    return try await PostgresClient.withClient(url, logger: logger, body)
}
