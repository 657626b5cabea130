@testable import App
@testable import SelfieCore
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

extension TestApp {
    /// Creates an admin with the `selfie admin create` code path and signs them in.
    func signedInAdmin(email: String = uniqueEmail("admin"), password: String = "admin password 1") async throws -> Browser {
        _ = try await AdminCommands(config: config, logger: testLogger)
            .create(email: email, name: "Ada Admin", password: password)
        let browser = browser()
        let response = try await browser.signIn(email: email, password: password)
        guard response.status == .seeOther else { throw TestSetupError("admin sign-in failed: \(response.status)") }
        return browser
    }

    func userID(_ email: String) async throws -> Int64 {
        try await scalar("SELECT id FROM users WHERE lower(email) = lower(\(email))")
    }

    /// Who did and who underwent each `event`, oldest first.
    func auditEntries(_ event: String) async throws -> [AuditEntry] {
        try await db { client in
            var entries: [AuditEntry] = []
            for try await (actor, target) in try await client.query(
                "SELECT actor_id, target_user_id FROM audit_events WHERE event = \(event) ORDER BY id"
            ).decode((Int64?, Int64?).self) {
                entries.append(AuditEntry(actor: actor, target: target))
            }
            return entries
        }
    }

    struct AuditEntry: Equatable, Sendable {
        let actor: Int64?
        let target: Int64?
    }

    func auditCount(_ event: String, actor: Int64? = nil, target: Int64? = nil) async throws -> Int {
        try await auditEntries(event).count { entry in (actor == nil || entry.actor == actor) && (target == nil || entry.target == target) }
    }
}

@Suite("Admin pages")
struct AdminTests {
    static let getRoutes = ["/admin", "/admin/users", "/admin/users/1", "/admin/users/1/disable", "/admin/api-keys",
        "/admin/api-keys/some-key/revoke", "/admin/audit"]
    static let postRoutes = ["/admin/users/1/disable", "/admin/users/1/delete", "/admin/users/1/promote", "/admin/api-keys",
        "/admin/api-keys/some-key/revoke"]

    @Test("every admin route sends visitors to sign in and refuses non-admins with 403")
    func policy() async throws {
        try await withTestApp { app in
            let visitor = app.browser()
            for path in Self.getRoutes {
                let response = try await visitor.get(path)
                #expect(response.status == .seeOther, "\(path)")
                #expect(response.location?.hasPrefix("/signin?next=") == true)
            }
            let visitorToken = try await visitor.csrfToken(on: "/signin")
            for path in Self.postRoutes {
                let response = try await visitor.post(path, form: [("_csrf", visitorToken), ("name", "k1234")])
                #expect(response.status == .seeOther, "POST \(path)")
                #expect(response.location?.hasPrefix("/signin") == true)
            }

            let user = app.browser()
            try await user.signUp(email: uniqueEmail("plain"))
            let token = try await user.csrfToken(on: "/account")
            for path in Self.getRoutes {
                let response = try await user.get(path)
                #expect(response.status == .forbidden, "\(path)")
                #expect(response.text.contains("This page is for administrators."))
            }
            for path in Self.postRoutes {
                #expect(try await user.post(path, form: [("_csrf", token), ("name", "k1234")]).status == .forbidden, "POST \(path)")
            }
            let userPage = try await user.get("/gallery").text
            #expect(!userPage.contains(#"href="/admin""#), "no admin link for users")
            #expect(try await app.scalar("SELECT count(*)::int FROM app_keys") as Int == 0)
        }
    }

