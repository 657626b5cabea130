@testable import App
@testable import SelfieCore
import AsyncHTTPClient
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import PostgresNIO
import Synchronization
import Testing

/// Sessions and tokens kept in memory (`AccessCache`), and the announcements that keep every
/// instance's copy right (`AccessChangeListener`, `migrations/0019_access_changes.sql`).
@Suite("Sessions and tokens kept in memory")
struct AccessCacheTests {
    /// Two instances of Selfie on one database, each with the cache on, each hearing changes.
    struct TwoInstances {
        let a: TestApp
        let b: any TestClientProtocol
        let logsA: LogCapture
        let logsB: LogCapture
        var apiB: APIClient { APIClient(client: b) }
    }

    /// Alone (`withDatabasesToItself`): these tests time an announcement in milliseconds.
    func withTwoInstances(_ body: @escaping @Sendable (TwoInstances) async throws -> Void) async throws {
        let (logsA, logsB) = (LogCapture(), LogCapture())
        try await withDatabasesToItself { try await withTestApp(configure: { $0.accessCacheLifetime = .seconds(30) }, logger: logsA.logger(level: .info)) { a in
            let b = try await buildApplication(a.config, paths: ResourcePaths(root: repositoryRoot), logger: logsB.logger(level: .info))
            try await b.test(.live) { clientB in
                try await Self.waitForLine(Self.hearing, in: logsA)
                try await Self.waitForLine(Self.hearing, in: logsB)
                try await body(TwoInstances(a: a, b: clientB, logsA: logsA, logsB: logsB))
            }
        } }
    }

    static let hearing = "hearing access changes; sessions and tokens are kept in memory"

    /// Waits (20 s at most) until `logs` holds `count` lines containing `text`.
    static func waitForLine(_ text: String, count: Int = 1, in logs: LogCapture) async throws {
        let deadline = ContinuousClock.now + .seconds(20)
        while logs.all.filter({ $0.contains(text) }).count < count {
            guard ContinuousClock.now < deadline else { throw TestSetupError("no log line \"\(text)\" (×\(count)) within 20 s") }
            try await Task.sleep(for: .milliseconds(10))
        }
    }

    /// Asks `request` until it answers `status`; how long that took from the first ask.
    static func timeUntil(_ status: HTTPResponse.Status, _ request: () async throws -> TestResponse) async throws -> Duration {
        let started = ContinuousClock.now
        while try await request().status != status {
            guard ContinuousClock.now - started < .seconds(5) else { throw TestSetupError("still not \(status) after 5 s") }
        }
        return ContinuousClock.now - started
    }

    /// Changes rows with the announcing triggers off: a change no instance hears of.
    static func silently(_ app: TestApp, _ statement: PostgresQuery) async throws {
        try await app.db { client in
            try await client.transaction(logger: testLogger) { connection in
                for table in ["users", "web_sessions", "api_tokens"] {
                    try await connection.query(PostgresQuery(unsafeSQL: "ALTER TABLE \(table) DISABLE TRIGGER USER"), logger: testLogger)
                }
                try await connection.query(statement, logger: testLogger)
                for table in ["users", "web_sessions", "api_tokens"] {
                    try await connection.query(PostgresQuery(unsafeSQL: "ALTER TABLE \(table) ENABLE TRIGGER USER"), logger: testLogger)
                }
            }
        }
    }

    @Test("dropping a user's entries leaves every other user's")
    func forgetOneUser() {
        let cache = AccessCache(lifetime: .seconds(30))
        cache.startServing()
        func session(_ id: Int64) -> ActiveSession {
            let user = User(id: id, email: "u\(id)@example.com", username: nil, fullName: "U", role: .user, isDisabled: false, createdAt: .now, emailVerified: true)
            return ActiveSession(sessionID: id, user: user, lastSeenAt: .now, expiresAt: .now + 3600, signedInAt: .now, confirmedAt: .now)
        }
        for id in Int64(1)...50 {
            cache.keep(session(id), tokenHash: [UInt8(id), 1], ticket: cache.ticket())
            cache.keep(session(id), tokenHash: [UInt8(id), 2], ticket: cache.ticket())
        }
        cache.forget(userID: 7)
        #expect(cache.session(tokenHash: [7, 1]) == nil && cache.session(tokenHash: [7, 2]) == nil)
        #expect((Int64(1)...50).filter { $0 != 7 }.allSatisfy { cache.session(tokenHash: [UInt8($0), 1])?.sessionID == $0 && cache.session(tokenHash: [UInt8($0), 2]) != nil })
    }

