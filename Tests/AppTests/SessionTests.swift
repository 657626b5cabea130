@testable import App
@testable import SelfieCore
import Foundation
import HummingbirdTesting
import Testing

@Suite("Sign in, sessions and sign out")
struct SessionTests {
    @Test("wrong password and unknown email get the same answer")
    func signInFailureIsUniform() async throws {
        try await withTestApp { app in
            let email = uniqueEmail()
            try await app.browser().signUp(email: email)

            let wrongPassword = try await app.browser().signIn(email: email, password: "not the password")
            let unknownEmail = try await app.browser().signIn(email: uniqueEmail("nobody"), password: "not the password")
            for response in [wrongPassword, unknownEmail] {
                #expect(response.status == .unauthorized)
                #expect(response.text.contains("The email, username or password is incorrect."))
                #expect(response.setCookieHeader(named: "selfie_session") == nil)
            }
        }
    }

    @Test("signing in works with any letter case of the email and returns to a local `next` page")
    func signInSucceeds() async throws {
        try await withTestApp { app in
            let email = uniqueEmail()
            try await app.browser().signUp(email: email)
            let browser = app.browser()
            let response = try await browser.signIn(email: email.uppercased(), next: "/account")
            #expect(response.status == .seeOther)
            #expect(response.location == "/account")
            #expect(try await browser.get("/account").status == .ok)
        }
    }

    @Test("`next` never leads off the site", arguments: ["//evil.example/x", "https://evil.example", "/\\evil.example", "javascript:alert(1)"])
    func openRedirectRefused(next: String) async throws {
        try await withTestApp { app in
            let email = uniqueEmail()
            try await app.browser().signUp(email: email)
            let response = try await app.browser().signIn(email: email, next: next)
            #expect(response.location == "/gallery")
        }
    }

    @Test("pages for signed-in users send others to sign in, then back")
    func requiresSignIn() async throws {
        try await withTestApp { app in
            let browser = app.browser()
            let response = try await browser.get("/account")
            #expect(response.status == .seeOther)
            #expect(response.location == "/signin?next=%2Faccount")
            let root = try await browser.get("/")
            #expect(root.location == "/signin")
        }
    }

    @Test("the session id is new at sign-in: a planted session cookie is ended, never adopted")
    func sessionRotation() async throws {
        try await withTestApp { app in
            let victimEmail = uniqueEmail("victim")
            try await app.browser().signUp(email: victimEmail)
            // The attacker holds a real session of their own and plants its cookie in the victim's browser.
            let attacker = app.browser()
            try await attacker.signUp(email: uniqueEmail("attacker"))
            let planted = try #require(attacker.cookies["selfie_session"])

            let victim = app.browser()
            victim.setCookie("selfie_session", planted)
            try await victim.submit("/signin", from: "/account", [("email", victimEmail), ("password", "correct horse battery")])
            let issued = try #require(victim.cookies["selfie_session"])
            #expect(issued != planted)
            #expect(try await victim.get("/account").text.contains(victimEmail))

            // the planted session was ended, so the attacker's cookie now signs nobody in
            #expect(try await attacker.get("/account").status == .seeOther)
        }
    }

    @Test("a session cannot be started with a password hash that is no longer current")
    func sessionNeedsCurrentPassword() async throws {
        try await withTestApp { app in
            let email = uniqueEmail()
            let browser = app.browser()
            try await browser.signUp(email: email, password: "first password 1")
            let (id, oldHash): (Int64, String) = try await app.db { client in
                for try await row in try await client.query("SELECT id, password_hash FROM users").decode((Int64, String).self) {
                    return row
                }
                throw TestSetupError("no user")
            }
            try await browser.submit(
                "/account/password",
                from: "/account",
                [("current_password", "first password 1"), ("new_password", "second password 2"), ("new_password_confirmation", "second password 2")]
            )
            // A sign-in that verified the old password just before the change lands now:
            let started = try await app.db { client in
                try await WebSessionRepository(client: client, preparedStatements: true, access: AccessCache(lifetime: .zero), logger: testLogger).create(
                    userID: id,
                    passwordHash: oldHash,
                    tokenHash: Array(repeating: 7, count: 32),
                    userAgent: "",
                    ipAddress: "",
                    expiresAt: .now.addingTimeInterval(3600),
                    confirmed: true
                )
            }
            #expect(started == false)
            let sessions: Int = try await app.scalar("SELECT count(*)::int FROM web_sessions")
            #expect(sessions == 1, "only the browser that changed the password")
        }
    }

    @Test("a form from a page whose session has ended leads to sign-in, not to an error")
    func staleSessionForm() async throws {
        try await withTestApp { app in
            let browser = app.browser()
            try await browser.signUp(email: uniqueEmail())
            let token = try await browser.csrfToken(on: "/account")
            try await app.db { try await $0.query("DELETE FROM web_sessions") }
            let response = try await browser.post("/account/sessions/end-others", form: [("_csrf", token)])
            #expect(response.status == .seeOther)
            #expect(response.location == "/signin?next=%2F")
        }
    }