    @Test("dashboard counts; users searchable by any part of email or name, in any case, sorted by sign-up")
    func dashboardAndSearch() async throws {
        try await withTestApp { app in
            let admin = try await app.signedInAdmin()
            #expect(try await admin.get("/gallery").text.contains(#"<a href="/admin">Admin</a>"#))
            let grace = app.browser()
            try await grace.signUp(name: "Grace Hopper", email: "grace.hopper@navy.example")
            try await grace.upload(image: TestImage.jpeg(size: 10_000))
            try await app.browser().signUp(name: "Alan Turing", email: "alan@bletchley.example")
            try await app.browser().signIn(email: "alan@bletchley.example", password: "wrong password")

            let dashboard = try await admin.get("/admin").text
            #expect(dashboard.contains(#"<span class="number">3</span> users"#))
            #expect(dashboard.contains(#"<span class="number">1</span> photo</li>"#), "one photo, in the singular")
            #expect(dashboard.contains(#"<span class="number">1</span> failed sign-in in the last 24 hours"#))
            #expect(dashboard.contains(#"<span class="number">3</span> sign-ins in the last 24 hours"#), "the admin's, Grace's and Alan's after signing up")

            let byName = try await admin.get("/admin/users?q=HOPPER").text
            #expect(byName.contains("grace.hopper@navy.example") && !byName.contains("alan@bletchley.example"))
            #expect(byName.contains("<td>1</td>"), "photo count")
            let byEmail = try await admin.get("/admin/users?q=Bletch").text
            #expect(byEmail.contains("Alan Turing") && !byEmail.contains("Grace Hopper"))
            #expect(try await admin.get("/admin/users?q=%25").text.contains("No users match."), "LIKE wildcards are literal")

            let newest = try await admin.get("/admin/users?sort=newest").text
            let oldest = try await admin.get("/admin/users?sort=oldest").text
            let alanFirstWhenNewest = newest.range(of: "Alan Turing")!.lowerBound < newest.range(of: "Grace Hopper")!.lowerBound
            let graceFirstWhenOldest = oldest.range(of: "Grace Hopper")!.lowerBound < oldest.range(of: "Alan Turing")!.lowerBound
            #expect(alanFirstWhenNewest && graceFirstWhenOldest)
        }
    }

    @Test("disable ends live sessions and tokens at once and blocks sign-in; enable lets them back")
    func disable() async throws {
        try await withTestApp { app in
            let admin = try await app.signedInAdmin()
            let email = uniqueEmail("target")
            let browser = app.browser()
            try await browser.signUp(email: email)
            let token = try await app.api.signedInUser(email: uniqueEmail("unused"))
            _ = token
            let apiToken = try #require(try await app.api.signIn(email: email).json()["api_authtoken"] as? String)
            let id = try await app.userID(email)

            let confirm = try await admin.get("/admin/users/\(id)/disable")
            #expect(confirm.text.contains("Disable account?"))
            let done = try await admin.submit("/admin/users/\(id)/disable", from: "/admin/users/\(id)/disable", [])
            #expect(done.location == "/admin/users/\(id)?notice=user-updated")

            #expect(try await browser.get("/account").status == .seeOther, "the live session died")
            #expect(try await app.api.getPhotos(token: apiToken).status == .unauthorized, "the live token died")
            #expect(try await app.browser().signIn(email: email).status == .unauthorized)
            #expect(try await app.api.signIn(email: email).status == .unauthorized)
            #expect(try await admin.get("/admin/users/\(id)").text.contains("disabled"))

            try await admin.submit("/admin/users/\(id)/enable", from: "/admin/users/\(id)/enable", [])
            #expect(try await app.browser().signIn(email: email).status == .seeOther)
        }
    }

    @Test("an admin action and its audit event commit together: no event, no change")
    func auditedInTheSameTransaction() async throws {
        try await withTestApp { app in
            let admin = try await app.signedInAdmin()
            let email = uniqueEmail()
            try await app.browser().signUp(email: email)
            let id = try await app.userID(email)
            try await app.db { client in
                try await client.query("CREATE FUNCTION refuse_event() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'audit down'; END $$")
                try await client.query(
                    "CREATE TRIGGER refuse_event BEFORE INSERT ON audit_events FOR EACH ROW WHEN (NEW.event = 'admin.user_disabled') EXECUTE FUNCTION refuse_event()"
                )
            }
            let response = try await admin.submit("/admin/users/\(id)/disable", from: "/admin/users/\(id)/disable", [])
            #expect(response.status == .internalServerError)
            let disabled: Bool = try await app.scalar("SELECT disabled FROM users WHERE id = \(id)")
            #expect(disabled == false, "the change rolled back with its event")
            #expect(try await app.browser().signIn(email: email).status == .seeOther)
        }
    }