    @Test("the listener keeps only the probes it waits for: other instances' probes and its own late ones are not held")
    func probesNotHeld() {
        let probes = ArrivedProbes()
        for _ in 0..<1_000 { probes.arrived(UUID().uuidString) }
        #expect(probes.held == 0, "another instance's probes")
        probes.expect("mine")
        probes.arrived("mine")
        #expect(probes.take("mine") && probes.held == 0)
        probes.expect("late")
        probes.forget("late")  // its wait timed out
        probes.arrived("late")
        #expect(probes.held == 0, "heard after its wait ended")
    }

    @Test("a token revoked on one instance is refused on the other within 100 ms")
    func tokenRevokedElsewhere() async throws {
        try await withTwoInstances { instances in
            let token = try await instances.a.api.signedInUser(email: uniqueEmail("two-instances"))
            #expect(try await instances.apiB.getPhotos(token: token).status == .ok)
            #expect(try await instances.apiB.getPhotos(token: token).status == .ok)

            #expect(try await instances.a.api.send(.get, "/api/clear_token", authorization: "Token token=\(token)").status == .ok)
            let took = try await Self.timeUntil(.unauthorized) { try await instances.apiB.getPhotos(token: token) }
            #expect(took < .milliseconds(100), "refused on the other instance after \(took)")
            #expect(try await instances.apiB.getPhotos(token: token).status == .unauthorized)
        }
    }

    @Test("a user disabled on one instance is signed out on the other within 100 ms")
    func userDisabledElsewhere() async throws {
        try await withTwoInstances { instances in
            let admin = try await instances.a.signedInAdmin()
            let email = uniqueEmail("disabled-elsewhere")
            let browserB = Browser(client: instances.b)
            try await browserB.signUp(email: email)
            #expect(try await browserB.get("/account").status == .ok)
            #expect(try await browserB.get("/account").status == .ok)
            let id = try await instances.a.userID(email)

            let done = try await admin.submit("/admin/users/\(id)/disable", from: "/admin/users/\(id)/disable", [])
            #expect(done.location == "/admin/users/\(id)?notice=user-updated")
            let took = try await Self.timeUntil(.seeOther) { try await browserB.get("/account") }
            #expect(took < .milliseconds(100), "signed out on the other instance after \(took)")
        }
    }

    @Test("answers come from memory, a change heard drops them, and nothing is kept while changes cannot be heard")
    func memoryAndListener() async throws {
        try await withTwoInstances { instances in
            let app = instances.a
            let email = uniqueEmail("cached")
            let token = try await app.api.signedInUser(email: email)
            let userID = try await app.userID(email)
            #expect(try await instances.apiB.getPhotos(token: token).status == .ok)

            // Revoked where no instance hears it: B still knows the token from memory…
            try await Self.silently(app, "UPDATE api_tokens SET revoked_at = now() WHERE user_id = \(userID)")
            #expect(try await instances.apiB.getPhotos(token: token).status == .ok, "answered from memory")
            // … until the change is announced.
            try await app.db { try await $0.query("SELECT pg_notify('selfie_access', \(String(userID)))") }
            let took = try await Self.timeUntil(.unauthorized) { try await instances.apiB.getPhotos(token: token) }
            #expect(took < .milliseconds(100))

            // The listening connections end (a database restart, a network cut): memory is off.
            let second = try #require(try await app.api.signIn(email: email).json()["api_authtoken"] as? String)
            #expect(try await instances.apiB.getPhotos(token: second).status == .ok)
            let ended = try await app.scalar(
                "SELECT count(pg_terminate_backend(pid))::int FROM pg_stat_activity WHERE datname = current_database() AND query LIKE 'LISTEN%'",
                as: Int.self
            )
            #expect(ended == 2)
            try await Self.waitForLine("not hearing access changes", in: instances.logsB)
            try await Self.silently(app, "UPDATE api_tokens SET revoked_at = now() WHERE user_id = \(userID)")
            #expect(try await instances.apiB.getPhotos(token: second).status == .unauthorized, "asked the database")

            // Heard again after reconnecting (a probe came back): memory is on again.
            try await Self.waitForLine(Self.hearing, count: 2, in: instances.logsB)
            let third = try #require(try await app.api.signIn(email: email).json()["api_authtoken"] as? String)
            #expect(try await instances.apiB.getPhotos(token: third).status == .ok)
            try await Self.silently(app, "UPDATE api_tokens SET revoked_at = now() WHERE user_id = \(userID)")
            #expect(try await instances.apiB.getPhotos(token: third).status == .ok, "answered from memory again")
        }
    }

