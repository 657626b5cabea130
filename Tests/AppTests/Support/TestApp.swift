import App
@testable import SelfieCore
import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import PostgresNIO

/// A running Selfie on a real loopback port, backed by its own fresh database.
struct TestApp {
    let client: any TestClientProtocol
    let database: DatabaseURL
    let config: AppConfiguration
    /// The same store the server uses, for checking what is (not) in it.
    let blobs: any BlobStore

    /// A new browser (own cookie jar) talking to this server.
    func browser() -> Browser { Browser(client: client) }

    /// Runs `body` with a client to this test's database.
    func db<T: Sendable>(_ body: @Sendable (PostgresClient) async throws -> T) async throws -> T {
        try await withDatabase(database, body)
    }

    /// How many statements in this test's database wait for a lock.
    static let waitingForALock: PostgresQuery =
        "SELECT count(*)::int FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'"

    /// Waits (up to 10 s) until `count` statements in this test's database wait for a lock: the
    /// requests a racing test sent have reached what the test holds, rather than being merely on their way.
    static func untilSomeoneWaitsForALock(_ client: PostgresClient, count: Int = 1) async throws {
        for _ in 0..<200 {
            let waiting = try await client.query(waitingForALock, logger: testLogger).collect().first?.decode(Int.self) ?? 0
            if waiting >= count { return }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw TestSetupError("fewer than \(count) statement(s) came to wait for the lock the test holds")
    }

    /// Runs `requests` while `lock` (run in a transaction: a `SELECT … FOR UPDATE`, a `LOCK TABLE`)
    /// is held; once `count` statements wait for a lock, runs `meanwhile` in the holding transaction
    /// (what the other side commits first), then lets go. Their answers.
    func holding<T: Sendable>(
        _ lock: PostgresQuery, untilWaiting count: Int,
        meanwhile: @escaping @Sendable (PostgresConnection) async throws -> Void = { _ in },
        while requests: @escaping @Sendable () async throws -> T
    ) async throws -> T {
        let sent = try await db { client in
            try await client.transaction(logger: testLogger) { connection in
                try await connection.query(lock, logger: testLogger)
                let sent = Task { try await requests() }
                do {
                    try await Self.untilSomeoneWaitsForALock(client, count: count)
                    try await meanwhile(connection)
                } catch {
                    sent.cancel()
                    throw error
                }
                return sent
            }
        }
        return try await sent.value
    }

    /// Sends `request` while the user's row is held (`FOR UPDATE`, as a remedy or an admin's act
    /// holds it); once the request waits for that row, runs `meanwhile` in the holding transaction,
    /// then lets go. The request's answer.
    func racing<T: Sendable>(
        _ request: @escaping @Sendable () async throws -> T,
        holdingUser userID: Int64,
        meanwhile: @escaping @Sendable (PostgresConnection) async throws -> Void
    ) async throws -> T {
        try await holding("SELECT id FROM users WHERE id = \(userID) FOR UPDATE", untilWaiting: 1, meanwhile: meanwhile, while: request)
    }

    /// The first column of the first row of `query`, decoded as `T`.
    func scalar<T: PostgresDecodable & Sendable>(_ query: PostgresQuery, as type: T.Type = T.self) async throws -> T {
        try await db { client in
            for try await value in try await client.query(query).decode(T.self) { return value }
            throw TestSetupError("query returned no rows: \(query.sql)")
        }
    }
}

extension AppConfiguration {
    /// A valid configuration for tests: secrets are fixed test values, the port is chosen by the OS.
    /// bcrypt runs at cost 4 here so that a hundred tests in parallel do not queue for seconds
    /// behind each other's hashing; the production cost (12) is asserted by its own tests.
    static func testing(database: DatabaseURL) throws -> AppConfiguration {
        var config = try AppConfiguration.load(from: [
            "HOST": "127.0.0.1",
            "PORT": "0",
            "PUBLIC_URL": "http://localhost",
            "SECRET_KEY": "test-secret-key-that-is-long-enough-0123456789",
            "DATABASE_URL": "postgres://unused@localhost/unused",
            "API_AUTH_NAME": "test-app",
            "API_AUTH_PASSWORD": "test-app-password",
            "LOG_LEVEL": "warning",
        ]).with(database: database).with(blobStore: .filesystem(directory: temporaryBlobDirectory()))
        config.bcryptCost = 4
        config.protection = .off  // the tests that check lockout and limits turn them on
        config.trashDays = 0  // deleting deletes at once; the trash's tests turn it on
        // Many tests change rows behind the server's back (age a sign-in, expire a token) and ask
        // again at once, before an announcement could arrive; the cache's own tests turn it on.
        config.accessCacheLifetime = .zero
        return config
    }

    func with(blobStore: BlobStoreConfiguration) -> AppConfiguration {
        var copy = self
        copy.blobStore = blobStore
        return copy
    }

    func with(database: DatabaseURL) -> AppConfiguration {
        var copy = self
        copy.database = database
        // A hundred tests run at once against one server with max_connections = 100.
        copy.database.maximumConnections = 3
        return copy
    }
}

/// A bound for what would otherwise wait for ever: wall time, so generous that a machine whose
/// two shared threads are held by other tests' CPU-bound work (QR codes, a CRC of 64 MiB, image
/// decoding) for half a minute still passes.
let longEnough: Duration = .seconds(120)

let testLogger: Logger = {
    var logger = Logger(label: "selfie.tests")
    logger.logLevel = .warning
    return logger
}()

/// Boots the whole application (`buildApplication`) on a fresh database and drives it over HTTP.
func withTestApp<T: Sendable>(
    configure: @Sendable (inout AppConfiguration) throws -> Void = { _ in },
    draining: Draining = Draining(),
    logger: Logger = testLogger,
    _ body: @escaping @Sendable (TestApp) async throws -> T
) async throws -> T {
    try await withFreshDatabase { database in
        var settings = try AppConfiguration.testing(database: database)
        try configure(&settings)
        let config = settings
        let app = try await buildApplication(config, paths: ResourcePaths(root: repositoryRoot), draining: draining, logger: logger)
        defer {
            if case .filesystem(let directory) = config.blobStore { try? FileManager.default.removeItem(atPath: directory) }
        }
        let blobs = try makeBlobStore(config, logger: testLogger)
        let result = try await ShutdownLimit.bounding { finished in
            try await app.test(.live) { client in
                StuckTestWatch.enter("running its body")
                let result = try await body(TestApp(client: client, database: database, config: config, blobs: blobs))
                StuckTestWatch.enter("shutting its app down")
                finished(result)
                return result
            }
        }
        StuckTestWatch.enter("leaving its app")
        return result
    }
}

/// A fresh folder for one test's filesystem blob store.
func temporaryBlobDirectory() -> String {
    "\(NSTemporaryDirectory())selfie-tests/\(UUID().uuidString)"
}