    @Test("the session cookie is HttpOnly, SameSite=Lax, and holds no database id")
    func cookieAttributes() async throws {
        try await withTestApp { app in
            let response = try await app.browser().signUp(email: uniqueEmail())
            let header = try #require(response.setCookieHeader(named: "selfie_session"))
            #expect(header.contains("HttpOnly"))
            #expect(header.contains("SameSite=Lax"))
            #expect(header.contains("Path=/"))
            #expect(!header.contains("Secure"), "plain http in tests")
            // stored only as its SHA-256: the hash finds the row, the token itself is nowhere
            let token = String(header.split(separator: ";")[0].dropFirst("selfie_session=".count))
            #expect(token.count == 43, "256 random bits, base64url")
            let byHash: Int = try await app.scalar(
                "SELECT count(*)::int FROM web_sessions WHERE token_hash = sha256(convert_to(\(token), 'UTF8'))"
            )
            #expect(byHash == 1)
            let plaintext: Int = try await app.scalar(
                "SELECT count(*)::int FROM web_sessions s WHERE position(\(token) IN s::text) > 0"
            )
            #expect(plaintext == 0)
        }
    }

    @Test("with an https PUBLIC_URL the cookies are Secure")
    func secureCookies() async throws {
        try await withTestApp(configure: { $0.publicURL = URL(string: "https://selfie.example")! }) { app in
            let response = try await app.browser().signUp(email: uniqueEmail())
            #expect(response.setCookieHeader(named: "selfie_session")?.contains("Secure") == true)
            // The visitor cookie comes with a browser's first page (the sign-up above read its pages first).
            let first = try await app.browser().get("/signin")
            #expect(first.setCookieHeader(named: "selfie_visitor")?.contains("Secure") == true)
        }
    }

    @Test("sign-out ends the session on the server: replaying the old cookie is refused")
    func signOutKillsSession() async throws {
        try await withTestApp { app in
            let browser = app.browser()
            try await browser.signUp(email: uniqueEmail())
            let oldCookie = try #require(browser.cookies["selfie_session"])

            let response = try await browser.submit("/signout", from: "/account", [])
            #expect(response.status == .seeOther)
            #expect(response.location == "/signin?notice=signed-out")
            #expect(browser.cookies["selfie_session"] == nil, "the cookie is cleared")
            #expect(try await browser.get("/signin?notice=signed-out").text.contains("You are signed out."))

            let replay = app.browser()
            replay.setCookie("selfie_session", oldCookie)
            let account = try await replay.get("/account")
            #expect(account.status == .seeOther)
            #expect(account.setCookieHeader(named: "selfie_session")?.contains("Max-Age=0") == true)
            let sessions: Int = try await app.scalar("SELECT count(*)::int FROM web_sessions")
            #expect(sessions == 0)
        }
    }

    @Test("expired sessions are not honoured")
    func expiredSession() async throws {
        try await withTestApp { app in
            let browser = app.browser()
            try await browser.signUp(email: uniqueEmail())
            try await app.db { try await $0.query("UPDATE web_sessions SET expires_at = now() - interval '1 second'") }
            #expect(try await browser.get("/account").status == .seeOther)
        }
    }

    @Test("a disabled user's sessions stop working and they cannot sign in")
    func disabledUser() async throws {
        try await withTestApp { app in
            let email = uniqueEmail()
            let browser = app.browser()
            try await browser.signUp(email: email)
            try await app.db { try await $0.query("UPDATE users SET disabled = true WHERE email = \(email)") }
            #expect(try await browser.get("/account").status == .seeOther)
            #expect(try await app.browser().signIn(email: email).status == .unauthorized)
        }
    }

    @Test("a disabled account with two-step on is refused at its password (web and API): no code step, which would tell the password was right, and no sign-in recorded")
    func disabledWithTwoStep() async throws {
        try await withTestApp { app in
            let (email, _, _, _) = try await app.ownerWithTwoStep()
            let succeeded: Int = try await app.scalar("SELECT count(*)::int FROM audit_events WHERE event = 'sign_in.succeeded' AND target = \(email)")
            try await app.db { try await $0.query("UPDATE users SET disabled = true WHERE email = \(email)") }
            let signIn = try await app.browser().signIn(email: email)
            #expect(signIn.status == .unauthorized && signIn.location == nil)
            let api = try await app.api.signIn(email: email)
            #expect(api.status == .unauthorized && !api.text.contains("otp_required"))
            #expect(try await app.scalar("SELECT count(*)::int FROM audit_events WHERE event = 'sign_in.failed' AND target = \(email)") == 2)
            #expect(try await app.scalar("SELECT count(*)::int FROM audit_events WHERE event = 'sign_in.succeeded' AND target = \(email)") == succeeded)
        }
    }