    @Test("revoking access ends sessions and tokens but the user can sign in again")
    func revokeAccess() async throws {
        try await withTestApp { app in
            let admin = try await app.signedInAdmin()
            let email = uniqueEmail()
            let browser = app.browser()
            try await browser.signUp(email: email)
            let token = try #require(try await app.api.signIn(email: email).json()["api_authtoken"] as? String)
            let id = try await app.userID(email)
            let page = try await admin.get("/admin/users/\(id)").text
            #expect(page.contains("API token (app key test-app)") && page.contains("Chrome on Linux"))
            try await admin.submit("/admin/users/\(id)/revoke-access", from: "/admin/users/\(id)/revoke-access", [])
            #expect(try await browser.get("/account").status == .seeOther)
            #expect(try await app.api.getPhotos(token: token).status == .unauthorized)
            #expect(try await app.browser().signIn(email: email).status == .seeOther)
        }
    }

    @Test("deleting a user removes their rows and their blobs")
    func deleteUser() async throws {
        try await withTestApp { app in
            let admin = try await app.signedInAdmin()
            let email = uniqueEmail("leaving")
            let browser = app.browser()
            try await browser.signUp(email: email)
            try await browser.upload(image: TestImage.jpeg())
            try await browser.upload(image: TestImage.png())
            try await app.api.signIn(email: email)
            let id = try await app.userID(email)
            #expect(app.filesInBlobStore().count == 8, "two photos, each with three renditions")

            let response = try await admin.submit("/admin/users/\(id)/delete", from: "/admin/users/\(id)/delete", [])
            #expect(response.location == "/admin/users?notice=user-deleted")
            for table in ["users", "photos", "web_sessions", "api_tokens"] {
                let column = table == "users" ? "id" : "user_id"
                let left: Int = try await app.scalar("SELECT count(*)::int FROM \(unescaped: table) WHERE \(unescaped: column) = \(id)")
                #expect(left == 0, "\(table)")
            }
            #expect(app.filesInBlobStore().isEmpty)
            #expect(try await browser.get("/gallery").status == .seeOther)
            #expect(try await app.auditCount("admin.user_deleted", target: id) == 1, "the record outlives the account")
        }
    }

    @Test("deleting a user removes their objects from an S3 store", arguments: S3Peer.allCases)
    func deleteUserOnS3(peer: S3Peer) async throws {
        let bucket = try await peer.makeBucket()
        try await withTestApp(configure: { $0.blobStore = .s3(bucket) }) { app in
            let admin = try await app.signedInAdmin()
            let email = uniqueEmail()
            let browser = app.browser()
            try await browser.signUp(email: email)
            try await browser.upload(image: TestImage.jpeg())
            #expect(try await app.blobs.list().count == 4, "the original and three renditions")
            let id = try await app.userID(email)
            try await admin.submit("/admin/users/\(id)/delete", from: "/admin/users/\(id)/delete", [])
            #expect(try await app.blobs.list().isEmpty)
            #expect(try await app.photoCount() == 0)
        }
    }

    @Test("the last admin cannot be disabled, demoted or deleted; with a second admin they can")
    func lastAdmin() async throws {
        try await withTestApp { app in
            let email = uniqueEmail("only")
            let admin = try await app.signedInAdmin(email: email)
            let id = try await app.userID(email)
            for action in ["disable", "demote", "delete"] {
                let response = try await admin.submit("/admin/users/\(id)/\(action)", from: "/admin/users/\(id)/\(action)", [])
                #expect(response.status == .conflict, "\(action)")
                #expect(response.text.contains("is the last administrator"))
            }
            let role: String = try await app.scalar("SELECT role FROM users WHERE id = \(id)")
            #expect(role == "admin")

            let second = uniqueEmail("second")
            try await app.browser().signUp(email: second)
            try await app.confirmAddress(of: second)
            let secondID = try await app.userID(second)
            try await admin.submit("/admin/users/\(secondID)/promote", from: "/admin/users/\(secondID)/promote", [])
            let demoted = try await admin.submit("/admin/users/\(id)/demote", from: "/admin/users/\(id)/demote", [])
            #expect(demoted.location == "/gallery")
            #expect(try await admin.get("/admin").status == .forbidden, "no longer an admin")
        }
    }

