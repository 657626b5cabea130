@testable import App
@testable import SelfieCore
import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import PostgresNIO
import _ConnectionPoolModule
import Testing

@Suite("Health and error pages")
struct HealthAndErrorTests {
    @Test("/healthz answers 200 {\"status\":\"ok\"} when the database answers")
    func healthy() async throws {
        try await withTestApp { app in
            let response = try await app.client.execute(uri: "/healthz", method: .get)
            #expect(response.status == .ok)
            #expect(response.text == #"{"status":"ok"}"#)
        }
    }

    @Test("/livez answers while the process runs; /readyz is 503 while draining (after SIGTERM) and when a migration is pending")
    func readiness() async throws {
        let draining = Draining()
        try await withTestApp(draining: draining) { app in
            let ready = try await app.client.execute(uri: "/readyz", method: .get)
            #expect(ready.status == .ok)
            #expect(ready.text == #"{"status":"ok"}"#)
            #expect(ready.headers[.cacheControl] == "no-store")

            // A migration the database has not had (as when a newer instance is rolled out first).
            let newest = try await app.scalar("SELECT max(version) FROM schema_migrations", as: Int.self)
            let name = try await app.scalar("SELECT name FROM schema_migrations WHERE version = \(newest)", as: String.self)
            let checksum = try await app.scalar("SELECT checksum FROM schema_migrations WHERE version = \(newest)", as: String.self)
            try await app.scalar("DELETE FROM schema_migrations WHERE version = \(newest) RETURNING 1", as: Int.self)
            let behind = try await app.client.execute(uri: "/readyz", method: .get)
            #expect(behind.status == .serviceUnavailable)
            #expect(behind.text == #"{"status":"schema not current"}"#)
            try await app.scalar(
                "INSERT INTO schema_migrations (version, name, checksum) VALUES (\(newest), \(name), \(checksum)) RETURNING 1", as: Int.self
            )
            #expect(try await app.client.execute(uri: "/readyz", method: .get).status == .ok)

            // A newer instance applied a migration this one does not know (a rolling upgrade):
            // additive, this one stays in service; not additive, it leaves.
            try await app.scalar(
                "INSERT INTO schema_migrations (version, name, checksum, additive) VALUES (9000, 'future', 'x', true) RETURNING 1", as: Int.self
            )
            #expect(try await app.client.execute(uri: "/readyz", method: .get).status == .ok)
            try await app.scalar("UPDATE schema_migrations SET additive = false WHERE version = 9000 RETURNING 1", as: Int.self)
            let newer = try await app.client.execute(uri: "/readyz", method: .get)
            #expect(newer.status == .serviceUnavailable)
            #expect(newer.text == #"{"status":"schema not current"}"#)
            try await app.scalar("DELETE FROM schema_migrations WHERE version = 9000 RETURNING 1", as: Int.self)

            draining.begin()
            let drainingAnswer = try await app.client.execute(uri: "/readyz", method: .get)
            #expect(drainingAnswer.status == .serviceUnavailable)
            #expect(drainingAnswer.text == #"{"status":"draining"}"#)
            let live = try await app.client.execute(uri: "/livez", method: .get)
            #expect(live.status == .ok && live.text == #"{"status":"ok"}"#)
            #expect(try await app.client.execute(uri: "/signin", method: .get).status == .ok, "requests are still served while draining")
        }
    }

    @Test("with the network to PostgreSQL gone silent, a request whose token and session are cached is answered 503 within the wait limit, not held; answered again once it speaks")
    func silentDatabase() async throws {
        // The proxy's listener is closed when the test ends, not left to a task of its own.
        try await SilentProxy.with { try await silentDatabase(through: $0) }
    }