    @Test("a disabled account's parked two-step sign-in and its passkey are refused: no code page, no session")
    func disabledOtherWaysIn() async throws {
        try await withTestApp { app in
            let (email, owner, authenticator, _) = try await app.ownerWithTwoStep()
            let passkey = TestPasskey()
            #expect(try await passkey.add(in: owner).location == "/account?notice=passkey-added")
            let parked = app.browser()
            #expect(try await parked.signIn(email: email).location == "/signin/code")
            let userID = try await app.userID(email)
            let sessions: Int = try await app.scalar("SELECT count(*)::int FROM web_sessions WHERE user_id = \(userID)")
            try await app.db { try await $0.query("UPDATE users SET disabled = true WHERE id = \(userID)") }

            #expect(try await parked.get("/signin/code").location == "/signin?notice=sign-in-expired")
            let code = try await parked.submit("/signin/code", from: "/signin", [("code", authenticator.code(offset: 1))])
            #expect(code.location == "/signin?notice=sign-in-expired", "\(code.status) \(code.location ?? "")")
            let withPasskey = app.browser()
            let signIn = try await passkey.signIn(in: withPasskey)
            #expect(signIn.status == .unauthorized, "\(signIn.status) \(signIn.text)")
            #expect(try await withPasskey.get("/gallery").status == .seeOther)
            #expect(try await app.scalar("SELECT count(*)::int FROM web_sessions WHERE user_id = \(userID)") == sessions)
            #expect(try await app.auditCount("passkey.signed_in") == 0, "no sign-in recorded for a disabled account")
        }
    }

    @Test("a passkey sign-in that read the counter before another moved it records nothing (the counter's SQL half: two assertions of a cloned authenticator at once sign in once)")
    func passkeyCounterMovedMeanwhile() async throws {
        try await withTestApp { app in
            let email = uniqueEmail("clone")
            let owner = app.browser()
            try await owner.signUp(email: email)
            try await app.confirmAddress(of: email)
            let passkey = TestPasskey()
            #expect(try await passkey.add(in: owner).location == "/account?notice=passkey-added")
            let first = try await passkey.signIn(in: app.browser())
            #expect(first.status == .seeOther && first.location == "/gallery", "\(first.status) \(first.location ?? "")")
            let id: Int64 = try await app.scalar("SELECT id FROM passkeys")
            let moved: Int64 = try await app.scalar("SELECT sign_count FROM passkeys")
            #expect(moved > 0)
            try await app.db { client async throws in
                let passkeys = PasskeyRepository(client: client, scopedLogger: ScopedLogger(testLogger))
                let read = UInt32(moved - 1)  // what the other sign-in read before this one's counter was recorded
                #expect(try await passkeys.recordUse(id: id, previousCount: read, newCount: UInt32(moved), isBackedUp: false) == false)
                #expect(try await passkeys.recordUse(id: id, previousCount: UInt32(moved), newCount: UInt32(moved + 1), isBackedUp: false))
            }
        }
    }

    @Test("race: an account disabled while its password is being checked gets no session (web) and no token (API)")
    func disabledDuringSignIn() async throws {
        try await withTestApp { app in
            let email = uniqueEmail()
            try await app.browser().signUp(email: email)
            let userID: Int64 = try await app.scalar("SELECT id FROM users WHERE email = \(email)")
            let sessions: Int = try await app.scalar("SELECT count(*)::int FROM web_sessions WHERE user_id = \(userID)")
            let tokens: Int = try await app.scalar("SELECT count(*)::int FROM api_tokens WHERE user_id = \(userID)")
            // The sign-in waits on the user's row after its password was found right (recording the sign-in).
            let web = try await app.racing({ try await app.browser().signIn(email: email) }, holdingUser: userID) { connection in
                try await connection.query("UPDATE users SET disabled = true WHERE id = \(userID)", logger: testLogger)
            }
            #expect(web.status == .unauthorized)
            try await app.db { try await $0.query("UPDATE users SET disabled = false WHERE id = \(userID)") }
            let api = try await app.racing({ try await app.api.signIn(email: email) }, holdingUser: userID) { connection in
                try await connection.query("UPDATE users SET disabled = true WHERE id = \(userID)", logger: testLogger)
            }
            #expect(api.status == .unauthorized)
            #expect(try await app.scalar("SELECT count(*)::int FROM web_sessions WHERE user_id = \(userID)") == sessions, "no session to come back with")
            #expect(try await app.scalar("SELECT count(*)::int FROM api_tokens WHERE user_id = \(userID)") == tokens, "no token to come back with")
        }
    }
}