    @Test("a disabled admin is not counted: the only enabled admin still cannot disable, demote or delete themself")
    func disabledAdminNotCounted() async throws {
        try await withTestApp { app in
            let email = uniqueEmail("only-enabled")
            let admin = try await app.signedInAdmin(email: email)
            let id = try await app.userID(email)
            let other = uniqueEmail("disabled-admin")
            try await app.browser().signUp(email: other)
            try await app.db { try await $0.query("UPDATE users SET role = 'admin', disabled = true WHERE email = \(other)") }
            for action in ["disable", "demote", "delete"] {
                let response = try await admin.submit("/admin/users/\(id)/\(action)", from: "/admin/users/\(id)/\(action)", [])
                #expect(response.status == .conflict, "\(action)")
            }
            let role: String = try await app.scalar("SELECT role FROM users WHERE id = \(id) AND NOT disabled")
            #expect(role == "admin")
        }
    }

    @Test("an admin demoted or disabled while their action waits is refused when it runs (403, nothing changed, nothing audited)", arguments: ["role = 'user'", "disabled = true"])
    func demotedWhileActing(change: String) async throws {
        try await withTestApp { app in
            _ = try await app.signedInAdmin()
            let second = uniqueEmail("second-admin")
            let acting = try await app.signedInAdmin(email: second)
            let actingID = try await app.userID(second)
            let email = uniqueEmail("target")
            try await app.browser().signUp(email: email)
            let targetID = try await app.userID(email)
            _ = try await acting.get("/admin/users/\(targetID)/disable")  // the page is read before the race

            // The second admin's request has passed its admin check and waits to write; the first
            // admin's demotion of them commits first.
            let answer = try await app.racing({
                try await acting.submit("/admin/users/\(targetID)/disable", from: "/admin/users/\(targetID)/disable", [])
            }, holdingUser: actingID) { connection in
                try await connection.query("UPDATE users SET \(unescaped: change) WHERE id = \(actingID)", logger: testLogger)
            }
            #expect(answer.status == .forbidden, "\(answer.status)")
            let disabled: Bool = try await app.scalar("SELECT disabled FROM users WHERE id = \(targetID)")
            #expect(!disabled)
            #expect(try await app.auditCount("admin.user_disabled", target: targetID) == 0)
        }
    }

    /// What a demoted admin's in-flight request tries, on their own account or another's.
    enum LateAction: String, CaseIterable, CustomTestStringConvertible {
        case promoteSelf, quotaOnSelf, revokeOwnAccess, resetTwoFactor, sendResetLink, revokeLinks, createAppKey, revokeAppKey

        var testDescription: String { rawValue }

        /// The form to post, from the page it is on, for the acting admin `me` and another user `other`.
        func form(me: Int64, other: Int64) -> (action: String, page: String, fields: [(String, String)]) {
            switch self {
            case .promoteSelf: ("/admin/users/\(me)/promote", "/admin/users/\(me)/promote", [])
            case .quotaOnSelf: ("/admin/users/\(me)/quota", "/admin/users/\(me)", [("quota", "none")])
            case .revokeOwnAccess: ("/admin/users/\(me)/revoke-access", "/admin/users/\(me)/revoke-access", [])
            case .resetTwoFactor: ("/admin/users/\(other)/reset-two-factor", "/admin/users/\(other)/reset-two-factor", [])
            case .sendResetLink: ("/admin/users/\(other)/send-reset-link", "/admin/users/\(other)/send-reset-link", [])
            case .revokeLinks: ("/admin/users/\(other)/revoke-links", "/admin/users/\(other)/revoke-links", [])
            case .createAppKey: ("/admin/api-keys", "/admin/api-keys", [("name", "late-key")])
            case .revokeAppKey: ("/admin/api-keys/early-key/revoke", "/admin/api-keys/early-key/revoke", [])
            }
        }

        /// Whether what the action would have changed is as it was.
        func leftAlone(_ app: TestApp, me: Int64, other: Int64) async throws -> Bool {
            switch self {
            case .promoteSelf: try await app.scalar("SELECT role FROM users WHERE id = \(me)", as: String.self) == "user"
            case .quotaOnSelf: try await app.scalar("SELECT quota_bytes IS NULL FROM users WHERE id = \(me)", as: Bool.self)
            case .revokeOwnAccess: try await app.scalar("SELECT count(*)::int FROM web_sessions WHERE user_id = \(me)", as: Int.self) > 0
            case .resetTwoFactor: try await app.auditCount("admin.two_factor_reset") == 0
            case .sendResetLink: try await app.scalar("SELECT count(*)::int FROM email_tokens WHERE user_id = \(other) AND purpose = 'reset_password'", as: Int.self) == 0
            case .revokeLinks: try await app.auditCount("admin.share_links_revoked") == 0
            case .createAppKey: try await app.scalar("SELECT count(*)::int FROM app_keys WHERE name = 'late-key'", as: Int.self) == 0
            case .revokeAppKey: try await app.scalar("SELECT revoked_at IS NULL FROM app_keys WHERE name = 'early-key'", as: Bool.self)
            }
        }
    }

