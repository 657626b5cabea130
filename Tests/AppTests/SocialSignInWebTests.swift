@testable import App
@testable import SelfieCore
import FakeProviders
import Foundation
import HummingbirdTesting
import Testing

@Suite("Continue with a provider in the browser (authorization code + PKCE)")
struct SocialSignInWebTests {
    /// Starts the flow from `page`, approves at the fake provider, and returns the callback path.
    func goThroughProvider(_ browser: Browser, start action: String, from page: String, decision: String = "approve") async throws -> String {
        let started = try await browser.submit(action, from: page, [("next", "")])
        #expect(started.status == .seeOther)
        let authorize = try #require(started.location)
        #expect(browser.cookies["selfie_signin_flow"]?.isEmpty == false, "the state is bound to this browser")
        let query = try #require(URLComponents(string: authorize)?.queryItems)
        func value(_ name: String) -> String? { query.first { $0.name == name }?.value }
        #expect(value("response_type") == "code")
        #expect(value("client_id") == webClientID)
        #expect(value("code_challenge_method") == "S256")
        #expect(value("code_challenge")?.count == 43)
        #expect(value("redirect_uri") == "http://localhost/auth/google/callback")
        #expect(value("state")?.isEmpty == false && value("nonce")?.isEmpty == false)

        let consent = try await ProviderBrowser.get(authorize)
        #expect(consent.status == 200)
        let callback = try await ProviderBrowser.approve(authorize.components(separatedBy: "?")[0], consentPage: consent.body, decision: decision)
        #expect(callback.hasPrefix("http://localhost/auth/google/callback?"))
        return callback.pathAndQuery
    }

    @Test("the sign-in and sign-up pages offer the configured providers only")
    func buttons() async throws {
        try await withFakeProviders { app, fake in
            for page in ["/signin", "/signup"] {
                let html = try await app.browser().get(page).text
                #expect(html.contains("Continue with Google"))
                #expect(html.contains("Continue with Fake SSO"))
                #expect(html.contains(#"action="/auth/google/start""#))
            }
            let csp = try await app.browser().get("/signin").headers[.contentSecurityPolicy] ?? ""
            #expect(csp.contains("form-action 'self' \(URL(string: fake.issuer).flatMap(SecurityHeaders.origin(of:)) ?? "?");"), "the buttons may leave for the issuer, and only there")
        }
        try await withTestApp { app in
            let html = try await app.browser().get("/signin").text
            #expect(!html.contains("Continue with"), "no provider configured, no button")
        }
    }

    @Test("the code flow signs a new person up and in; the callback works once and only in the browser that started it")
    func codeFlow() async throws {
        try await withFakeProviders { app, fake in
            fake.setPerson(.init(subject: "web-1", email: "pat.provider@example.com", emailVerified: true, name: "Pat Provider"))
            let browser = app.browser()
            let callback = try await goThroughProvider(browser, start: "/auth/google/start", from: "/signin")

            let stranger = app.browser()
            let elsewhere = try await stranger.get(callback)
            #expect(elsewhere.status == .badRequest, "a callback from another browser (login CSRF) is refused")
            #expect(stranger.cookies["selfie_session"] == nil)

            let landed = try await browser.get(callback)
            #expect(landed.status == .seeOther, "\(landed.text)")
            #expect(landed.location == "/gallery?notice=welcome")
            #expect(browser.cookies["selfie_session"]?.isEmpty == false)
            #expect(try await browser.get("/gallery").text.contains("Pat Provider"))

            let replay = try await browser.get(callback)
            #expect(replay.status == .badRequest, "the state and code are used up")
            let accounts: Int = try await app.scalar("SELECT count(*)::int FROM users")
            #expect(accounts == 1)
        }
    }

