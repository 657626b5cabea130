@testable import App
@testable import SelfieCore
import FakeProviders
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

/// "Confirm it's you": a session that signed in more than ten minutes ago (a browser left open, a
/// stolen cookie) cannot make sensitive changes without the password, or for an account without
/// one, a new sign-in.
@Suite("Confirm it's you")
struct StepUpTests {
    @Test("attack: a stolen session cannot add a passkey with only a CSRF token")
    func stolenSessionCannotAddPasskey() async throws {
        try await withTestApp { app in
            let email = uniqueEmail("owner")
            let stolen = app.browser()
            try await stolen.signUp(email: email)
            try await app.confirmAddress(of: email)
            try await app.ageSignIns(of: email, minutes: 11)

            let refused = try await TestPasskey().add(in: stolen)
            #expect(refused.status == .seeOther, "no creation options for a session that signed in 11 minutes ago")
            #expect(refused.location?.hasPrefix("/account/confirm?next=") == true)
            #expect(try await app.scalar("SELECT count(*)::int FROM passkeys") == 0)
        }
    }

    @Test("attack: an account made through a provider cannot set a first password with a session alone")
    func passwordlessAccountNeedsARecentSignIn() async throws {
        try await withFakeProviders { app, fake in
            fake.setPerson(.init(subject: "step-up-1", email: "sam.stepup@example.com", emailVerified: true, name: "Sam"))
            let stolen = app.browser()
            let callback = try await SocialSignInWebTests().goThroughProvider(stolen, start: "/auth/google/start", from: "/signin")
            #expect(try await stolen.get(callback).status == .seeOther)
            try await app.ageSignIns(of: "sam.stepup@example.com", minutes: 11)

            let set = try await stolen.submit(
                "/account/password", from: "/account",
                [("new_password", "attacker password"), ("new_password_confirmation", "attacker password")]
            )
            #expect(set.status == .seeOther)
            #expect(set.location?.hasPrefix("/account/confirm?next=") == true)
            let hasPassword: Bool = try await app.scalar("SELECT password_hash IS NOT NULL FROM users WHERE email = 'sam.stepup@example.com'")
            #expect(!hasPassword, "no password was set")
            #expect(try await app.browser().signIn(email: "sam.stepup@example.com", password: "attacker password").status == .unauthorized)
        }
    }

    @Test("“confirm it's you”: the password again (a wrong one refused), then back where the person was; the change is mailed")
    func confirmWithThePassword() async throws {
        try await withTestApp(configure: { try $0.useMailSink() }) { app in
            let email = uniqueEmail("confirming")
            let owner = app.browser()
            try await owner.signUp(email: email)
            try await app.confirmAddress(of: email)
            try await app.ageSignIns(of: email, minutes: 11)

            let export = try await owner.get("/account/export")
            #expect(export.location == "/account/confirm?next=%2Faccount%2Fexport", "a GET comes back to itself")
            let page = try await owner.get("/account/confirm?next=%2Faccount%23passkeys")
            #expect(page.status == .ok && page.text.contains("<h1>Confirm it&#39;s you</h1>"))
            let wrong = try await owner.submit("/account/confirm", from: "/account/confirm", [("current_password", "not it"), ("next", "/account#passkeys")])
            #expect(wrong.status == .unprocessableContent)
            let right = try await owner.submit(
                "/account/confirm", from: "/account/confirm", [("current_password", "correct horse battery"), ("next", "/account#passkeys")]
            )
            #expect(right.status == .seeOther && right.location == "/account#passkeys")
            let offsite = try await owner.submit(
                "/account/confirm", from: "/account/confirm", [("current_password", "correct horse battery"), ("next", "https://evil.example/")]
            )
            #expect(offsite.location == "/account", "only local paths")

            let added = try await TestPasskey().add(in: owner)
            #expect(added.location == "/account?notice=passkey-added")
            let mail = try await MailSink.waitForMessage(to: email, subject: "A passkey was added to your Selfie account")
            #expect(mail.text.contains("can sign in without your password"))
        }
    }

    @Test("until the address is confirmed: no passkey, no authenticator app, no linked provider")
    func provenAddressFirst() async throws {
        try await withFakeProviders { app, _ in
            let email = uniqueEmail("unproven")
            let owner = app.browser()
            try await owner.signUp(email: email)
            #expect(try await TestPasskey().add(in: owner).status == .forbidden)
            let setup = try await owner.get("/account/two-factor")
            #expect(setup.status == .forbidden && setup.text.contains("Confirm your email address first"))
            #expect(try await owner.submit("/account/link/google", from: "/account", []).status == .forbidden)
            #expect(try await app.scalar("SELECT count(*)::int FROM totp_factors") == 0)
            try await app.confirmAddress(of: email)
            #expect(try await owner.get("/account/two-factor").status == .ok)
        }
    }