    private func silentDatabase(through proxy: SilentProxy) async throws {
        try await withTestApp(configure: { config in
            proxy.carry(&config)
            config.logLevel = .critical
        }) { app in
            // The queries left waiting on silent connections end when these close (or the
            // app's shutdown would wait for them): closed until the proxy stops, after the app.
            defer { proxy.keepClosingConnections() }
            let email = uniqueEmail("silent")
            let token = try await app.api.signedInUser(email: email)
            let browser = app.browser()
            _ = try await browser.signIn(email: email)
            // Both lookups are now in the access cache: only the pages' own queries need PostgreSQL.
            #expect(try await app.api.getPhotos(token: token).status == .ok)
            #expect(try await browser.get("/gallery").status == .ok)

            /// The request's status, or nil if it is held past `limit`: then the proxy's
            /// connections are closed, so a held request is a failure, not a test that never ends.
            func answer(within limit: Duration, _ request: @escaping @Sendable () async throws -> HTTPResponse.Status) async throws -> HTTPResponse.Status? {
                try await withThrowingTaskGroup(of: HTTPResponse.Status?.self) { group in
                    group.addTask { try await request() }
                    group.addTask {
                        try await Task.sleep(for: limit)
                        proxy.closeConnections()
                        return nil
                    }
                    let first = try await group.next() ?? nil
                    group.cancelAll()
                    return first
                }
            }
            let requests: [(String, @Sendable () async throws -> HTTPResponse.Status)] = [
                ("get_photos", { try await app.api.getPhotos(token: token).status }),
                ("gallery", { try await browser.get("/gallery").status }),
                ("healthz", { try await app.client.execute(uri: "/healthz", method: .get).status }),
            ]

            proxy.goSilent()
            for (name, request) in requests {
                let started = ContinuousClock.now
                let status = try await answer(within: .seconds(20), request)
                let waited = ContinuousClock.now - started
                // The 3 s limit (2 s for /healthz), with room for a loaded machine; without a
                // deadline the query waits until TCP gives up, many minutes.
                #expect(status == .serviceUnavailable, "\(name) answered \(status.map { "\($0.code)" } ?? "nothing") after \(waited)")
                #expect(waited < .seconds(15), "\(name) waited \(waited)")
            }

            // Back: the connections that lost bytes while silent cannot recover (a real network
            // would resend them), so they are closed; the pool opens new ones, after the back-off
            // of its attempts made while silent.
            proxy.speakAgain()
            proxy.closeConnections()
            let back = ContinuousClock.now
            var answered = try await answer(within: .seconds(20), requests[0].1)
            while answered != .ok, ContinuousClock.now - back < .seconds(60) {
                try await Task.sleep(for: .milliseconds(250))
                answered = try await answer(within: .seconds(20), requests[0].1)
            }
            #expect(answered == .ok, "get_photos \(answered.map { "\($0.code)" } ?? "nothing") for a minute after PostgreSQL spoke again")
            #expect(try await answer(within: .seconds(20), requests[1].1) == .ok, "the gallery after PostgreSQL spoke again")
        }
    }