    @Test("an account made by a provider that shared no email chooses a username with its first password")
    func noEmailAccount() async throws {
        try await withFakeProviders { app, fake in
            fake.setPerson(.init(subject: "no-email-1", email: nil, name: "Nomail Person"))
            let browser = app.browser()
            _ = try await browser.get(try await goThroughProvider(browser, start: "/auth/google/start", from: "/signin"))
            let page = try await browser.get("/account").text
            #expect(page.contains("Your account has no email: you will sign in with this username."))
            let withoutUsername = try await browser.submit(
                "/account/password", from: "/account",
                [("new_password", "a brand new password"), ("new_password_confirmation", "a brand new password")]
            )
            #expect(withoutUsername.status == .unprocessableContent)
            #expect(withoutUsername.text.contains("Choose a username: your account has no email"))
            let set = try await browser.submit(
                "/account/password", from: "/account",
                [("username", "no_mail_person"), ("new_password", "a brand new password"), ("new_password_confirmation", "a brand new password")]
            )
            #expect(set.location == "/account?notice=password-set", "\(set.status) \(set.text.firstCapture(of: #"field-error[^>]*>([^<]+)"#) ?? "")")
            #expect(try await app.browser().signIn(email: "no_mail_person", password: "a brand new password").status == .seeOther)
        }
    }

    @Test("a return by form POST (Sign in with Apple) becomes a GET, which carries the browser's cookies")
    func formPostReturn() async throws {
        try await withFakeProviders { app, _ in
            let browser = app.browser()
            let callback = try await goThroughProvider(browser, start: "/auth/google/start", from: "/signin")
            let query = try #require(URLComponents(string: callback)?.queryItems)
            let fields = query.map { ($0.name, $0.value ?? "") }
            // As Apple does: a cross-site POST, so no CSRF token and no cookies.
            let posted = try await app.browser().post("/auth/google/callback", form: fields)
            #expect(posted.status == .seeOther)
            let location = try #require(posted.location)
            #expect(location.hasPrefix("/auth/google/callback?"))
            let landed = try await browser.get(location)
            #expect(landed.location == "/gallery?notice=welcome", "\(landed.text)")
        }
    }

    @Test("cancelling at the provider comes back to the sign-in page with a notice")
    func cancel() async throws {
        try await withFakeProviders { app, _ in
            let browser = app.browser()
            let callback = try await goThroughProvider(browser, start: "/auth/google/start", from: "/signin", decision: "cancel")
            let back = try await browser.get(callback)
            #expect(back.location == "/signin?notice=provider-cancelled")
            #expect(try await browser.get("/signin?notice=provider-cancelled").text.contains("The sign-in was cancelled."))
        }
    }