    @Test("requests racing a revocation: once one is refused, every later one is")
    func racingRevocation() async throws {
        try await withTwoInstances { instances in
            let token = try await instances.a.api.signedInUser(email: uniqueEmail("racing"))
            let record = RaceRecord()
            // Each of the six on connections of its own to B, so that B's lookups overlap too.
            var request = HTTPClientRequest(url: "http://127.0.0.1:\(try #require(instances.b.port))/api/get_photos")
            request.headers.add(name: "Content-Type", value: "application/json")
            request.headers.add(name: "Authorization", value: "Token token=\(token)")
            let lookup = request
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<6 {
                    group.addTask {
                        let stop = ContinuousClock.now + .seconds(2)
                        while ContinuousClock.now < stop {
                            let sent = ContinuousClock.now
                            let response = try await HTTPClient.shared.execute(lookup, timeout: .seconds(10))
                            _ = try await response.body.collect(upTo: 1 << 20)
                            if response.status == .unauthorized {
                                record.refused()
                            } else if record.wasSentAfterARefusal(sent) {
                                record.lateSuccess()
                            }
                        }
                    }
                }
                try await Task.sleep(for: .milliseconds(500))
                #expect(try await instances.a.api.send(.get, "/api/clear_token", authorization: "Token token=\(token)").status == .ok)
                try await group.waitForAll()
            }
            #expect(record.firstRefusal != nil)
            #expect(record.lateSuccesses == 0, "a request sent after a refusal was let in")
        }
    }

    @Test("each way in ended on this instance is refused at once by it, announcements or not")
    func endedHereRefusedAtOnce() async throws {
        let logs = LogCapture()
        try await withTestApp(configure: { $0.accessCacheLifetime = .seconds(30) }, logger: logs.logger(level: .info)) { app in
            try await Self.waitForLine(Self.hearing, in: logs)
            // Without the triggers only the instance's own bookkeeping drops what it changed
            // (an announcement would usually arrive before the next request anyway).
            try await app.db { client in
                for table in ["users", "web_sessions", "api_tokens"] {
                    try await client.query(PostgresQuery(unsafeSQL: "ALTER TABLE \(table) DISABLE TRIGGER USER"), logger: testLogger)
                }
            }
            // API: clearing the token.
            let token = try await app.api.signedInUser(email: uniqueEmail("clear"))
            #expect(try await app.api.getPhotos(token: token).status == .ok)
            #expect(try await app.api.send(.get, "/api/clear_token", authorization: "Token token=\(token)").status == .ok)
            #expect(try await app.api.getPhotos(token: token).status == .unauthorized)

            // Browser: signing out, then the old cookie.
            let browser = app.browser()
            try await browser.signUp(email: uniqueEmail("signout"))
            #expect(try await browser.get("/account").status == .ok)
            let cookie = try #require(browser.cookies["selfie_session"])
            try await browser.submit("/signout", from: "/account", [])
            let replay = app.browser()
            replay.setCookie("selfie_session", cookie)
            #expect(try await replay.get("/account").status == .seeOther)

            // Admin: disabling a user whose session and token were just used; promoting one.
            let admin = try await app.signedInAdmin()
            let email = uniqueEmail("disable")
            let user = app.browser()
            try await user.signUp(email: email)
            let userToken = try #require(try await app.api.signIn(email: email).json()["api_authtoken"] as? String)
            #expect(try await user.get("/account").status == .ok)
            #expect(try await app.api.getPhotos(token: userToken).status == .ok)
            let id = try await app.userID(email)
            try await admin.submit("/admin/users/\(id)/disable", from: "/admin/users/\(id)/disable", [])
            #expect(try await user.get("/account").status == .seeOther)
            #expect(try await app.api.getPhotos(token: userToken).status == .unauthorized)

            let promotedEmail = uniqueEmail("promoted")
            let promoted = app.browser()
            try await promoted.signUp(email: promotedEmail)
            try await app.confirmAddress(of: promotedEmail)
            #expect(try await promoted.get("/admin").status == .forbidden)
            let promotedID = try await app.userID(promotedEmail)
            try await admin.submit("/admin/users/\(promotedID)/promote", from: "/admin/users/\(promotedID)/promote", [])
            #expect(try await promoted.get("/admin").status == .ok, "the new role counts at once")

            // The owner: signing out everywhere else; changing the password (ends the others too).
            for remedy in ["end-others", "password"] {
                let owner = uniqueEmail(remedy)
                let here = app.browser()
                try await here.signUp(email: owner)
                let elsewhere = app.browser()
                try await elsewhere.signIn(email: owner)
                #expect(try await elsewhere.get("/account").status == .ok)
                let ended = remedy == "end-others"
                    ? try await here.submit("/account/sessions/end-others", from: "/account", [])
                    : try await here.submit(
                        "/account/password", from: "/account",
                        [("current_password", "correct horse battery"), ("new_password", "second password 2"), ("new_password_confirmation", "second password 2")]
                    )
                #expect(ended.status == .seeOther)
                #expect(try await elsewhere.get("/account").status == .seeOther, "\(remedy): the other session, used a moment ago, is refused")
            }

            // Admin: revoking a user's access; deleting a user.
            for act in ["revoke-access", "delete"] {
                let owner = uniqueEmail(act)
                let browser = app.browser()
                try await browser.signUp(email: owner)
                let ownerToken = try #require(try await app.api.signIn(email: owner).json()["api_authtoken"] as? String)
                #expect(try await browser.get("/account").status == .ok)
                #expect(try await app.api.getPhotos(token: ownerToken).status == .ok)
                let ownerID = try await app.userID(owner)
                try await admin.submit("/admin/users/\(ownerID)/\(act)", from: "/admin/users/\(ownerID)/\(act)", [])
                #expect(try await browser.get("/account").status == .seeOther, "\(act)")
                #expect(try await app.api.getPhotos(token: ownerToken).status == .unauthorized, "\(act)")
            }
        }
    }

    @Test("a lookup under way while a change to its user is heard is not kept (a change to another user does not stop it; too many to tell apart do); nothing is kept while not listening")
    func ticketsAndListening() throws {
        let cache = AccessCache(lifetime: .seconds(30))
        let user = User(id: 7, email: "a@example.com", username: nil, fullName: "A", role: .user, isDisabled: false, createdAt: .now, emailVerified: true)
        let session = ActiveSession(sessionID: 1, user: user, lastSeenAt: .now, expiresAt: .now + 3600, signedInAt: .now, confirmedAt: .now)
        let hash = [UInt8](repeating: 1, count: 32)

        #expect(cache.ticket() == nil, "not listening: nothing is kept")
        cache.keep(session, tokenHash: hash, ticket: cache.ticket())
        #expect(cache.session(tokenHash: hash) == nil)

        cache.startServing()
        let before = cache.ticket()
        cache.forget(userID: 7)  // the user's change heard while the lookup was under way
        cache.forget(userID: 99)
        cache.keep(session, tokenHash: hash, ticket: before)
        #expect(cache.session(tokenHash: hash) == nil, "read before the change: not kept")

        let beforeOthers = cache.ticket()
        for other in 100..<150 { cache.forget(userID: Int64(other)) }  // other users' changes only
        cache.keep(session, tokenHash: hash, ticket: beforeOthers)
        #expect(cache.session(tokenHash: hash)?.sessionID == 1, "other users' changes do not keep it out")
        cache.forget(userID: 7)

        let beforeMany = cache.ticket()
        for other in 0..<(AccessCache.rememberedChanges + 1) { cache.forget(userID: Int64(1_000 + other)) }
        cache.keep(session, tokenHash: hash, ticket: beforeMany)
        #expect(cache.session(tokenHash: hash) == nil, "more changes than remembered: whose they were is unknown, not kept")

        cache.keep(session, tokenHash: hash, ticket: cache.ticket())
        #expect(cache.session(tokenHash: hash)?.sessionID == 1)
        #expect(cache.session(tokenHash: hash, now: .now + 31) == nil, "kept 30 s at most")
        cache.forget(userID: 7)
        #expect(cache.session(tokenHash: hash) == nil, "the user's change drops it")

        cache.keep(session, tokenHash: hash, ticket: cache.ticket())
        cache.stopServing()
        #expect(cache.session(tokenHash: hash) == nil, "stopped listening: everything dropped")
        cache.startServing()
        #expect(cache.session(tokenHash: hash) == nil)

        let ending = ActiveSession(sessionID: 2, user: user, lastSeenAt: .now, expiresAt: .now + 5, signedInAt: .now, confirmedAt: .now)
        cache.keep(ending, tokenHash: hash, ticket: cache.ticket())
        #expect(cache.session(tokenHash: hash, now: .now + 6) == nil, "never past the session's own end")

        let token = AuthenticatedToken(tokenID: 3, user: user, appKeyName: "app", lastUsedAt: .now, expiresAt: .now + 5, issuedAt: .now)
        cache.keep(token, tokenHash: hash, ticket: cache.ticket())
        #expect(cache.token(tokenHash: hash)?.tokenID == 3)
        #expect(cache.token(tokenHash: hash, now: .now + 6) == nil, "never past the token's own end")
    }
}

/// What racing requests saw: when the first was refused, and how many sent after that got in.
private final class RaceRecord: Sendable {
    private let first = Mutex<ContinuousClock.Instant?>(nil)
    private let late = Mutex(0)

    var firstRefusal: ContinuousClock.Instant? { first.withLock { $0 } }
    var lateSuccesses: Int { late.withLock { $0 } }

    func refused() {
        let now = ContinuousClock.now
        first.withLock { if $0 == nil { $0 = now } }
    }

    func wasSentAfterARefusal(_ sent: ContinuousClock.Instant) -> Bool { firstRefusal.map { sent > $0 } ?? false }
    func lateSuccess() { late.withLock { $0 += 1 } }
}