    @Test("an admin demoted while their action waits cannot act once it runs, on their own account or another's", arguments: LateAction.allCases)
    func demotedWhileActingAgain(_ late: LateAction) async throws {
        try await withTestApp { app in
            let first = try await app.signedInAdmin()
            _ = try await first.submit("/admin/api-keys", from: "/admin/api-keys", [("name", "early-key")])
            let second = uniqueEmail("second-admin")
            let acting = try await app.signedInAdmin(email: second)
            let me = try await app.userID(second)
            let email = uniqueEmail("target")
            try await app.browser().signUp(email: email)
            let other = try await app.userID(email)
            let form = late.form(me: me, other: other)
            let auditedBefore: Int64 = try await app.scalar("SELECT coalesce(max(id), 0) FROM audit_events")

            let request = try await app.db { client in
                try await client.transaction(logger: testLogger) { connection in
                    try await connection.query("SELECT id FROM users WHERE id = \(me) FOR UPDATE", logger: testLogger)
                    let request = Task { try await acting.submit(form.action, from: form.page, form.fields) }
                    try await TestApp.untilSomeoneWaitsForALock(client)
                    try await connection.query("UPDATE users SET role = 'user' WHERE id = \(me)", logger: testLogger)
                    return request
                }
            }
            let answer = try await request.value
            #expect(answer.status == .forbidden, "\(answer.status)")
            #expect(try await late.leftAlone(app, me: me, other: other))
            let audited: Int = try await app.scalar("SELECT count(*)::int FROM audit_events WHERE id > \(auditedBefore) AND actor_id = \(me)")
            #expect(audited == 0)
        }
    }

    @Test("attack: an account whose address is not confirmed cannot be made an admin (whoever typed boss@ first would be), on the page or the command line; once confirmed it can")
    func promotionNeedsAConfirmedAddress() async throws {
        try await withTestApp { app in
            let admin = try await app.signedInAdmin()
            let claimed = uniqueEmail("boss")
            try await app.browser().signUp(email: claimed)
            let id = try await app.userID(claimed)
            let refused = try await admin.submit("/admin/users/\(id)/promote", from: "/admin/users/\(id)/promote", [])
            #expect(refused.status == .conflict, "\(refused.status)")
            #expect(refused.text.contains("has not confirmed its address"), "\(refused.text)")
            let commands = AdminCommands(config: app.config, logger: testLogger)
            await #expect(throws: AdminCommandError.self) { try await commands.setRole(.admin, email: claimed) }
            let role: String = try await app.scalar("SELECT role FROM users WHERE id = \(id)")
            #expect(role == "user")
            #expect(try await app.auditCount("admin.user_promoted", target: id) == 0)

            try await app.confirmAddress(of: claimed)
            #expect(try await commands.setRole(.admin, email: claimed) == ["\(claimed) is now an admin."])
        }
    }

    @Test("no user-facing form or API field can set a role")
    func roleCannotBeSetByUsers() async throws {
        try await withTestApp { app in
            let email = uniqueEmail("sneaky")
            try await app.browser().submit(
                "/signup",
                from: "/signup",
                [("full_name", "Sneaky"), ("email", email), ("password", "long enough 1"), ("password_confirmation", "long enough 1"), ("role", "admin")]
            )
            let apiEmail = uniqueEmail("sneaky-api")
            let response = try await app.api.send(
                .post,
                "/api/signup",
                body: "{\"full_name\":\"Sneaky\",\"email\":\"\(apiEmail)\",\"password\":\"\(app.api.encrypt("long enough 1"))\",\"role\":\"admin\"}",
                authorization: app.api.basicAuthorization
            )
            #expect(response.status == .ok)
            let admins: Int = try await app.scalar("SELECT count(*)::int FROM users WHERE role = 'admin'")
            #expect(admins == 0)
        }
    }