    @Test("with two-step verification on, confirming takes a code as well as the password (else the password alone would let a thief add a passkey and skip the code for good)")
    func confirmWithACode() async throws {
        try await withTestApp { app in
            let email = uniqueEmail("two-step")
            let owner = app.browser()
            try await owner.signUp(email: email)
            try await app.confirmAddress(of: email)
            let (_, recoveryCodes) = try await owner.enrolTOTP()
            try await app.ageSignIns(of: email, minutes: 11)
            let page = try await owner.get("/account/confirm?next=%2Faccount")
            #expect(page.text.contains(#"name="code""#))
            let passwordOnly = try await owner.submit("/account/confirm", from: "/account/confirm", [("current_password", "correct horse battery"), ("next", "/account")])
            #expect(passwordOnly.status == .unprocessableContent)
            #expect(try await TestPasskey().add(in: owner).location?.hasPrefix("/account/confirm") == true, "still not confirmed")
            let withCode = try await owner.submit(
                "/account/confirm", from: "/account/confirm",
                [("current_password", "correct horse battery"), ("code", recoveryCodes[0]), ("next", "/account")]
            )
            #expect(withCode.location == "/account")
            #expect(try await TestPasskey().add(in: owner).location == "/account?notice=passkey-added")
        }
    }

    @Test("a sign-in that a remembered browser let through without the code does not count as confirmed: signing out and in again with the password alone cannot stand in for the code \"confirm it's you\" asks for")
    func rememberedBrowserIsNoConfirmation() async throws {
        try await withTestApp { app in
            let (email, _, authenticator, _) = try await app.ownerWithTwoStep()
            let laptop = app.browser()
            try await laptop.signIn(email: email)
            #expect(try await laptop.submitCode(authenticator.code(offset: 1), remember: true).status == .seeOther)
            // A fresh sign-in with the code counts (the person just gave it).
            #expect(try await TestPasskey().add(in: laptop).location == "/account?notice=passkey-added")

            // Someone with this browser and the password, but not the phone.
            try await app.ageSignIns(of: email, minutes: 11)
            #expect(try await TestPasskey().add(in: laptop).location?.hasPrefix("/account/confirm") == true)
            _ = try await laptop.submit("/signout", from: "/gallery", [])
            #expect(try await laptop.signIn(email: email).location == "/gallery", "remembered: straight in, as before")
            #expect(try await TestPasskey().add(in: laptop).location?.hasPrefix("/account/confirm") == true, "the code is still owed for a change")
            let passkeys: Int = try await app.scalar("SELECT count(*)::int FROM passkeys")
            #expect(passkeys == 1, "only the one added after the code")
        }
    }

    /// Runs `change` (a request of `thief`'s) while the account's row is held, as a remedy holds
    /// it, then does what the remedy does (ends the account's sessions) before letting go.
    private func whileTheSessionsEnd<T: Sendable>(of email: String, app: TestApp, _ change: @escaping @Sendable () async throws -> T) async throws -> T {
        let id = try await app.userID(email)
        return try await app.racing(change, holdingUser: id) { connection in
            try await connection.query("DELETE FROM web_sessions WHERE user_id = \(id)", logger: testLogger)
        }
    }

    @Test("a first password whose request began before its session ended (sign out everywhere, access revoked) is not set: it asks to confirm it's you")
    func firstPasswordWhileTheSessionEnds() async throws {
        try await withTestApp { app in
            let email = uniqueEmail("passwordless")
            let thief = app.browser()
            try await thief.signUp(email: email)
            try await app.db { try await $0.query("UPDATE users SET password_hash = NULL WHERE email = \(email)") }
            let port = try #require(app.client.port)
            let answer = try await whileTheSessionsEnd(of: email, app: app) {
                try await thief.submitOnItsOwnConnection(
                    "/account/password", from: "/account",
                    [("new_password", "attacker password"), ("new_password_confirmation", "attacker password")], port: port
                )
            }
            #expect(answer.status == 303 && answer.head.lowercased().contains("location: /account/confirm?next="), "\(answer.head)")
            let hasPassword: Bool = try await app.scalar("SELECT password_hash IS NOT NULL FROM users WHERE email = \(email)")
            #expect(!hasPassword, "no password was set")
            #expect(try await app.browser().signIn(email: email, password: "attacker password").status == .unauthorized)
        }
    }

