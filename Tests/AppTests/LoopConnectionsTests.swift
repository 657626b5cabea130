@testable import App
@testable import SelfieCore
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Synchronization
import Testing

/// The hot statements' own connections on the server's event loops (`LoopConnections`), and the
/// pool they fall back to.
@Suite("Hot statements on each event loop's own connections")
struct LoopConnectionsTests {
    /// How many connections of this test's database show `application_name`.
    static func connections(_ app: TestApp, named name: String, extra condition: String = "TRUE") async throws -> Int {
        try await app.scalar(
            "SELECT count(*)::int FROM pg_stat_activity WHERE datname = current_database() AND application_name = \(name) AND \(unescaped: condition)"
        )
    }

    /// Asks for the photos until a loop's connection of its own is open (the first request on a
    /// loop goes through the pool and opens one beside it).
    static func untilALoopConnectionIsOpen(_ app: TestApp, token: String) async throws {
        for _ in 0..<100 {
            #expect(try await app.api.getPhotos(token: token).status == .ok)
            if try await connections(app, named: DatabaseURL.loopApplicationName) > 0 { return }
            try await Task.sleep(for: .milliseconds(50))
        }
        throw TestSetupError("no connection of an event loop was opened")
    }

    @Test("the pool and the loops share DATABASE_POOL_SIZE: half each, none on the loops with a pool of one")
    func sharing() throws {
        var database = try DatabaseURL("postgres://selfie:pw@127.0.0.1/selfie")
        for (size, loops, pool) in [(20, 10, 10), (3, 1, 2), (1, 0, 1)] {
            database.maximumConnections = size
            #expect(database.loopConnectionCount == loops)
            #expect(database.poolConfiguration.options.maximumConnections == pool)
        }
    }

    @Test("photo lists asked many at once are read on the loops' own connections, no more of them than half the pool size")
    func manyAtOnce() async throws {
        try await withTestApp(configure: { $0.database.maximumConnections = 8 }) { app in
            let token = try await app.api.signedInUser(email: uniqueEmail("loops"))
            try await Self.untilALoopConnectionIsOpen(app, token: token)
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<16 {
                    group.addTask {
                        for _ in 0..<10 {
                            let status = try await app.api.getPhotos(token: token).status
                            #expect(status == .ok)
                        }
                    }
                }
                try await group.waitForAll()
            }
            let open = try await Self.connections(app, named: DatabaseURL.loopApplicationName)
            #expect(open >= 1 && open <= 4, "\(open) connections of the loops")
            // What they were last asked: the photo list (or the token's lookup).
            let listing = try await Self.connections(app, named: DatabaseURL.loopApplicationName, extra: "query LIKE '%FROM photos p%'")
            #expect(listing >= 1)
        }
    }

    /// A statement that waits past its deadline (the photos table locked by another transaction)
    /// is answered 503 within the limit, on the loop's connection (closed by a timer) as through
    /// the pool (a task cancelled); once the lock is gone the photos are answered again.
    @Test(
        "a photo list held by a lock past its deadline is answered 503 in time, on a loop's connection as through the pool",
        arguments: [(8, DatabaseURL.loopApplicationName), (1, DatabaseURL.applicationName)]
    )
    func heldPastItsDeadline(poolSize: Int, waitingConnection: String) async throws {
        try await withTestApp(configure: { $0.database.maximumConnections = poolSize }) { app in
            let token = try await app.api.signedInUser(email: uniqueEmail("held"))
            #expect(try await app.api.getPhotos(token: token).status == .ok)  // the token is cached now
            if poolSize > 1 { try await Self.untilALoopConnectionIsOpen(app, token: token) }

            let answered = Mutex(false)
            let (status, waited, waiting) = try await app.holding("LOCK TABLE photos IN ACCESS EXCLUSIVE MODE", untilWaiting: 1, meanwhile: { _ in
                // The lock is held until the request is answered (or 20 s: a request held that
                // long fails below).
                let stop = ContinuousClock.now + .seconds(20)
                while !answered.withLock({ $0 }), ContinuousClock.now < stop { try await Task.sleep(for: .milliseconds(50)) }
            }, while: {
                let started = ContinuousClock.now
                async let response = app.api.getPhotos(token: token)
                // Whose statement waits for the lock: a loop's connection or the pool's.
                var waiting = ""
                for _ in 0..<100 {
                    waiting = try await app.scalar(
                        "SELECT coalesce(string_agg(application_name, ','), '') FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'"
                    )
                    if !waiting.isEmpty { break }
                    try await Task.sleep(for: .milliseconds(50))
                }
                let status = try await response.status
                answered.withLock { $0 = true }
                return (status, ContinuousClock.now - started, waiting)
            })
            #expect(waiting == waitingConnection)
            #expect(status == .serviceUnavailable)
            // The limit is 3 s; room for a loaded machine, far under the lock's 20 s.
            #expect(waited < .seconds(12), "answered after \(waited)")

            let back = ContinuousClock.now
            var again = try await app.api.getPhotos(token: token).status
            while again != .ok, ContinuousClock.now - back < .seconds(10) {
                try await Task.sleep(for: .milliseconds(100))
                again = try await app.api.getPhotos(token: token).status
            }
            #expect(again == .ok, "the photos after the lock was let go")
        }
    }

    @Test("when PostgreSQL ends the loops' connections (a restart, an administrator), they are opened again and the photos answered")
    func endedByTheServer() async throws {
        try await withTestApp(configure: { $0.database.maximumConnections = 8 }) { app in
            let token = try await app.api.signedInUser(email: uniqueEmail("ended"))
            try await Self.untilALoopConnectionIsOpen(app, token: token)
            let ended = try await app.scalar(
                "SELECT count(pg_terminate_backend(pid))::int FROM pg_stat_activity WHERE datname = current_database() AND application_name = \(DatabaseURL.loopApplicationName)",
                as: Int.self
            )
            #expect(ended >= 1)
            for _ in 0..<100 where try await Self.connections(app, named: DatabaseURL.loopApplicationName) > 0 {
                try await Task.sleep(for: .milliseconds(20))
            }
            // The ended connections are dropped, not used: every request is answered.
            for _ in 0..<20 { #expect(try await app.api.getPhotos(token: token).status == .ok) }
            try await Self.untilALoopConnectionIsOpen(app, token: token)
        }
    }
}
