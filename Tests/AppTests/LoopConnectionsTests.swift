@testable import App
@testable import SelfieCore
import Foundation
import HTTPTypes
import NIOCore
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

    /// A pool size that gives each of the server's loops two connections of its own.
    static let twoPerLoop = 4 * NIOSingletons.groupLoopCountSuggestion

    @Test("the pool and the loops share DATABASE_POOL_SIZE: half each when every loop gets one, else the pool keeps them all")
    func sharing() throws {
        var database = try DatabaseURL("postgres://selfie:pw@127.0.0.1/selfie")
        for (size, loops, onLoops) in [(20, 2, 10), (21, 4, 10), (20, 16, 0), (3, 2, 0), (1, 1, 0), (8, 4, 4)] {
            database.maximumConnections = size
            #expect(database.loopConnectionCount(loops: loops) == onLoops, "\(size) on \(loops) loops")
            #expect(database.poolConfiguration(leaving: onLoops).options.maximumConnections == size - onLoops, "\(size)")
        }
    }

    @Test("photo lists asked many at once, on as many connections, are read on the loops' own connections, no more of them than half the pool size")
    func manyAtOnce() async throws {
        try await withTestApp(configure: { $0.database.maximumConnections = Self.twoPerLoop }) { app in
            let token = try await app.api.signedInUser(email: uniqueEmail("loops"))
            try await Self.untilALoopConnectionIsOpen(app, token: token)
            // Sixteen HTTP connections of their own (the test client sends one request at a
            // time), ten rounds.
            let port = try #require(app.client.port)
            var statuses: [Int] = []
            for _ in 0..<10 {
                let sent = (0..<16).map { _ in app.api.request("GET", "/api/get_photos", authorization: "Token token=\(token)") }
                statuses += try await AtOnce.send(sent, port: port).map(\.status)
            }
            #expect(statuses.count == 160 && statuses.allSatisfy { $0 == 200 })
            let open = try await Self.connections(app, named: DatabaseURL.loopApplicationName)
            #expect(open >= 2 && open <= Self.twoPerLoop / 2, "\(open) connections of the loops")
            // What they were last asked: the photo list (or the token's lookup).
            let listing = try await Self.connections(app, named: DatabaseURL.loopApplicationName, extra: "query LIKE '%FROM photos p%'")
            #expect(listing >= 1)
        }
    }

    @Test("the metrics say where the hot statements went (a loop's connection or the pool) and how many connections the loops have open")
    func counted() async throws {
        let port = try ObservabilityTests.freePort()
        try await withTestApp(configure: { $0.database.maximumConnections = Self.twoPerLoop; $0.metricsPort = port }) { app in
            let before = try await ObservabilityTests.scrape(port: port)
            let token = try await app.api.signedInUser(email: uniqueEmail("counted"))
            // The first statement on a loop goes through the pool (none of its own is open yet).
            try await Self.untilALoopConnectionIsOpen(app, token: token)
            for _ in 0..<10 { #expect(try await app.api.getPhotos(token: token).status == .ok) }
            let after = try await ObservabilityTests.scrape(port: port)
            func sent(via: String) -> Double {
                let series = "selfie_db_hot_statements_total{via=\"\(via)\"}"
                return ObservabilityTests.total(series, in: after) - ObservabilityTests.total(series, in: before)
            }
            // Each photo list two statements (the token, the photos: the tests cache no lookups),
            // on a loop's connection when its loop has one open, else through the pool. (The
            // process's one registry also counts this suite's other tests running meanwhile: with
            // either count left out, these fail all the same.)
            #expect(sent(via: "loop") >= 1 && sent(via: "pool") >= 1 && sent(via: "loop") + sent(via: "pool") >= 20, "\(sent(via: "loop")) on loops, \(sent(via: "pool")) through the pool")
            // The number itself is `openConnections`, tested below; it is shown.
            #expect(after.contains("selfie_db_loop_open_connections "))
        }
    }

    @Test("the count of the loops' open connections follows them: opened, closed after an idle spell over a network, closed at shutdown")
    func openCount() async throws {
        try await withFreshDatabase { database in
            var database = database
            database.keepAlive = .seconds(1)  // as over a network: idle connections are closed
            let loop = NIOSingletons.posixEventLoopGroup.next()
            let connections = try LoopConnections(database: database, loops: [loop], count: 1, logger: testLogger)
            /// The loops' backends PostgreSQL has for this database.
            func backends() async throws -> Int {
                try await withDatabase(database) { client in
                    try await client.query(
                        "SELECT count(*)::int FROM pg_stat_activity WHERE datname = current_database() AND application_name = \(DatabaseURL.loopApplicationName)",
                        logger: testLogger
                    ).collect().first?.decode(Int.self) ?? -1
                }
            }
            func until(_ what: String, _ condition: () async throws -> Bool) async throws {
                for _ in 0..<100 {
                    if try await condition() { return }
                    try await Task.sleep(for: .milliseconds(50))
                }
                Issue.record("not so after 5 s: \(what)")
            }

            #expect(connections.lend(on: loop) == nil)  // none open: the pool's turn, and one opens
            try await until("one lent") {
                // (On a machine too busy to ask within the idle limit, the next lend opens anew.)
                guard let lent = connections.lend(on: loop) else { return false }
                lent.giveBack(succeeded: true)
                return true
            }
            try await until("one open") { try await backends() == 1 && connections.openConnections == 1 }

            // Idle past the limit, twice: the next lend closes it and opens another.
            for _ in 0..<2 {
                try await Task.sleep(for: .milliseconds(1300))
                #expect(connections.lend(on: loop) == nil)
                try await until("the idle one closed, another open") { try await backends() == 1 && connections.openConnections == 1 }
            }

            await connections.closeAll()
            #expect(connections.openConnections == 0)
            try await until("none left") { try await backends() == 0 }
        }
    }

    /// A statement that waits past its deadline (the photos table locked by another transaction)
    /// is answered 503 within the limit, on the loop's connection (closed by a timer) as through
    /// the pool (a task cancelled); once the lock is gone the photos are answered again. A loop's
    /// connection cut that way takes its backend with it while the lock is still held: a lock
    /// held for minutes does not keep a backend per cut statement waiting for it. (The pool's
    /// connection is not closed: its backend waits on until the lock goes, lent to no one.)
    @Test(
        "a photo list held by a lock past its deadline is answered 503 in time, on a loop's connection as through the pool; a loop's cut connection leaves no backend waiting",
        arguments: [(LoopConnectionsTests.twoPerLoop, DatabaseURL.loopApplicationName), (1, DatabaseURL.applicationName)]
    )
    func heldPastItsDeadline(poolSize: Int, waitingConnection: String) async throws {
        try await withTestApp(configure: { $0.database.maximumConnections = poolSize }) { app in
            let token = try await app.api.signedInUser(email: uniqueEmail("held"))
            #expect(try await app.api.getPhotos(token: token).status == .ok)  // answered before the lock
            if poolSize > 1 { try await Self.untilALoopConnectionIsOpen(app, token: token) }

            let answered = Mutex(false)
            let waiting = Mutex("")
            let stillWaiting = Mutex(-1)
            let cutsItsBackend = waitingConnection == DatabaseURL.loopApplicationName
            let (status, waited) = try await app.holding("LOCK TABLE photos IN ACCESS EXCLUSIVE MODE", untilWaiting: 1, meanwhile: { connection in
                // Whose statement waits for the lock: a loop's connection or the pool's.
                let names = try await connection.query(
                    "SELECT coalesce(string_agg(application_name, ','), '') FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'",
                    logger: testLogger
                ).collect().first?.decode(String.self) ?? ""
                waiting.withLock { $0 = names }
                // The lock is held until the request is answered (or 20 s: a request held that
                // long fails below).
                let stop = ContinuousClock.now + .seconds(20)
                while !answered.withLock({ $0 }), ContinuousClock.now < stop { try await Task.sleep(for: .milliseconds(50)) }
                // Still holding the lock: how many backends wait for it a few seconds on.
                guard cutsItsBackend else { return }
                let giveUp = ContinuousClock.now + .seconds(8)
                var left = 0
                repeat {
                    left = try await connection.query(TestApp.waitingForALock, logger: testLogger).collect().first?.decode(Int.self) ?? -1
                    if left == 0 { break }
                    try await Task.sleep(for: .milliseconds(100))
                } while ContinuousClock.now < giveUp
                stillWaiting.withLock { $0 = left }
            }, while: {
                let started = ContinuousClock.now
                let status = try await app.api.getPhotos(token: token).status
                answered.withLock { $0 = true }
                return (status, ContinuousClock.now - started)
            })
            #expect(waiting.withLock { $0 } == waitingConnection)
            #expect(status == .serviceUnavailable)
            // The limit is 3 s; room for a loaded machine, far under the lock's 20 s.
            #expect(waited < .seconds(12), "answered after \(waited)")
            if cutsItsBackend {
                #expect(stillWaiting.withLock { $0 } == 0, "backends still waiting for the lock after the cut")
            }

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
        try await withTestApp(configure: { $0.database.maximumConnections = Self.twoPerLoop }) { app in
            let token = try await app.api.signedInUser(email: uniqueEmail("ended"))
            try await Self.untilALoopConnectionIsOpen(app, token: token)
            let ended = try await app.scalar(
                "SELECT count(pg_terminate_backend(pid))::int FROM pg_stat_activity WHERE datname = current_database() AND application_name = \(DatabaseURL.loopApplicationName)",
                as: Int.self
            )
            #expect(ended >= 1)
            // At once: a statement lent a connection that was just ended is asked again through
            // the pool (every request is answered).
            for _ in 0..<20 { #expect(try await app.api.getPhotos(token: token).status == .ok) }
            try await Self.untilALoopConnectionIsOpen(app, token: token)
        }
    }

    /// PostgreSQL ending a loop's connection while its statement runs answers that statement with
    /// an error (57P01, "terminating connection due to administrator command") rather than a
    /// closed connection: the statement is asked again through the pool all the same.
    @Test("a statement whose connection PostgreSQL ends under it is asked again through the pool, and the photos answered")
    func terminatedMidStatement() async throws {
        try await withTestApp(configure: { $0.database.maximumConnections = Self.twoPerLoop }) { app in
            let token = try await app.api.signedInUser(email: uniqueEmail("terminated"))
            try await Self.untilALoopConnectionIsOpen(app, token: token)
            let ended = Mutex(0)
            let status = try await app.holding("LOCK TABLE photos IN ACCESS EXCLUSIVE MODE", untilWaiting: 1, meanwhile: { connection in
                // The photo list waits for the lock on a loop's connection: end that backend,
                // then let the lock go.
                let count = try await connection.query(
                    "SELECT (count(*) FILTER (WHERE pg_terminate_backend(pid, 5000)))::int FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND application_name = \(DatabaseURL.loopApplicationName)",
                    logger: testLogger
                ).collect().first?.decode(Int.self) ?? 0
                ended.withLock { $0 = count }
            }, while: {
                try await app.api.getPhotos(token: token).status
            })
            #expect(ended.withLock { $0 } == 1)
            #expect(status == .ok)
        }
    }
}