    @Test("through the API, a first password whose request began before its token was revoked is not set, and no new token is issued")
    func firstPasswordWhileTheTokenIsRevoked() async throws {
        try await withTestApp { app in
            let email = uniqueEmail("passwordless-app")
            let token = try await app.api.signedInUser(email: email)
            try await app.db { try await $0.query("UPDATE users SET password_hash = NULL WHERE email = \(email)") }
            let id = try await app.userID(email)
            let answer = try await app.racing({
                try await app.api.send(
                    .post, "/api/reset_password",
                    body: "{\"old_password\":\"\(app.api.encrypt(""))\",\"new_password\":\"\(app.api.encrypt("attacker password"))\"}",
                    authorization: "Token token=\(token)"
                )
            }, holdingUser: id) { connection in
                // What revoking access does to the account's tokens.
                try await connection.query("UPDATE api_tokens SET revoked_at = now() WHERE user_id = \(id)", logger: testLogger)
            }
            #expect(answer.status == .forbidden, "\(answer.status) \(answer.text)")
            let hasPassword: Bool = try await app.scalar("SELECT password_hash IS NOT NULL FROM users WHERE email = \(email)")
            #expect(!hasPassword, "no password was set")
            #expect(try await app.scalar("SELECT count(*)::int FROM api_tokens WHERE revoked_at IS NULL") == 0, "no new token")
        }
    }

    @Test("a passkey whose registration began before its session ended is not kept, and does not sign in")
    func passkeyWhileTheSessionEnds() async throws {
        try await withTestApp { app in
            let email = uniqueEmail("owner")
            let thief = app.browser()
            try await thief.signUp(email: email)
            try await app.confirmAddress(of: email)
            let passkey = TestPasskey()
            let registration = try await passkey.registration(in: thief)
            let token = try await thief.csrfToken(on: "/account")
            let answer = try await whileTheSessionsEnd(of: email, app: app) {
                try await thief.send("/account/passkeys", method: .post, body: ByteBuffer(string: registration), contentType: "application/json", extraHeaders: [.csrfToken: token])
            }
            #expect(answer.status == .seeOther && answer.location?.hasPrefix("/account/confirm?next=") == true, "\(answer.status) \(answer.location ?? "")")
            #expect(try await app.scalar("SELECT count(*)::int FROM passkeys") == 0)
            #expect(try await passkey.signIn(in: app.browser()).status == .unauthorized, "the passkey signs no one in")
        }
    }

    @Test("an administrator's changes need a recent proof too; reading the admin pages does not")
    func adminChanges() async throws {
        try await withTestApp { app in
            let adminEmail = uniqueEmail("admin")
            let admin = try await app.signedInAdmin(email: adminEmail)
            let email = uniqueEmail("member")
            try await app.browser().signUp(email: email)
            let userID = try await app.userID(email)
            try await app.ageSignIns(of: adminEmail, minutes: 11)
            #expect(try await admin.get("/admin/users/\(userID)").status == .ok)
            let disable = try await admin.get("/admin/users/\(userID)/disable")
            #expect(disable.location == "/account/confirm?next=%2Fadmin%2Fusers%2F\(userID)%2Fdisable")
            #expect(try await admin.get("/admin/api-keys").location?.hasPrefix("/account/confirm") == true)
            let confirmed = try await admin.submit(
                "/account/confirm", from: "/account/confirm", [("current_password", "admin password 1"), ("next", "/admin/users/\(userID)/disable")]
            )
            #expect(confirmed.location == "/admin/users/\(userID)/disable")
            #expect(try await admin.get("/admin/users/\(userID)/disable").status == .ok)
        }
    }

    @Test("the API's copy of the data needs a token from the last ten minutes")
    func apiExport() async throws {
        try await withTestApp { app in
            let email = uniqueEmail("api-export")
            _ = try await app.api.signUp(email: email)
            let token = try #require(try await app.api.signIn(email: email).json()["api_authtoken"] as? String)
            #expect(try await app.api.send(.get, "/api/export", authorization: "Token token=\(token)").status == .ok)
            try await app.db { try await $0.query("UPDATE api_tokens SET created_at = now() - interval '11 minutes'") }
            let stale = try await app.api.send(.get, "/api/export", authorization: "Token token=\(token)")
            #expect(stale.status == .forbidden)
            #expect(try stale.apiError().message.contains("confirm it's you"))
        }
    }
}
