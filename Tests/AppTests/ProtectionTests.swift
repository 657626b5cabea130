@testable import App
@testable import SelfieCore
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

@Suite("Protection: lockout, rate limits, security headers, body limits")
struct ProtectionTests {
    static func withProtection(_ change: @escaping @Sendable (inout ProtectionConfiguration) -> Void) -> @Sendable (inout AppConfiguration) -> Void {
        { config in
            config.protection = ProtectionConfiguration()
            config.protection.signInsPerMinute = 0
            config.protection.signUpsPerHour = 0
            config.protection.uploadsPerHour = 0
            change(&config.protection)
        }
    }

    @Test("with lockout on, a login holding a NUL byte is refused without a 500, on the web and in the API")
    func nulInALogin() async throws {
        try await withTestApp(configure: Self.withProtection { _ in }) { app in
            let web = try await app.browser().signIn(email: "x\u{0}@example.com", password: "whatever1")
            #expect([400, 401].contains(web.status.code), "\(web.status)")
            let api = try await app.api.signIn(email: "a\u{0}b", password: "whatever1")
            #expect([400, 401].contains(api.status.code), "\(api.status)")
        }
    }

    @Test("a login of 4,000 random characters (no account has it) is refused like any unknown login, and still counted: not a 500")
    func hugeUnknownLogin() async throws {
        try await withTestApp(configure: Self.withProtection { _ in }) { app in
            // Random letters do not compress: stored raw, the lockout key outgrew its index's row.
            var generator = SystemRandomNumberGenerator()
            let letters = Array("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
            let login = String((0..<4_000).map { _ in letters.randomElement(using: &generator)! })
            for attempt in 1...6 {
                let web = try await app.browser().signIn(email: login, password: "whatever1")
                let api = try await app.api.signIn(email: login + "@example.com", password: "whatever1")
                #expect(web.status == .unauthorized || (attempt > 5 && web.status == .tooManyRequests), "web, attempt \(attempt): \(web.status)")
                #expect([401, 429].contains(api.status.code), "API, attempt \(attempt): \(api.status)")
            }
            let locked = try await app.browser().signIn(email: login, password: "whatever1")
            #expect(locked.status == .tooManyRequests, "the sixth failure locks that login as any other")
        }
    }

    @Test("a form with a field twice or a broken percent escape gets 400, not 500, on every form that decodes one")
    func malformedForms() async throws {
        try await withTestApp { app in
            let email = uniqueEmail()
            let owner = app.browser()
            try await owner.signUp(email: email)
            for (path, page) in [("/signin", "/signin"), ("/account/confirm", "/account/confirm"), ("/password/forgot", "/password/forgot")] {
                let browser = path == "/signin" || path == "/password/forgot" ? app.browser() : owner
                let token = try await browser.csrfToken(on: page)
                for body in ["_csrf=\(token)&email=a%40b.example&email=b%40b.example&password=x", "_csrf=\(token)&email=%zz&current_password=%zz"] {
                    let answer = try await browser.send(path, method: .post, body: body, contentType: "application/x-www-form-urlencoded")
                    #expect(answer.status == .badRequest, "\(path) \(body): \(answer.status)")
                }
            }
        }
    }

    @Test("the 6th wrong password within the window locks the account for web and API alike; others are unaffected")
    func lockout() async throws {
        try await withTestApp(configure: Self.withProtection { _ in }) { app in
            let email = uniqueEmail("target")
            let other = uniqueEmail("bystander")
            try await app.browser().signUp(email: email)
            try await app.browser().signUp(email: other)
            for _ in 1...3 { #expect(try await app.browser().signIn(email: email, password: "wrong one").status == .unauthorized) }
            for _ in 1...2 { #expect(try await app.api.signIn(email: email, password: "wrong one").status == .unauthorized) }

            // locked now, even with the right password, on both sides
            let web = try await app.browser().signIn(email: email)
            #expect(web.status == .tooManyRequests)
            #expect(web.text.contains("Too many failed sign-ins for this account."))
            let retryAfter = try #require(web.headers[.retryAfter].flatMap(Int.init))
            #expect(retryAfter > 0 && retryAfter <= 900)
            let api = try await app.api.signIn(email: email.uppercased())
            #expect(api.status == .tooManyRequests)
            #expect(api.headers[.retryAfter] != nil)
            #expect(try api.apiError().message.hasPrefix("Too many failed sign-ins for this account."))

            #expect(try await app.browser().signIn(email: other).status == .seeOther, "another account signs in")

            // an email without an account locks exactly the same way: nothing is revealed
            let nobody = uniqueEmail("nobody")
            for _ in 1...5 { #expect(try await app.browser().signIn(email: nobody, password: "wrong one").status == .unauthorized) }
            let ghost = try await app.browser().signIn(email: nobody, password: "wrong one")
            #expect(ghost.status == .tooManyRequests)
            #expect(ghost.text.contains("Too many failed sign-ins for this account."))

            // the window passes
            try await app.db { try await $0.query("UPDATE sign_in_failures SET occurred_at = now() - interval '16 minutes'") }
            #expect(try await app.browser().signIn(email: email).status == .seeOther)
        }
    }

    @Test("guesses sent in parallel cannot slip past the lockout; locked attempts are audited")
    func parallelGuesses() async throws {
        try await withTestApp(configure: Self.withProtection { _ in }) { app in
            let email = uniqueEmail("target")
            try await app.browser().signUp(email: email)
            // Four wrong guesses one after another: one more is allowed before the lockout.
            for _ in 0..<4 { #expect(try await app.api.signIn(email: email, password: "a wrong guess").status == .unauthorized) }
            let guess = app.api.signInRequest(email: email, password: "a wrong guess")
            let port = try #require(app.client.port)
            // Three at once, the failures' table held against inserts until at least two of them have
            // counted the four: only one may be the fifth.
            let statuses = try await app.holding("LOCK TABLE sign_in_failures IN EXCLUSIVE MODE", untilWaiting: 2) {
                try await AtOnce.send(Array(repeating: guess, count: 3), port: port).map(\.status)
            }
            #expect(statuses.sorted() == [401, 429, 429], "\(statuses.sorted())")
            #expect(try await app.auditCount("sign_in.locked") == 2)
            #expect(try await app.scalar("SELECT count(*)::int FROM sign_in_failures") == 5)
        }
    }

    @Test("per-address limits on sign-in and sign-up answer 429 with Retry-After: a page, or JSON under /api")
    func rateLimits() async throws {
        try await withTestApp(configure: Self.withProtection { $0.signInsPerMinute = 3; $0.signUpsPerHour = 2 }) { app in
            let browser = app.browser()
            // Windows are fixed minutes: if one ends mid-test the count starts again, so within
            // eight attempts a 429 must come, and only after three 401s in its window.
            var statuses: [HTTPResponse.Status] = []
            var limited: TestResponse?
            for _ in 1...8 {
                let response = try await browser.signIn(email: uniqueEmail(), password: "whatever 1")
                statuses.append(response.status)
                if response.status == .tooManyRequests {
                    limited = response
                    break
                }
            }
            let page = try #require(limited, "no 429 in \(statuses)")
            #expect(statuses.count >= 4 && statuses.dropLast().suffix(3).allSatisfy { $0 == .unauthorized }, "\(statuses)")
            #expect(statuses.count <= 7)
            #expect(page.status == .tooManyRequests)
            #expect(page.headers[.contentType] == "text/html; charset=utf-8")
            #expect(page.text.contains("Too many attempts from your network."))
            #expect(page.headers[.retryAfter].flatMap(Int.init).map { $0 > 0 && $0 <= 60 } == true)
            let api = try await app.api.signIn(email: uniqueEmail(), password: "whatever 1")
            #expect(api.status == .tooManyRequests)
            #expect(try api.apiError().status == 429)

            #expect(try await app.api.signUp(email: uniqueEmail()).status == .ok)
            #expect(try await app.browser().submitSignUp(email: uniqueEmail()).status == .ok)
            let third = try await app.api.signUp(email: uniqueEmail())
            #expect(third.status == .tooManyRequests)
            #expect(third.headers[.retryAfter] != nil)
        }
    }

    @Test("requests over an address's limit are refused without writing: a flood leaves the counter at the limit plus one, and the refusal still says when to come back")
    func refusalsWriteNothing() async throws {
        try await withTestApp(configure: Self.withProtection { $0.signInsPerMinute = 3 }) { app in
            var refused = 0
            for _ in 1...30 {
                let answer = try await app.api.signIn(email: uniqueEmail(), password: "whatever 1")
                if answer.status == .tooManyRequests {
                    refused += 1
                    #expect(answer.headers[.retryAfter].flatMap(Int.init).map { $0 > 0 && $0 <= 60 } == true)
                }
            }
            #expect(refused >= 20)
            // A fixed minute may have ended meanwhile: each window's row counts on its own.
            let most = try await app.scalar("SELECT max(hits) FROM rate_limit_counters WHERE action = 'sign-in'", as: Int.self)
            #expect(most == 4, "each refusal wrote the row again: \(most)")
        }
    }

    @Test("protection is on by default and can be turned off by configuration only")
    func configuration() throws {
        let base = ["SECRET_KEY": String(repeating: "s", count: 32), "DATABASE_URL": "postgres://u@h/d", "API_AUTH_NAME": "a", "API_AUTH_PASSWORD": "b"]
        let defaults = try AppConfiguration.load(from: base).protection
        #expect(defaults.lockoutThreshold == 5 && defaults.signInsPerMinute > 0 && defaults.signUpsPerHour > 0 && defaults.uploadsPerHour > 0)
        var off = base
        for name in ["LOCKOUT_THRESHOLD", "RATE_LIMIT_SIGN_INS_PER_MINUTE", "RATE_LIMIT_SIGN_UPS_PER_HOUR", "RATE_LIMIT_UPLOADS_PER_HOUR", "RATE_LIMIT_VERIFICATION_MAILS_PER_DAY", "RATE_LIMIT_RESET_MAILS_PER_HOUR"] { off[name] = "0" }
        #expect(try AppConfiguration.load(from: off).protection == .off)
        var bad = base
        bad["LOCKOUT_THRESHOLD"] = "-1"
        #expect(throws: ConfigurationError.self) { try AppConfiguration.load(from: bad) }
    }

    @Test("security headers on every HTML page (CSP without inline script), and on JSON too")
    func headers() async throws {
        try await withTestApp { app in
            let browser = app.browser()
            var pages = [try await browser.get("/signin"), try await browser.get("/no/such/page")]
            try await browser.signUp(email: uniqueEmail())
            pages.append(try await browser.get("/gallery"))
            pages.append(try await browser.get("/photos/new"))
            for page in pages {
                let csp = try #require(page.headers[.contentSecurityPolicy])
                #expect(csp.contains("default-src 'self'") && csp.contains("script-src 'self'") && !csp.contains("unsafe-inline"))
                #expect(csp.contains("frame-ancestors 'none'"))
                #expect(page.headers[.xFrameOptions] == "DENY")
                #expect(page.headers[.xContentTypeOptions] == "nosniff")
                #expect(page.headers[.referrerPolicy] == "same-origin")
                #expect(page.headers[.xRequestID]?.isEmpty == false)
                #expect(page.headers[.strictTransportSecurity] == nil, "plain http")
                #expect(!page.text.contains("<script>"), "no inline script")
            }
            let json = try await app.api.send(.get, "/api/nope", authorization: nil)
            #expect(json.headers[.xContentTypeOptions] == "nosniff" && json.headers[.xRequestID] != nil)
            #expect(json.headers[.contentSecurityPolicy] == nil)
        }
    }

    @Test("behind https: HSTS; on S3: images may come from the store's origin")
    func httpsAndS3Headers() async throws {
        let s3 = S3Configuration(
            endpoint: URL(string: "http://127.0.0.1:9")!,
            region: "us-east-1",
            bucket: "photos",
            credentials: AWSCredentials(accessKeyID: "a", secretAccessKey: "b"),
            addressing: .path
        )
        try await withTestApp(configure: { $0.publicURL = URL(string: "https://selfie.example")!; $0.blobStore = .s3(s3) }) { app in
            let page = try await app.browser().get("/signin")
            #expect(page.headers[.strictTransportSecurity] == "max-age=31536000; includeSubDomains")
            #expect(page.headers[.contentSecurityPolicy]?.contains("img-src 'self' http://127.0.0.1:9") == true)
        }
        var virtualHost = s3
        virtualHost.addressing = .virtualHost
        #expect(SecurityHeaders.origin(of: URL(string: "https://s3.example.com:8443/x")!, bucket: virtualHost) == "https://photos.s3.example.com:8443")
    }

    @Test("a large form body is refused with 413")
    func bigForm() async throws {
        try await withTestApp { app in
            let browser = app.browser()
            let token = try await browser.csrfToken(on: "/signin")
            let response = try await browser.post("/signin", form: [("_csrf", token), ("email", String(repeating: "a", count: 200_000))])
            #expect(response.status == .contentTooLarge)
        }
    }
}