    @Test("/healthz answers 503 within its deadline when the database is unreachable")
    func databaseUnreachable() async throws {
        // Nothing listens on port 1: every connection attempt is refused.
        let unreachable = try DatabaseURL("postgres://selfie:pw@127.0.0.1:1/selfie")
        var config = try AppConfiguration.testing(database: unreachable)
        config.logLevel = .critical
        let services = try await AppServices(config, paths: ResourcePaths(root: repositoryRoot), logger: testLogger)
        let migrator = Migrator(client: services.core.postgres, migrations: try Migrator.loadMigrations(from: "\(repositoryRoot)/migrations"), logger: testLogger)
        let router = try buildRouter(
            config: config, paths: ResourcePaths(root: repositoryRoot), services: services, health: (migrator, Draining()), logger: testLogger
        )
        let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)), services: [services.core.postgres, services.core.http], logger: testLogger)
        try await app.test(.live) { client in
            // Each check within its 2 s deadline plus room for a loaded machine (measured one by
            // one: the two together once took 8.2 s against a bound of 8 s for both, on a loaded CI run).
            var started = ContinuousClock.now
            let health = try await client.execute(uri: "/healthz", method: .get)
            #expect(ContinuousClock.now - started < .seconds(5), "/healthz")
            #expect(health.status == .serviceUnavailable)
            #expect(health.text == #"{"status":"unavailable"}"#)
            started = ContinuousClock.now
            let ready = try await client.execute(uri: "/readyz", method: .get)
            #expect(ContinuousClock.now - started < .seconds(5), "/readyz")
            #expect(ready.status == .serviceUnavailable)
            #expect(ready.text == #"{"status":"database unavailable"}"#)
            #expect(try await client.execute(uri: "/livez", method: .get).status == .ok, "the process itself is alive")
        }
    }

    @Test("a database that cannot be reached is a 503 with a plain message, not a 500")
    func unavailableIs503() throws {
        let copy = ErrorCopy(words: Words(translations: CatalogueTests.translations, viewer: .default))
        for error: any Error in [ConnectionPoolError.connectionCreationCircuitBreakerTripped, DeadlineExceeded()] {
            let answer = copy.appError(for: error)
            #expect(answer.status == .serviceUnavailable)
            #expect(answer.message == "Selfie is unavailable for a moment. Please try again shortly.")
        }
        struct Bug: Error {}
        #expect(copy.appError(for: Bug()).status == .internalServerError)
        // a full disk is the store's capacity (507), a read-only one the store failing (503)
        #expect(copy.appError(for: FileBlobStore.error(ENOSPC, "write")).status.code == 507)
        #expect(copy.appError(for: FileBlobStore.error(EROFS, "write")).status == .serviceUnavailable)
    }

    @Test(
        "a refusal for now from PostgreSQL (deadlock, serialization failure, lock or statement timeout) is a 503 to try again, with nothing left behind; a refusal that is a bug stays a 500",
        arguments: [("40P01", 503), ("40001", 503), ("55P03", 503), ("57014", 503), ("XX000", 500)]
    )
    func transientRefusals(sqlState: String, status: Int) async throws {
        try await withTestApp { app in
            let email = uniqueEmail()
            let token = try await app.api.signedInUser(email: email)
            // What a busy database answers the photo's INSERT, raised by a trigger on the real statement.
            try await app.db {
                try await $0.query(
                    """
                    CREATE FUNCTION refuse_for_now() RETURNS trigger LANGUAGE plpgsql AS $$
                    BEGIN RAISE EXCEPTION 'refused by the test' USING ERRCODE = '\(unescaped: sqlState)'; END $$
                    """
                )
                try await $0.query("CREATE TRIGGER refuse_for_now BEFORE INSERT ON photos FOR EACH ROW EXECUTE FUNCTION refuse_for_now()")
            }
            let answer = try await app.api.uploadPhoto(token: token, image: TestImage.jpeg(), title: "")
            #expect(answer.status.code == status, "\(sqlState): \(answer.status) \(answer.text)")
            #expect(!answer.text.contains("refused by the test") && !answer.text.contains(sqlState), "nothing of the cause is shown")
            #expect(try await app.photoCount() == 0)
            #expect(app.filesInBlobStore() == [], "no original or rendition is left")
            // The way in (a token's INSERT) answers the same.
            try await app.db { try await $0.query("CREATE TRIGGER refuse_for_now BEFORE INSERT ON api_tokens FOR EACH ROW EXECUTE FUNCTION refuse_for_now()") }
            #expect(try await app.api.signIn(email: email).status.code == status)
        }
    }

    @Test("an unknown page is a 404 HTML page; under /api it is JSON")
    func notFound() async throws {
        try await withTestApp { app in
            let page = try await app.client.execute(uri: "/no/such/page", method: .get)
            #expect(page.status == .notFound)
            #expect(page.headers[.contentType] == "text/html; charset=utf-8")
            #expect(page.text.contains("There is nothing at this address."))

            let api = try await app.client.execute(uri: "/api/no_such_endpoint", method: .get)
            #expect(api.status == .notFound)
            #expect(api.headers[.contentType] == "application/json; charset=utf-8")
            let json = try JSONSerialization.jsonObject(with: Data(buffer: api.body)) as? [String: Any]
            #expect(json?["status"] as? Int == 404)
            #expect(json?["message"] is String)
        }
    }

    @Test("error pages keep the signed-in user in the header")
    func errorPageForSignedInUser() async throws {
        try await withTestApp { app in
            let browser = app.browser()
            try await browser.signUp(name: "Grace Hopper", email: uniqueEmail())
            let page = try await browser.get("/no/such/page")
            #expect(page.status == .notFound)
            #expect(page.text.contains(">Grace Hopper</a>"))
        }
    }

    @Test("HTML escaping works per Unicode scalar")
    func scalarEscaping() {
        let hostile = "<a href=\"x\u{301}\">'&'</a>"
        let expected = "&lt;a href=&quot;x\u{301}&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;"
        #expect(ScalarHTMLEscaping().escapeText(hostile) == expected)
    }

    @Test("an unexpected error is a 500 page that reveals nothing of the cause")
    func internalErrorHidden() async throws {
        struct Secret: Error, CustomStringConvertible { var description: String { "SELECT password_hash FROM users" } }
        // The two surfaces' error paths, as buildRouter mounts them.
        let router = Router(context: AppRequestContext.self)
        let pages = try await PageRenderer(
            templatesDirectory: "\(repositoryRoot)/Templates",
            translations: Translations(directory: "\(repositoryRoot)/Locales")
        )
        router.group(context: WebRequestContext.self).add(middleware: WebErrorMiddleware<WebRequestContext>(pages: pages))
            .get("/boom") { _, _ -> String in throw Secret() }
        router.group(context: APIRequestContext.self).add(middleware: APIErrorMiddleware(translations: pages.translations))
            .get("/api/boom") { _, _ -> String in throw Secret() }
        let app = Application(router: router, logger: Logger(label: "quiet", factory: { _ in SwiftLogNoOpLogHandler() }))
        try await app.test(.router) { client in
            let page = try await client.execute(uri: "/boom", method: .get)
            #expect(page.status == .internalServerError)
            #expect(page.text.contains("Something went wrong on our side."))
            #expect(!page.text.contains("password_hash"))
            let api = try await client.execute(uri: "/api/boom", method: .get)
            #expect(api.status == .internalServerError)
            let json = try JSONSerialization.jsonObject(with: Data(buffer: api.body)) as? [String: Any]
            #expect(json?["status"] as? Int == 500)
            #expect(json?["message"] as? String == "Something went wrong on our side. Please try again.")
        }
    }

    @Test("HEAD is answered wherever GET is: the same status and headers, no body (health checks, static files, pages, the API)")
    func headLikeGet() async throws {
        try await withTestApp { app in
            // Fixed bodies: HEAD's Content-Length is GET's.
            for path in ["/healthz", "/livez", "/assets/css/app.css", "/manifest.webmanifest"] {
                let get = try await app.client.execute(uri: path, method: .get)
                let head = try await app.client.execute(uri: path, method: .head)
                #expect(get.status == .ok, "GET \(path)")
                #expect(head.status == .ok, "HEAD \(path)")
                #expect(head.body.readableBytes == 0, "HEAD \(path) sent a body")
                #expect(head.headers[.contentType] == get.headers[.contentType], "HEAD \(path)")
                #expect(head.headers[.contentLength] == String(get.body.readableBytes), "HEAD \(path)")
            }

            // A page behind sign-in: HEAD is sent to sign in and back to the same page, like GET.
            let browser = app.browser()
            let signedOut = try await browser.send("/albums", method: .head, body: nil as String?, contentType: nil)
            #expect(signedOut.status == .seeOther)
            #expect(signedOut.headers[.location] == WebPath.signIn(returningTo: "/albums"))
            try await browser.signUp(email: uniqueEmail())
            let gallery = try await browser.send("/gallery", method: .head, body: nil as String?, contentType: nil)
            #expect(gallery.status == .ok)
            #expect(gallery.headers[.contentType] == "text/html; charset=utf-8")
            #expect(gallery.body.readableBytes == 0)

            // The API with a token, and an address nobody serves.
            let api = APIClient(client: app.client)
            let token = try await api.signedInUser()
            let photos = try await api.send(.head, "/api/get_photos", authorization: "Token token=\(token)")
            #expect(photos.status == .ok)
            #expect(photos.headers[.contentType] == "application/json; charset=utf-8")
            #expect(photos.body.readableBytes == 0)
            #expect(try await app.client.execute(uri: "/no/such/page", method: .head).status == .notFound)
        }
    }

    @Test("pages are readable on a phone and share one layout with a stylesheet at its fingerprinted URL")
    func layout() async throws {
        try await withTestApp { app in
            var stylesheets: Set<String> = []
            for path in ["/signin", "/signup"] {
                let html = try await app.client.execute(uri: path, method: .get).text
                #expect(html.contains(#"<meta name="viewport" content="width=device-width, initial-scale=1">"#))
                let link = try #require(html.firstMatch(of: /<link rel="stylesheet" href="(\/assets\/css\/app\.[0-9a-f]{16}\.css)">/))
                stylesheets.insert(String(link.1))
                #expect(html.contains(/<link rel="icon" href="\/assets\/favicon\.[0-9a-f]{16}\.svg"/))
            }
            #expect(stylesheets.count == 1)
            let css = try await app.client.execute(uri: "/assets/css/app.css", method: .get)
            #expect(css.status == .ok)
            #expect(css.headers[.contentType]?.hasPrefix("text/css") == true)
        }
    }
}
