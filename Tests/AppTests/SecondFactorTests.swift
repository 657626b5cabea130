@testable import App
@testable import SelfieCore
import Base64URLCoding
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import OneTimePassword
import Testing

/// An authenticator app in a test: the secret read off the set-up page, codes computed with RFC 6238.
struct AuthenticatorApp {
    let totp: TOTP

    /// The code for `offset` steps from now (the server accepts ±1 step of clock drift, and each
    /// step only once, so a test that needs several codes in a row takes the next step).
    func code(offset: Int = 0) -> String {
        totp.code(at: Date.now.addingTimeInterval(TimeInterval(offset * totp.period)))
    }
}

extension Browser {
    /// Turns two-step verification on through the account pages; returns the app and the recovery codes.
    func enrolTOTP() async throws -> (app: AuthenticatorApp, recoveryCodes: [String]) {
        let setup = try await get("/account/two-factor").text
        guard let secretText = setup.firstCapture(of: #"id="totp-secret">([A-Z2-7 ]+)<"#),
            let secret = Base32.decode(secretText)
        else { throw TestSetupError("no secret on the set-up page") }
        let app = AuthenticatorApp(totp: try TOTP(secret: secret))
        let answer = try await submit("/account/two-factor", from: "/account/two-factor", [("code", app.code())])
        guard answer.status == .ok else { throw TestSetupError("enrolment refused: \(answer.status) \(answer.text)") }
        let codes = answer.text.recoveryCodes
        return (app, codes)
    }

    /// Answers the code step of a sign-in.
    @discardableResult
    func submitCode(_ code: String, remember: Bool = false) async throws -> TestResponse {
        var fields = [("code", code)]
        if remember { fields.append(("remember", "1")) }
        return try await submit("/signin/code", from: "/signin/code", fields)
    }
}

extension TestApp {
    /// A signed-in owner with a confirmed address and two-step verification on, and its recovery codes.
    func ownerWithTwoStep() async throws -> (email: String, owner: Browser, authenticator: AuthenticatorApp, recoveryCodes: [String]) {
        let email = uniqueEmail()
        let owner = browser()
        try await owner.signUp(email: email)
        try await confirmAddress(of: email)
        let (authenticator, recoveryCodes) = try await owner.enrolTOTP()
        return (email, owner, authenticator, recoveryCodes)
    }
}

extension String {
    /// The recovery codes a page lists (after set-up, or after making new ones).
    var recoveryCodes: [String] { allCaptures(of: #"<li><code>([0-9a-z]{4}-[0-9a-z]{4}-[0-9a-z]{4})</code></li>"#) }

    func allCaptures(of pattern: String) -> [String] {
        guard let regex = try? NSRegularExpression(pattern: pattern) else { return [] }
        return regex.matches(in: self, range: NSRange(startIndex..., in: self)).compactMap { match in
            Range(match.range(at: 1), in: self).map { String(self[$0]) }
        }
    }
}

@Suite("Two-step verification (TOTP)")
struct SecondFactorTests {
    @Test("set-up shows a server-drawn QR code and the key; a wrong code changes nothing; a right one turns it on with ten recovery codes")
    func enrolment() async throws {
        try await withTestApp { app in
            let email = uniqueEmail()
            let browser = app.browser()
            try await browser.signUp(email: email)
            try await app.confirmAddress(of: email)
            #expect(try await browser.get("/account").text.contains("Set up an authenticator app"))

            let setup = try await browser.get("/account/two-factor")
            #expect(setup.status == .ok)
            #expect(setup.text.contains(#"<svg xmlns="http://www.w3.org/2000/svg""#))
            #expect(setup.text.contains("<title>QR code to scan with your authenticator app</title>"))
            #expect(setup.text.contains(#"<label for="code">Code from the app</label>"#))
            let secret = try #require(setup.text.firstCapture(of: #"id="totp-secret">([A-Z2-7 ]+)<"#))
            #expect(try await browser.get("/account/two-factor").text.contains(secret), "a reload shows the same key")
            // On the phone that holds the app, the QR code's URI is a link to it (the same secret).
            let appLink = try #require(setup.text.firstCapture(of: #"<a href="(otpauth://totp/[^"]+)" id="totp-app-link">On this phone\?"#))
            #expect(appLink.contains("secret=\(secret.replacingOccurrences(of: " ", with: ""))&amp;"))

            let wrong = try await browser.submit("/account/two-factor", from: "/account/two-factor", [("code", "000000")])
            #expect(wrong.status == .unprocessableContent)
            #expect(wrong.text.contains("That code is not right"))
            #expect(try await app.scalar("SELECT count(*)::int FROM totp_factors WHERE confirmed_at IS NOT NULL") == 0)

            let authenticator = AuthenticatorApp(totp: try TOTP(secret: try #require(Base32.decode(secret))))
            let confirmed = try await browser.submit("/account/two-factor", from: "/account/two-factor", [("code", authenticator.code())])
            #expect(confirmed.status == .ok)
            let codes = confirmed.text.recoveryCodes
            #expect(codes.count == 10 && Set(codes).count == 10)

            // Stored: the secret sealed (not its bytes), the codes as 32-byte hashes only.
            let sealed: ByteBuffer = try await app.scalar("SELECT secret_sealed FROM totp_factors")
            let secretBytes = try #require(Base32.decode(secret))
            #expect(!Array(buffer: sealed).containsSubsequence(secretBytes))
            #expect(try await app.scalar("SELECT count(*)::int FROM recovery_codes WHERE length(code_hash) = 32 AND used_at IS NULL") == 10)
            #expect(try await app.auditCount("two_factor.enabled") == 1)

            let account = try await browser.get("/account").text
            #expect(account.contains("10 unused recovery codes left."))
            #expect(try await browser.get("/account/two-factor").location == "/account#two-factor", "no second set-up while it is on")
        }
    }

    @Test("the audit log and \"last signed in\" count a sign-in once its code is given: the password alone (web or API) is recorded as \"code asked\", never as signed in")
    func signInRecordedOnceComplete() async throws {
        try await withTestApp { app in
            let (email, _, authenticator, recoveryCodes) = try await app.ownerWithTwoStep()
            let userID = try await app.userID(email)
            let before = try await app.auditCount("sign_in.succeeded", target: userID)
            let lastBefore: Date? = try await app.scalar("SELECT last_signed_in_at FROM users WHERE id = \(userID)")

            // Someone holding the password only: in the browser, and through the API.
            #expect(try await app.browser().signIn(email: email).location == "/signin/code")
            let api = try await app.api.send(
                .post, "/api/signin", body: #"{"email":"\#(email)","password":"\#(app.api.encrypt("correct horse battery"))"}"#, authorization: app.api.basicAuthorization
            )
            #expect(api.status == .unauthorized)
            #expect(try await app.auditCount("sign_in.succeeded", target: userID) == before)
            #expect(try await app.auditCount("sign_in.code_asked", actor: nil, target: userID) == 2)
            let lastAfterPassword: Date? = try await app.scalar("SELECT last_signed_in_at FROM users WHERE id = \(userID)")
            #expect(lastAfterPassword == lastBefore, "the account was not signed in to")

            // The owner, with the code: one sign-in, by them.
            let owner = app.browser()
            _ = try await owner.signIn(email: email)
            #expect(try await owner.submitCode(authenticator.code(offset: 1)).location == "/gallery")
            #expect(try await app.auditCount("sign_in.succeeded", actor: userID, target: userID) == before + 1)
            let target: String = try await app.scalar("SELECT target FROM audit_events WHERE event = 'sign_in.succeeded' ORDER BY id DESC LIMIT 1")
            #expect(target == "\(email), with its code")
            let lastAfterCode: Date? = try await app.scalar("SELECT last_signed_in_at FROM users WHERE id = \(userID)")
            #expect(lastAfterCode != nil && lastAfterCode != lastBefore)

            // The app, sending a code with the password: signed in at once, no code asked of it.
            let asked = try await app.auditCount("sign_in.code_asked", target: userID)
            let withCode = try await app.api.send(
                .post, "/api/signin",
                body: #"{"email":"\#(email)","password":"\#(app.api.encrypt("correct horse battery"))","otp":"\#(recoveryCodes[0])"}"#,
                authorization: app.api.basicAuthorization
            )
            #expect(withCode.status == .ok)
            #expect(try await app.auditCount("sign_in.code_asked", target: userID) == asked)
            #expect(try await app.auditCount("sign_in.succeeded", actor: userID, target: userID) == before + 2)
        }
    }

    @Test("sign-in asks for the code after the password; each code works once; a recovery code works once")
    func signInWithCode() async throws {
        try await withTestApp { app in
            let (email, _, authenticator, recoveryCodes) = try await app.ownerWithTwoStep()

            let laptop = app.browser()
            let password = try await laptop.signIn(email: email)
            #expect(password.status == .seeOther && password.location == "/signin/code")
            #expect(try await laptop.get("/gallery").status == .seeOther, "no session before the code")
            let page = try await laptop.get("/signin/code").text
            #expect(page.contains(#"autocomplete="one-time-code""#) && page.contains(#"<label for="remember">"#))

            let wrong = try await laptop.submitCode("123456")
            #expect(wrong.status == .unauthorized)
            #expect(wrong.text.contains("That code is not right"))

            // The enrolment used this step; the next one is within the allowed drift.
            let code = authenticator.code(offset: 1)
            let right = try await laptop.submitCode(code)
            #expect(right.status == .seeOther && right.location == "/gallery")
            #expect(try await laptop.get("/gallery").status == .ok)

            let replay = app.browser()
            try await replay.signIn(email: email)
            #expect(try await replay.submitCode(code).status == .unauthorized, "a code is used once")

            let phoneLost = app.browser()
            try await phoneLost.signIn(email: email)
            #expect(try await phoneLost.submitCode(recoveryCodes[3].uppercased()).status == .seeOther, "typed in capitals still works")
            #expect(try await app.scalar("SELECT count(*)::int FROM recovery_codes WHERE used_at IS NOT NULL") == 1)
            #expect(try await app.auditCount("two_factor.recovery_code_used") == 1)

            let again = app.browser()
            try await again.signIn(email: email)
            #expect(try await again.submitCode(recoveryCodes[3]).status == .unauthorized, "a recovery code is used once")
            #expect(try await app.auditCount("two_factor.failed") == 3)
        }
    }

    @Test("race: the same fresh code sent from two parked sign-ins at once (a phished code raced against its owner) signs in one of them only")
    func sameCodeAtOnce() async throws {
        try await withTestApp { app in
            let (email, _, authenticator, _) = try await app.ownerWithTwoStep()
            let userID = try await app.userID(email)
            let first = app.browser()
            let second = app.browser()
            for browser in [first, second] { #expect(try await browser.signIn(email: email).location == "/signin/code") }
            let code = authenticator.code(offset: 1)
            let port = try #require(app.client.port)
            // Both have checked the code against the step last used before either claims the step.
            let requests = [
                try await first.formRequest("/signin/code", from: "/signin/code", [("code", code)]),
                try await second.formRequest("/signin/code", from: "/signin/code", [("code", code)]),
            ]
            let statuses = try await app.holding("SELECT 1 FROM totp_factors WHERE user_id = \(userID) FOR UPDATE", untilWaiting: 2) {
                try await AtOnce.send(requests, port: port).map(\.status)
            }
            #expect(statuses.sorted() == [303, 401], "\(statuses)")
        }
    }

    @Test("the last guard: credentials that still owe their code get no session and no token from the account service, whatever way in forgot to ask for it")
    func noSessionWhileTheCodeIsOwed() async throws {
        try await withTestApp { app in
            let (email, _, _, _) = try await app.ownerWithTwoStep()
            let userID = try await app.userID(email)
            let core = try CoreServices(forWeb: app.config, logger: testLogger)
            try await core.whileRunning {
                let owed = try #require(try await core.accounts.users.credentials(forEmail: email))
                #expect(owed.secondFactor == .required)
                await #expect(throws: SecondFactorError.codeRequired) {
                    _ = try await core.accounts.startSession(for: owed, userAgent: "test", ipAddress: "127.0.0.1")
                }
                await #expect(throws: SecondFactorError.codeRequired) {
                    _ = try await core.accounts.issueToken(for: owed, appKey: "test-app", origin: RequestOrigin(ipAddress: "127.0.0.1", userAgent: "test"))
                }
            }
            #expect(try await app.scalar("SELECT count(*)::int FROM web_sessions WHERE user_id = \(userID)") == 1, "the owner's own, from before")
            #expect(try await app.scalar("SELECT count(*)::int FROM api_tokens WHERE user_id = \(userID)") == 0)
        }
    }

    @Test("an authenticator secret that no longer opens (SECRET_KEY changed since set-up): an app's code is refused as wrong, not a 500; a recovery code still signs in")
    func secretThatNoLongerOpens() async throws {
        try await withTestApp { app in
            let (email, _, authenticator, recoveryCodes) = try await app.ownerWithTwoStep()
            // What a new SECRET_KEY does to the stored secret: sealed under another key, it no longer opens.
            _ = try await app.db { try await $0.query("UPDATE totp_factors SET secret_sealed = set_byte(secret_sealed, 20, get_byte(secret_sealed, 20) # 1)") }

            let laptop = app.browser()
            try await laptop.signIn(email: email)
            let code = try await laptop.submitCode(authenticator.code(offset: 1))
            #expect(code.status == .unauthorized)
            #expect(code.text.contains("That code is not right"))
            let api = try await app.api.send(
                .post, "/api/signin",
                body: #"{"email":"\#(email)","password":"\#(app.api.encrypt("correct horse battery"))","otp":"\#(authenticator.code(offset: 1))"}"#,
                authorization: app.api.basicAuthorization
            )
            #expect(api.status == .unauthorized, "\(api.status)")
            #expect(try await laptop.submitCode(recoveryCodes[0]).status == .seeOther, "a recovery code signs in")
        }
    }

    @Test("the code step expires with its cookie, and cannot be reached without a password first")
    func codeStepNeedsPassword() async throws {
        try await withTestApp { app in
            let stranger = app.browser()
            let page = try await stranger.get("/signin/code")
            #expect(page.status == .seeOther && page.location == "/signin?notice=sign-in-expired")
            stranger.setCookie("selfie_pending_sign_in", "made-up")
            #expect(try await stranger.get("/signin/code").location == "/signin?notice=sign-in-expired")

            // A parked sign-in past its ten minutes is refused though its row waits for the purge
            // (a cookie copied off the machine keeps no Max-Age).
            let (email, _, authenticator, _) = try await app.ownerWithTwoStep()
            let late = app.browser()
            #expect(try await late.signIn(email: email).location == "/signin/code")
            try await app.db { try await $0.query("UPDATE pending_sign_ins SET expires_at = now() - interval '1 second'") }
            #expect(try await late.get("/signin/code").location == "/signin?notice=sign-in-expired")
            let code = try await late.submit("/signin/code", from: "/signin", [("code", authenticator.code(offset: 1))])
            #expect(code.location == "/signin?notice=sign-in-expired", "no session from an expired parked sign-in")
            #expect(try await late.get("/gallery").status == .seeOther)
        }
    }

    @Test("“remember this browser” skips the code in that browser only, until the browsers are forgotten")
    func rememberedBrowser() async throws {
        try await withTestApp { app in
            let (email, owner, authenticator, recoveryCodes) = try await app.ownerWithTwoStep()

            let laptop = app.browser()
            try await laptop.signIn(email: email)
            let answer = try await laptop.submitCode(authenticator.code(offset: 1), remember: true)
            let cookie = try #require(answer.setCookieHeader(named: "selfie_remembered_browser"))
            #expect(cookie.contains("HttpOnly") && cookie.contains("Max-Age=2592000") && cookie.contains("SameSite=Lax"))
            let stored: ByteBuffer = try await app.scalar("SELECT token_hash FROM remembered_browsers")
            #expect(Array(buffer: stored).count == 32, "only the token's hash is kept")

            _ = try await laptop.submit("/signout", from: "/gallery", [])
            let codesAsked = try await app.auditCount("sign_in.code_asked")
            let back = try await laptop.signIn(email: email)
            #expect(back.location == "/gallery", "remembered: straight in")
            let how: String = try await app.scalar("SELECT target FROM audit_events WHERE event = 'sign_in.succeeded' ORDER BY id DESC LIMIT 1")
            #expect(how == "\(email), password, from a remembered browser", "recorded as a sign-in, and how the code was answered for")
            #expect(try await app.auditCount("sign_in.code_asked") == codesAsked, "no code was asked: no alarm for the admin")

            #expect(try await app.browser().signIn(email: email).location == "/signin/code", "another browser still needs the code")

            #expect(try await owner.submit("/account/two-factor/forget-browsers", from: "/account", []).status == .seeOther)
            let ownerID = try await app.userID(email)
            #expect(try await app.auditCount("two_factor.browsers_forgotten", actor: ownerID, target: ownerID) == 1)
            _ = try await laptop.submit("/signout", from: "/gallery", [])
            #expect(try await laptop.signIn(email: email).location == "/signin/code", "forgotten: the code again")

            // "Sign out everywhere else" forgets remembered browsers too, so does a password reset.
            _ = try await laptop.submitCode(recoveryCodes[0], remember: true)
            #expect(try await app.scalar("SELECT count(*)::int FROM remembered_browsers") == 1)
            #expect(try await owner.submit("/account/sessions/end-others", from: "/account", []).status == .seeOther)
            #expect(try await app.scalar("SELECT count(*)::int FROM remembered_browsers") == 0, "sign out everywhere else")
        }
    }

    @Test("a remembered browser answers for the code: signing in from it again and again never locks the account")
    func rememberedBrowserNeverLocks() async throws {
        try await withTestApp(configure: { $0.protection.lockoutThreshold = 3 }) { app in
            let (email, _, authenticator, _) = try await app.ownerWithTwoStep()
            let laptop = app.browser()
            try await laptop.signIn(email: email)
            #expect(try await laptop.submitCode(authenticator.code(offset: 1), remember: true).status == .seeOther)
            var arrivals: [String] = []
            for _ in 1...5 {
                _ = try await laptop.submit("/signout", from: "/gallery", [])
                arrivals.append(try await laptop.signIn(email: email).location ?? "refused")
            }
            #expect(arrivals == Array(repeating: "/gallery", count: 5), "\(arrivals)")
        }
    }

    @Test("wrong codes count toward the account's lockout; knowing the password does not reset it")
    func wrongCodesLockTheAccount() async throws {
        try await withTestApp(configure: { $0.protection.lockoutThreshold = 4 }) { app in
            let (email, _, authenticator, _) = try await app.ownerWithTwoStep()

            let attacker = app.browser()
            try await attacker.signIn(email: email)  // 1: the password, counted until a code is right
            #expect(try await attacker.submitCode("111111").status == .unauthorized)  // 2
            try await attacker.signIn(email: email)  // 3
            #expect(try await attacker.submitCode("222222").status == .unauthorized)  // 4
            let locked = try await attacker.submitCode(authenticator.code(offset: 1))
            #expect(locked.status == .tooManyRequests, "locked, even with the right code")
            #expect(try await app.browser().signIn(email: email).status == .tooManyRequests, "and the password form too")
        }
    }

    @Test("attack: a thief with the session and the password cannot guess codes on “confirm it's you” or reset the count with the password elsewhere")
    func confirmingGuessesLockTheAccount() async throws {
        try await withTestApp(configure: { $0.protection.lockoutThreshold = 4 }) { app in
            let (email, owner, authenticator, _) = try await app.ownerWithTwoStep()
            try await app.ageSignIns(of: email, minutes: 11)

            // Each guess sends the right password with a wrong code; in between, the right
            // password on the address form (with an address it refuses, so nothing changes).
            var statuses: [Int] = []
            for guess in ["111111", "222222", "333333", "444444"] {
                let wrong = try await owner.submit(
                    "/account/confirm", from: "/account/confirm", [("current_password", "correct horse battery"), ("code", guess), ("next", "/account")]
                )
                statuses.append(wrong.status.code)
                let elsewhere = try await owner.submit("/account/email", from: "/account", [("email", "not an address"), ("current_password", "correct horse battery")])
                statuses.append(elsewhere.status.code)
            }
            #expect(statuses.contains(429), "the account locks: \(statuses)")
            let right = try await owner.submit(
                "/account/confirm", from: "/account/confirm",
                [("current_password", "correct horse battery"), ("code", authenticator.code(offset: 1)), ("next", "/account")]
            )
            #expect(right.status == .tooManyRequests, "locked, even with the right code")
        }
    }

    @Test("attack: a set-up key someone saw before a password change, or before the owner signed the others out, is not the one the owner later turns on")
    func setupKeyDiesWithThePassword() async throws {
        try await withTestApp { app in
            let email = uniqueEmail()
            let owner = app.browser()
            try await owner.signUp(email: email)
            try await app.confirmAddress(of: email)
            let thief = app.browser()
            try await thief.signIn(email: email)
            let seen = try #require(try await thief.get("/account/two-factor").text.firstCapture(of: #"id="totp-secret">([A-Z2-7 ]+)<"#))

            let changed = try await owner.submit(
                "/account/password", from: "/account",
                [("current_password", "correct horse battery"), ("new_password", "a brand new secret 9"), ("new_password_confirmation", "a brand new secret 9")]
            )
            #expect(changed.status == .seeOther, "\(changed.status)")
            let shown = try #require(try await owner.get("/account/two-factor").text.firstCapture(of: #"id="totp-secret">([A-Z2-7 ]+)<"#))
            #expect(shown != seen, "the owner is shown a key nobody else saw")

            // "Sign out everywhere else", the button for a session someone else has, does the same.
            try await thief.signIn(email: email, password: "a brand new secret 9")
            let seenAgain = try #require(try await thief.get("/account/two-factor").text.firstCapture(of: #"id="totp-secret">([A-Z2-7 ]+)<"#))
            #expect(try await owner.submit("/account/sessions/end-others", from: "/account", []).status == .seeOther)
            let shownAgain = try #require(try await owner.get("/account/two-factor").text.firstCapture(of: #"id="totp-secret">([A-Z2-7 ]+)<"#))
            #expect(shownAgain != seenAgain, "after signing the others out, a key nobody else saw")
        }
    }

    @Test("turning it off needs a code; new recovery codes need one too and replace the old")
    func disableAndRegenerate() async throws {
        try await withTestApp { app in
            let (email, owner, authenticator, recoveryCodes) = try await app.ownerWithTwoStep()

            let refused = try await owner.submit("/account/two-factor/disable", from: "/account", [("code", "999999")])
            #expect(refused.status == .unprocessableContent)
            #expect(refused.text.contains(#"id="two-factor-error""#))
            #expect(try await app.scalar("SELECT count(*)::int FROM totp_factors") == 1)

            let renewed = try await owner.submit("/account/two-factor/recovery-codes", from: "/account", [("code", authenticator.code(offset: 1))])
            #expect(renewed.status == .ok)
            let newCodes = renewed.text.recoveryCodes
            #expect(newCodes.count == 10 && Set(newCodes).isDisjoint(with: recoveryCodes))
            let oldCode = app.browser()
            try await oldCode.signIn(email: email)
            #expect(try await oldCode.submitCode(recoveryCodes[0]).status == .unauthorized, "old codes no longer work")

            let off = try await owner.submit("/account/two-factor/disable", from: "/account", [("code", newCodes[0])])
            #expect(off.location == "/account?notice=two-factor-off")
            #expect(try await app.scalar("SELECT count(*)::int FROM totp_factors") == 0)
            #expect(try await app.scalar("SELECT count(*)::int FROM recovery_codes") == 0)
            #expect(try await app.browser().signIn(email: email).location == "/gallery", "the password alone again")
            // Exactly one "turned off" entry (the refused attempt above wrote none), by and for the owner.
            let userID = try await app.userID(email)
            #expect(try await app.scalar("SELECT count(*)::int FROM audit_events WHERE event = 'two_factor.disabled'") == 1, "one entry")
            #expect(
                try await app.scalar(
                    "SELECT count(*)::int FROM audit_events WHERE event = 'two_factor.disabled' AND actor_id = \(userID) AND target_user_id = \(userID)"
                ) == 1,
                "that entry is by and about the owner"
            )
        }
    }

    @Test("an admin's reset removes the factor and passkeys, audited; the user signs in with the password")
    func adminReset() async throws {
        try await withTestApp { app in
            let email = uniqueEmail()
            let owner = app.browser()
            try await owner.signUp(email: email)
            try await app.confirmAddress(of: email)
            _ = try await owner.enrolTOTP()
            let userID = try await app.userID(email)
            let admin = try await app.signedInAdmin()
            let confirm = try await admin.get("/admin/users/\(userID)/reset-two-factor")
            #expect(confirm.status == .ok && confirm.text.contains("Reset two-step verification and passkeys?"))
            let done = try await admin.submit("/admin/users/\(userID)/reset-two-factor", from: "/admin/users/\(userID)/reset-two-factor", [])
            #expect(done.location == "/admin/users/\(userID)?notice=two-factor-reset")
            #expect(try await app.auditCount("admin.two_factor_reset", target: userID) == 1)
            #expect(try await app.scalar("SELECT count(*)::int FROM totp_factors") == 0)
            #expect(try await app.browser().signIn(email: email).location == "/gallery")
        }
    }
}

@Suite("Two-step verification in the API")
struct SecondFactorAPITests {
    @Test("signin and get_token answer otp_required, refuse a wrong code, and give a token for the right one")
    func otpRequired() async throws {
        try await withTestApp { app in
            let email = uniqueEmail()
            let api = APIClient(client: app.client)
            _ = try await api.signUp(email: email)
            let browser = app.browser()
            try await browser.signIn(email: email)
            try await app.confirmAddress(of: email)
            let (authenticator, recoveryCodes) = try await browser.enrolTOTP()

            let missing = try await api.signIn(email: email)
            #expect(missing.status == .unauthorized)
            let body = try missing.json()
            #expect(body["status"] as? Int == 401 && body["otp_required"] as? Bool == true)
            #expect((body["message"] as? String)?.contains("two-step verification") == true)
            #expect(body["api_authtoken"] == nil)

            let password = api.encrypt("correct horse battery")
            let wrong = try await api.send(.post, "/api/signin", body: #"{"email":"\#(email)","password":"\#(password)","otp":"000000"}"#, authorization: api.basicAuthorization)
            #expect(try wrong.status == .unauthorized && (wrong.json()["otp_required"] as? Bool) == true)

            let right = try await api.send(.post, "/api/signin", body: #"{"email":"\#(email)","password":"\#(password)","otp":"\#(authenticator.code(offset: 1))"}"#, authorization: api.basicAuthorization)
            #expect(right.status == .ok)
            let token = try #require(try right.json()["api_authtoken"] as? String)
            #expect(try await api.getPhotos(token: token).status == .ok)

            let query = "email=\(email.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)&password=\(password.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!)"
            let getToken = try await api.send(.get, "/api/get_token?\(query)&otp=\(recoveryCodes[0])", authorization: api.basicAuthorization)
            #expect(try getToken.status == .ok && (getToken.json()["api_authtoken"] as? String) != nil)

            let noCode = try await api.send(.get, "/api/get_token?\(query)", authorization: api.basicAuthorization)
            #expect(try noCode.status == .unauthorized && (noCode.json()["otp_required"] as? Bool) == true)

            let wrongPassword = try await api.signIn(email: email, password: "not the password")
            #expect(try wrongPassword.status == .unauthorized && (wrongPassword.json()["otp_required"]) == nil, "a wrong password says nothing about a code")
        }
    }

    @Test("the register/login API's login asks for the code too")
    func registerLoginAPI() async throws {
        try await withTestApp { app in
            let email = uniqueEmail()
            let browser = app.browser()
            try await browser.signUp(email: email)
            try await app.confirmAddress(of: email)
            let (authenticator, _) = try await browser.enrolTOTP()
            let api = APIClient(client: app.client)
            let without = try await api.send(.post, "/api/login", body: #"{"access_type":"0","passkey":"\#(email)","passcode":"correct horse battery"}"#, authorization: api.basicAuthorization)
            #expect(try without.status == .unauthorized && (without.json()["error"] as? Bool) == true)
            let with = try await api.send(
                .post, "/api/login",
                body: #"{"access_type":"0","passkey":"\#(email)","passcode":"correct horse battery","otp":"\#(authenticator.code(offset: 1))"}"#,
                authorization: api.basicAuthorization
            )
            #expect(try with.status == .ok && (with.json()["error"] as? Bool) == false)
        }
    }
}

extension Array where Element == UInt8 {
    func containsSubsequence(_ needle: [UInt8]) -> Bool {
        guard !needle.isEmpty, needle.count <= count else { return false }
        return (0...(count - needle.count)).contains { Array(self[$0..<($0 + needle.count)]) == needle }
    }
}

@Suite("Passkey endpoints")
struct PasskeyEndpointTests {
    @Test("options carry a fresh challenge for PUBLIC_URL's host; forged or malformed answers are refused without a 500")
    func refusals() async throws {
        try await withTestApp { app in
            let visitor = app.browser()
            let csrf = try await visitor.csrfToken(on: "/signin")
            func post(_ path: String, _ body: String) async throws -> TestResponse {
                try await visitor.send(path, method: .post, body: ByteBuffer(string: body), contentType: "application/json", extraHeaders: [.csrfToken: csrf])
            }
            let options = try await post("/signin/passkey/options", "{}")
            #expect(options.status == .ok)
            let json = try options.json()
            #expect(json["rpId"] as? String == "localhost" && json["userVerification"] as? String == "required")
            let challenge = try #require(json["challenge"] as? String)
            #expect(challenge.count == 43)
            #expect(try await post("/signin/passkey/options", "{}").json()["challenge"] as? String != challenge)

            // A correctly shaped answer for a credential nobody registered, then the same challenge again.
            let clientData = Base64URL.encode(Data(#"{"type":"webauthn.get","challenge":"\#(challenge)","origin":"http://localhost"}"#.utf8))
            let forged = #"{"rawId":"AAAA","response":{"clientDataJSON":"\#(clientData)","authenticatorData":"AAAA","signature":"AAAA","userHandle":"AAAA"}}"#
            let unknown = try await post("/signin/passkey", forged)
            #expect(unknown.status == .unauthorized && unknown.text.contains("could not sign you in"))
            #expect(try await post("/signin/passkey", forged).status == .unauthorized, "the challenge was used up")
            #expect(try await app.scalar("SELECT count(*)::int FROM webauthn_challenges") == 1, "one left: the second options call's")

            #expect(try await post("/signin/passkey", "not json").status == .badRequest)
            let noCSRF = try await visitor.send("/signin/passkey/options", method: .post, body: ByteBuffer(string: "{}"), contentType: "application/json")
            #expect(noCSRF.status == .forbidden)
        }
    }
}