    @Test("selfie admin create / promote / demote, and their refusals")
    func commandLine() async throws {
        try await withTestApp { app in
            let commands = AdminCommands(config: app.config, logger: testLogger)
            let generated = try await commands.create(email: "boss@example.com", name: nil, password: nil)
            #expect(generated[0] == "Created admin boss@example.com (boss).")
            let password = try #require(generated[1].firstCapture(of: #"shown only now\): (\S+)$"#))
            #expect(try await app.browser().signIn(email: "boss@example.com", password: password).status == .seeOther)

            await #expect(throws: AdminCommandError.self) { try await commands.create(email: "not-an-email", name: "X", password: "long enough 1") }
            await #expect(throws: AdminCommandError.self) { try await commands.create(email: "BOSS@example.com", name: "X", password: "long enough 1") }
            await #expect(throws: AdminCommandError.self) { try await commands.create(email: "x@example.com", name: "X", password: "short") }
            await #expect(throws: AdminCommandError.self) { try await commands.setRole(.admin, email: "nobody@example.com") }
            do {
                _ = try await commands.setRole(.user, email: "boss@example.com")
                Issue.record("demoting the last admin must fail")
            } catch let error as AdminCommandError {
                #expect(error.description == "boss@example.com is the last administrator. Promote someone else first.")
            }

            try await app.browser().signUp(email: "helper@example.com")
            try await app.confirmAddress(of: "helper@example.com")
            #expect(try await commands.setRole(.admin, email: "Helper@Example.com") == ["helper@example.com is now an admin."])
            #expect(try await commands.setRole(.user, email: "boss@example.com") == ["boss@example.com is no longer an admin."])
            #expect(try await app.auditCount("admin.user_created") == 1)
            #expect(try await app.auditCount("admin.user_promoted") == 1)
        }
    }

    @Test("a second app key works for signup and signin until it is revoked; its tokens decrypt with it")
    func secondAppKey() async throws {
        try await withTestApp { app in
            let admin = try await app.signedInAdmin()
            let created = try await admin.submit("/admin/api-keys", from: "/admin/api-keys", [("name", "android-app")])
            #expect(created.status == .ok)
            let password = try #require(created.text.firstCapture(of: #"<dt>Password</dt><dd><code>([^<]+)</code>"#))
            #expect(try await admin.get("/admin/api-keys").text.contains(password) == false, "shown once only")
            let stored: String = try await app.scalar("SELECT encode(password_digest, 'hex') FROM app_keys WHERE name = 'android-app'")
            #expect(!stored.contains(password))

            var android = app.api
            android.appKeyName = "android-app"
            android.appKeyPassword = password
            let email = uniqueEmail("droid")
            #expect(try await android.signUp(email: email).status == .ok)
            let token = try #require(try await android.signIn(email: email).json()["api_authtoken"] as? String)
            // reset_password decrypts with the key the token was issued through
            let reset = try await android.send(
                .post,
                "/api/reset_password",
                body: "{\"old_password\":\"\(android.encrypt("correct horse battery"))\",\"new_password\":\"\(android.encrypt("another password 2"))\"}",
                authorization: "Token token=\(token)"
            )
            #expect(reset.status == .ok)
            #expect(try await admin.get("/admin/api-keys").text.contains("never") == true, "the environment key is unused so far")

            try await admin.submit("/admin/api-keys/android-app/revoke", from: "/admin/api-keys/android-app/revoke", [])
            #expect(try await android.signIn(email: email, password: "another password 2").status == .unauthorized)
            #expect(try await android.signUp(email: uniqueEmail()).status == .unauthorized)
            #expect(try await app.api.signUp(email: uniqueEmail()).status == .ok, "the environment key stays valid")

            let duplicate = try await admin.submit("/admin/api-keys", from: "/admin/api-keys", [("name", "android-app")])
            #expect(duplicate.status == .conflict)
            let envName = try await admin.submit("/admin/api-keys", from: "/admin/api-keys", [("name", "test-app")])
            #expect(envName.status == .conflict)
            let badName = try await admin.submit("/admin/api-keys", from: "/admin/api-keys", [("name", "no spaces!")])
            #expect(badName.status == .unprocessableContent)
        }
    }