    @Test("an account with two-step found by its address links the provider once its code is given, so the provider still finds it after the address changes")
    func twoStepAccountLinksAfterItsCode() async throws {
        try await withFakeProviders { app, fake in
            let email = uniqueEmail("two-step-web")
            let owner = app.browser()
            try await owner.signUp(email: email)
            try await app.confirmAddress(of: email)
            let (authenticator, recoveryCodes) = try await owner.enrolTOTP()
            fake.setPerson(.init(subject: "web-two-step", email: email, emailVerified: true, name: "Tess Two-Step"))

            let browser = app.browser()
            let owed = try await browser.get(try await goThroughProvider(browser, start: "/auth/google/start", from: "/signin"))
            #expect(owed.location == "/signin/code", "\(owed.status) \(owed.text)")
            // A second browser of theirs parks the same sign-in before the first completes.
            let laptop = app.browser()
            #expect(try await laptop.get(try await goThroughProvider(laptop, start: "/auth/google/start", from: "/signin")).location == "/signin/code")
            let links: Int = try await app.scalar("SELECT count(*)::int FROM user_identities")
            #expect(links == 0, "nothing is linked while the code is owed")
            #expect(try await browser.submitCode("000000").status == .unauthorized)
            let afterAWrongCode: Int = try await app.scalar("SELECT count(*)::int FROM user_identities")
            #expect(afterAWrongCode == 0, "nor after a wrong code")
            let signedIn = try await browser.submitCode(authenticator.code(offset: 1))
            #expect(signedIn.status == .seeOther && browser.cookies["selfie_session"]?.isEmpty == false)
            let linked: Int = try await app.scalar("SELECT count(*)::int FROM user_identities i JOIN users u ON u.id = i.user_id WHERE u.email = \(email)")
            #expect(linked == 1)
            #expect(try await app.auditCount("social.linked") == 1)
            let alsoSignedIn = try await laptop.submitCode(try #require(recoveryCodes.first))
            #expect(alsoSignedIn.status == .seeOther && laptop.cookies["selfie_session"]?.isEmpty == false)
            #expect(try await app.auditCount("social.linked") == 1, "linked once: the second completion finds the link made")

            // The account moves to another address; the provider's person is still the same one.
            try await app.db { try await $0.query("UPDATE users SET email = \(uniqueEmail("moved")) WHERE email = \(email)") }
            let again = app.browser()
            let back = try await again.get(try await goThroughProvider(again, start: "/auth/google/start", from: "/signin"))
            #expect(back.location == "/signin/code", "the linked account, which still owes its code: \(back.status) \(back.text)")
            let accounts: Int = try await app.scalar("SELECT count(*)::int FROM users")
            #expect(accounts == 1, "no second account for the same person")
        }
    }

    @Test("a signed-in user links Google from the account page, sees it listed (a notice is mailed), and unlinks it")
    func linkAndUnlink() async throws {
        try await withFakeProviders(configure: { try $0.useMailSink() }) { app, fake in
            fake.setPerson(.init(subject: "link-1", email: "other.address@example.com", emailVerified: true, name: "Linda Link"))
            let browser = app.browser()
            let email = uniqueEmail("linda")
            try await browser.signUp(name: "Linda", email: email)
            try await app.confirmAddress(of: email)
            let callback = try await goThroughProvider(browser, start: "/account/link/google", from: "/account")
            let linked = try await browser.get(callback)
            #expect(linked.location == "/account?notice=identity-linked", "\(linked.text)")
            let account = try await browser.get("/account").text
            #expect(account.contains("<strong>Google</strong>"))
            #expect(account.contains("other.address@example.com"))
            #expect(!account.contains("Link Google"), "already linked")
            let notice = try await MailSink.waitForMessage(to: email, subject: "Google can now sign in to your Selfie account")
            #expect(notice.text.contains("/account"), "says where to unlink it")
            let userID: Int64 = try await app.scalar("SELECT user_id FROM user_identities")
            let adminView = try await app.signedInAdmin().get("/admin/users/\(userID)").text
            #expect(adminView.contains("<strong>Google</strong>") && adminView.contains("other.address@example.com"), "admins see linked providers")
            let events: Int = try await app.scalar("SELECT count(*)::int FROM audit_events WHERE event = 'social.linked' AND target_user_id = \(userID)")
            #expect(events == 1)

            let id: Int64 = try await app.scalar("SELECT id FROM user_identities")
            let unlinked = try await browser.submit("/account/identities/\(id)/unlink", from: "/account", [])
            #expect(unlinked.location == "/account?notice=identity-unlinked")
            let left: Int = try await app.scalar("SELECT count(*)::int FROM user_identities")
            #expect(left == 0)
            let unlinkedNotice = try await MailSink.waitForMessage(to: email, subject: "A sign-in method was unlinked from your Selfie account")
            #expect(unlinkedNotice.text.contains("Google was unlinked"))
        }
    }

    @Test("a provider linked by a callback that began before its session ended (sign out everywhere) is not linked")
    func linkWhileTheSessionEnds() async throws {
        try await withFakeProviders { app, fake in
            fake.setPerson(.init(subject: "late-link", email: "thief@example.com", emailVerified: true, name: "Thief"))
            let thief = app.browser()
            let email = uniqueEmail("owner")
            try await thief.signUp(email: email)
            try await app.confirmAddress(of: email)
            let callback = try await goThroughProvider(thief, start: "/account/link/google", from: "/account")
            let id = try await app.userID(email)
            let answer = try await app.racing({ try await thief.get(callback) }, holdingUser: id) { connection in
                try await connection.query("DELETE FROM web_sessions WHERE user_id = \(id)", logger: testLogger)
            }
            #expect(answer.status == .seeOther && answer.location?.hasPrefix("/account/confirm?next=") == true, "\(answer.status) \(answer.location ?? "")")
            #expect(try await app.scalar("SELECT count(*)::int FROM user_identities") == 0, "the thief's provider signs no one in")
        }
    }

    @Test("an account made by a provider sets a password without a current one, and cannot unlink its only way in before that")
    func passwordlessAccount() async throws {
        try await withFakeProviders { app, fake in
            fake.setPerson(.init(subject: "solo-1", email: "solo@example.com", emailVerified: true, name: "Solo Person"))
            let browser = app.browser()
            _ = try await browser.get(try await goThroughProvider(browser, start: "/auth/google/start", from: "/signin"))
            let page = try await browser.get("/account").text
            #expect(page.contains("Set a password"))
            #expect(!page.contains("current_password"))
            #expect(page.contains("Set a password before unlinking your only sign-in method."))

            let id: Int64 = try await app.scalar("SELECT id FROM user_identities")
            let refused = try await browser.submit("/account/identities/\(id)/unlink", from: "/account", [])
            #expect(refused.status == .conflict)
            #expect(refused.text.contains("This is the only way you can sign in."))

            let set = try await browser.submit(
                "/account/password", from: "/account",
                [("new_password", "a brand new password"), ("new_password_confirmation", "a brand new password")]
            )
            #expect(set.location == "/account?notice=password-set")
            #expect(try await app.browser().signIn(email: "solo@example.com", password: "a brand new password").status == .seeOther)
            #expect(try await browser.submit("/account/identities/\(id)/unlink", from: "/account", []).status == .seeOther)
        }
    }

    @Test("an account with neither email nor username cannot be locked out by typing how the admin pages name it (\"user #<id>\") into the sign-in form: its two-step code still signs it in")
    func handleIsNoLogin() async throws {
        try await withFakeProviders(configure: ProtectionTests.withProtection { _ in }) { app, fake in
            fake.setPerson(.init(subject: "no-email-2", email: nil, name: "Nameless Person"))
            let owner = app.browser()
            _ = try await owner.get(try await goThroughProvider(owner, start: "/auth/google/start", from: "/signin"))
            let (authenticator, _) = try await owner.enrolTOTP()
            let id: Int64 = try await app.scalar("SELECT id FROM users")

            // Someone types the account's name as the admin pages show it, or what its failures are
            // counted under, with wrong passwords, until each login is locked.
            for login in ["user #\(id)", "account \(id)", " account \(id)", "\taccount \(id)"] {
                var answer = try await app.browser().signIn(email: login, password: "wrong one")
                for _ in 1...6 where answer.status == .unauthorized {
                    answer = try await app.browser().signIn(email: login, password: "wrong one")
                }
                #expect(answer.status == .tooManyRequests, "\(login.debugDescription) is locked: \(answer.status)")
            }

            // The account's own sign-in is not.
            let browser = app.browser()
            #expect(try await browser.get(try await goThroughProvider(browser, start: "/auth/google/start", from: "/signin")).location == "/signin/code")
            let signedIn = try await browser.submitCode(authenticator.code(offset: 1))
            #expect(signedIn.status == .seeOther, "\(signedIn.status) \(signedIn.text.prefix(200))")
            #expect(browser.cookies["selfie_session"]?.isEmpty == false)
        }
    }
}