    @Test("every audited action writes exactly one event with its actor and target; the log filters and is append-only")
    func auditTrail() async throws {
        try await withTestApp { app in
            let admin = try await app.signedInAdmin(email: "root@example.com")
            let adminID = try await app.userID("root@example.com")
            let email = uniqueEmail("audited")
            let browser = app.browser()
            try await browser.signUp(email: email)
            let id = try await app.userID(email)
            try await browser.submit("/signout", from: "/gallery", [])
            try await browser.signIn(email: email, password: "wrong password")
            try await browser.signIn(email: email)
            try await browser.submit(
                "/account/password",
                from: "/account",
                [("current_password", "correct horse battery"), ("new_password", "second password 2"), ("new_password_confirmation", "second password 2")]
            )
            try await browser.upload(image: TestImage.jpeg())
            let photo = try #require(try await browser.galleryPhotos().first)
            try await browser.submit("/photos/\(photo.id)/delete", from: "/photos/\(photo.id)/delete", [])
            let token = try #require(try await app.api.signIn(email: email, password: "second password 2").json()["api_authtoken"] as? String)
            try await app.api.send(.get, "/api/clear_token", authorization: "Token token=\(token)")
            try await admin.submit("/admin/users/\(id)/disable", from: "/admin/users/\(id)/disable", [])
            try await admin.submit("/admin/users/\(id)/enable", from: "/admin/users/\(id)/enable", [])
            try await app.confirmAddress(of: email)
            try await admin.submit("/admin/users/\(id)/promote", from: "/admin/users/\(id)/promote", [])
            try await admin.submit("/admin/users/\(id)/demote", from: "/admin/users/\(id)/demote", [])
            try await admin.submit("/admin/users/\(id)/revoke-access", from: "/admin/users/\(id)/revoke-access", [])

            let expected: [(String, Int64?, Int64)] = [
                ("user.signed_up", id, id), ("session.signed_out", id, id), ("sign_in.failed", nil, id),
                ("password.changed", id, id), ("photo.uploaded", id, id), ("photo.deleted", id, id),
                ("token.issued", id, id), ("token.revoked", id, id), ("admin.user_disabled", adminID, id),
                ("admin.user_enabled", adminID, id), ("admin.user_promoted", adminID, id), ("admin.user_demoted", adminID, id),
                ("admin.sessions_revoked", adminID, id),
            ]
            for (event, actor, _) in expected {
                let all = try await app.auditCount(event, target: id)
                let withActor = try await app.auditCount(event, actor: actor, target: id)
                #expect(all == 1, "\(event): \(all) events")
                if let actor { #expect(withActor == 1, "\(event) actor") }
            }
            // sign-in succeeded three times for this user: after signing up, again in the browser, then the API
            #expect(try await app.auditCount("sign_in.succeeded", actor: id, target: id) == 3)
            let failed: String = try await app.scalar("SELECT ip_address || ' ' || user_agent FROM audit_events WHERE event = 'sign_in.failed'")
            #expect(failed.hasPrefix("127.0.0.1 Mozilla/5.0"))

            let filtered = try await admin.get("/admin/audit?user=\(id)&type=admin.user_disabled").text
            #expect(filtered.contains("<code>admin.user_disabled</code>"))
            #expect(!filtered.contains("<code>photo.uploaded</code>"))
            #expect(filtered.contains("root@example.com"))
            let everything = try await admin.get("/admin/audit?user=\(id)").text
            #expect(everything.contains("<code>photo.uploaded</code>"))
            #expect(try await admin.get("/admin/audit?user=&type=").text.contains("<code>photo.uploaded</code>"), "an empty box is no filter")
            // A filter that cannot apply is refused, not ignored (the whole log under the typed value).
            for typed in ["ada%40example.com", "%2042", "-1"] {
                let refused = try await admin.get("/admin/audit?user=\(typed)")
                #expect(refused.status == .badRequest, "\(typed): \(refused.status)")
                #expect(refused.text.contains("The user parameter must be a whole number"))
            }

            await #expect(throws: (any Error).self) { try await app.db { try await $0.query("DELETE FROM audit_events") } }
            await #expect(throws: (any Error).self) { try await app.db { try await $0.query("UPDATE audit_events SET event = 'x'") } }
        }
    }
}
