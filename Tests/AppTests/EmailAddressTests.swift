@testable import App
@testable import SelfieCore
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

/// Confirming an address after sign-up, and moving an account to a new one, through the mail the
/// test SMTP server receives.
@Suite("Email addresses: confirming and changing")
struct EmailAddressTests {
    @Test("sign-up mails a confirmation link; the link's page confirms with a button, once; the banner goes away")
    func confirmAfterSignUp() async throws {
        try await withTestApp(configure: { try $0.useMailSink() }) { app in
            let email = uniqueEmail("confirm")
            let browser = app.browser()
            try await browser.signUp(email: email)
            #expect(try await browser.get("/gallery").text.contains("Confirm your email address"))
            let mail = try await MailSink.waitForMessage(to: email, subject: "Confirm your email address for Selfie")
            let link = try mail.link(to: "/verify-email")
            #expect(mail.html.contains(link.replacingOccurrences(of: "&", with: "&amp;")), "the HTML part carries the same link")

            let page = try await browser.get(link)
            #expect(page.status == .ok)
            #expect(page.text.contains("Confirm \(email)"))
            #expect(try await browser.get(link).status == .ok, "a mail scanner opening the link uses nothing up")
            let verified: Bool = try await app.scalar("SELECT email_verified FROM users WHERE email = \(email)")
            #expect(!verified)

            let token = try mail.token(in: "/verify-email")
            let confirmed = try await browser.submit("/verify-email", from: link, [("token", token)])
            #expect(confirmed.status == .seeOther)
            #expect(confirmed.location == "/gallery?notice=email-verified")
            let gallery = try await browser.get("/gallery?notice=email-verified").text
            #expect(gallery.contains("Your email address is confirmed."))
            #expect(!gallery.contains("Confirm your email address:"), "the banner is gone")
            #expect(try await app.scalar("SELECT email_verified FROM users WHERE email = \(email)", as: Bool.self))
            #expect(try await app.auditCount("email.verified") == 1)

            let replay = try await browser.submit("/verify-email", from: "/gallery", [("token", token)])
            #expect(replay.status == .gone)
            #expect(try await browser.get(link).status == .gone)
            #expect(try await browser.get("/verify-email?token=made-up").status == .gone)
        }
    }

    @Test("a link opened where nobody is signed in asks for the account's password; with it the address is confirmed, and no one is signed in")
    func confirmSignedOut() async throws {
        try await withTestApp(configure: { try $0.useMailSink() }) { app in
            let email = uniqueEmail("elsewhere")
            _ = try await app.browser().submitSignUp(email: email)
            let mail = try await MailSink.waitForMessage(to: email, subject: "Confirm your email address")
            let phone = app.browser()
            let link = try mail.link(to: "/verify-email")
            let page = try await phone.get(link)
            #expect(page.text.contains(#"name="current_password""#))
            let confirmed = try await phone.submit(
                "/verify-email", from: link, [("token", try mail.token(in: "/verify-email")), ("current_password", "correct horse battery")]
            )
            #expect(confirmed.location == "/signin?notice=email-verified-sign-in")
            #expect(phone.cookies["selfie_session"] == nil)
            #expect(try await app.scalar("SELECT email_verified FROM users WHERE email = \(email)", as: Bool.self))

            // Or the page's sign-in, which comes back to the link: signed in, a button is enough.
            let other = uniqueEmail("elsewhere-again")
            _ = try await app.browser().submitSignUp(email: other)
            let otherLink = try await MailSink.waitForMessage(to: other, subject: "Confirm your email address").link(to: "/verify-email")
            let laptop = app.browser()
            let linkPage = try await laptop.get(otherLink)
            #expect(linkPage.status == .ok && linkPage.text.contains(#"name="current_password""#), "\(linkPage.status)")
            #expect(!linkPage.text.contains("/signin?next="), "no sign-in offered: with REQUIRE_VERIFIED_EMAIL it would wait for this link")
            let signedIn = try await laptop.signIn(email: other, next: otherLink)
            #expect(signedIn.location == otherLink)
            let back = try await laptop.get(otherLink)
            #expect(back.status == .ok && !back.text.contains(#"name="current_password""#), "signed in, no password asked")
            let token = try #require(URLComponents(string: otherLink)?.queryItems?.first { $0.name == "token" }?.value)
            #expect(try await laptop.submit("/verify-email", from: otherLink, [("token", token)]).location == "/gallery?notice=email-verified")
        }
    }

    @Test("attack: the inbox alone confirms nothing. Someone who signed up with another person's address cannot get it confirmed by that person's click; the account's holder can (signed in to it, or with its password)")
    func confirmingNeedsTheAccount() async throws {
        try await withTestApp(configure: { try $0.useMailSink() }) { app in
            let victim = uniqueEmail("victim")
            let impostor = app.browser()
            try await impostor.signUp(email: victim, password: "impostor password")
            try await impostor.submit("/account/verify-email/resend", from: "/gallery", [])
            let mail = try await MailSink.waitForMessage(to: victim, subject: "Confirm your email address", count: 2)
            let link = try mail.link(to: "/verify-email")
            let token = try mail.token(in: "/verify-email")
            func verified() async throws -> Bool { try await app.scalar("SELECT email_verified FROM users WHERE email = \(victim)") }

            // The address's owner, who never signed up, follows the mail and presses the button.
            let inbox = app.browser()
            let page = try await inbox.get(link)
            #expect(page.status == .ok)
            #expect(page.text.contains(#"name="current_password""#), "the page asks for the account's password")
            #expect(page.text.contains("If you did not sign up"), "and says what to do if it is not theirs")
            let pressed = try await inbox.submit("/verify-email", from: link, [("token", token)])
            #expect(pressed.status == .unprocessableContent, "\(pressed.status)")
            #expect(pressed.text.contains("Enter your Selfie password to confirm."))
            let guessed = try await inbox.submit("/verify-email", from: link, [("token", token), ("current_password", "my own password")])
            #expect(guessed.status == .unprocessableContent)
            #expect(guessed.text.contains("This is not your current password."))
            #expect(try await verified() == false)

            // A browser signed in to another account proves nothing about this one.
            let neighbour = app.browser()
            try await neighbour.signUp(email: uniqueEmail("neighbour"))
            let elsewhere = try await neighbour.submit("/verify-email", from: link, [("token", token)])
            #expect(elsewhere.status == .unprocessableContent)
            #expect(try await verified() == false)
            #expect(try await TestPasskey().add(in: impostor).status == .forbidden, "so the impostor still cannot add a passkey a reset would keep")
            #expect(try await app.auditCount("email.verified") == 0)

            // The link itself still works for the account's holder: with its password, or signed in.
            let holder = try await impostor.submit("/verify-email", from: link, [("token", token)])
            #expect(holder.location == "/gallery?notice=email-verified")
            #expect(try await verified())
        }
    }

    @Test("an account without a password confirms a link only signed in: the page leads to sign-in and back, a press without it is a 403")
    func passwordlessConfirmsSignedIn() async throws {
        try await withTestApp(configure: { try $0.useMailSink() }) { app in
            let email = uniqueEmail("keyonly")
            _ = try await app.browser().submitSignUp(email: email)
            let mail = try await MailSink.waitForMessage(to: email, subject: "Confirm your email address")
            try await app.db { try await $0.query("UPDATE users SET password_hash = NULL WHERE email = \(email)") }
            let link = try mail.link(to: "/verify-email")
            let visitor = app.browser()
            let page = try await visitor.get(link)
            #expect(page.status == .ok)
            #expect(!page.text.contains(#"name="current_password""#))
            #expect(page.text.contains("/signin?next=\(PercentEncoding.encode(link))"), "a sign-in that comes back to the link")
            let pressed = try await visitor.submit("/verify-email", from: link, [("token", try mail.token(in: "/verify-email")), ("current_password", "anything at all")])
            #expect(pressed.status == .forbidden)
            #expect(pressed.text.contains("Sign in to the account this link is for"))
            #expect(try await app.scalar("SELECT email_verified FROM users WHERE email = \(email)", as: Bool.self) == false)
        }
    }

    @Test("attack: a new address is not taken on by its inbox alone: the change link asks for the account too")
    func changeNeedsTheAccount() async throws {
        try await withTestApp(configure: { try $0.useMailSink() }) { app in
            let old = uniqueEmail("owner")
            let someoneElses = uniqueEmail("someone")
            let owner = app.browser()
            try await owner.signUp(email: old)
            try await owner.submit("/account/email", from: "/account", [("email", someoneElses), ("current_password", "correct horse battery")])
            let mail = try await MailSink.waitForMessage(to: someoneElses, subject: "Confirm your new email address")
            let link = try mail.link(to: "/account/email/confirm")
            let token = try mail.token(in: "/account/email/confirm")

            let inbox = app.browser()
            #expect(try await inbox.get(link).text.contains(#"name="current_password""#))
            let pressed = try await inbox.submit("/account/email/confirm", from: link, [("token", token)])
            #expect(pressed.status == .unprocessableContent)
            let guessed = try await inbox.submit("/account/email/confirm", from: link, [("token", token), ("current_password", "a guess at it")])
            #expect(guessed.status == .unprocessableContent && guessed.text.contains("This is not your current password."))
            let neighbour = app.browser()
            try await neighbour.signUp(email: uniqueEmail("neighbour"))
            #expect(try await neighbour.submit("/account/email/confirm", from: link, [("token", token)]).status == .unprocessableContent)
            #expect(try await app.scalar("SELECT email FROM users WHERE id = \(try await app.userID(old))", as: String.self) == old)

            let withPassword = try await app.browser().submit(
                "/account/email/confirm", from: link, [("token", token), ("current_password", "correct horse battery")]
            )
            #expect(withPassword.location == "/signin?notice=email-changed-sign-in")
            #expect(try await app.scalar("SELECT email FROM users WHERE id = \(try await app.userID(someoneElses))", as: String.self) == someoneElses)
        }
    }

    @Test("a link to an account disabled since it was mailed confirms nothing: the clear page, the address still unconfirmed")
    func confirmDisabled() async throws {
        try await withTestApp(configure: { try $0.useMailSink() }) { app in
            let email = uniqueEmail("disabled")
            _ = try await app.browser().submitSignUp(email: email)
            let mail = try await MailSink.waitForMessage(to: email, subject: "Confirm your email address")
            try await app.db { try await $0.query("UPDATE users SET disabled = true WHERE email = \(email)") }
            let used = try await app.browser().submit("/verify-email", from: try mail.link(to: "/verify-email"), [("token", try mail.token(in: "/verify-email"))])
            #expect(used.status == .gone, "\(used.status)")
            #expect(try await app.scalar("SELECT email_verified FROM users WHERE email = \(email)", as: Bool.self) == false)
        }
    }

    @Test("race: an account disabled while its link is being opened confirms nothing")
    func confirmWhileDisabled() async throws {
        try await withTestApp(configure: { try $0.useMailSink() }) { app in
            let email = uniqueEmail("disabled-meanwhile")
            _ = try await app.browser().submitSignUp(email: email)
            let mail = try await MailSink.waitForMessage(to: email, subject: "Confirm your email address")
            let userID: Int64 = try await app.scalar("SELECT id FROM users WHERE email = \(email)")
            let opener = app.browser()
            let link = try mail.link(to: "/verify-email")
            let token = try mail.token(in: "/verify-email")
            // The link's account was read (enabled, the password right) before the confirmation waits on its row.
            let fields = [("token", token), ("current_password", "correct horse battery")]
            let used = try await app.racing({ try await opener.submit("/verify-email", from: link, fields) }, holdingUser: userID) { connection in
                try await connection.query("UPDATE users SET disabled = true WHERE id = \(userID)", logger: testLogger)
            }
            #expect(used.status == .gone, "\(used.status)")
            #expect(try await app.scalar("SELECT email_verified FROM users WHERE id = \(userID)", as: Bool.self) == false)
        }
    }

    @Test("'send it again' mails a new link, a few a day at most; API sign-up mails one too")
    func resend() async throws {
        try await withTestApp(configure: { config in
            try config.useMailSink()
            config.protection.verificationMailsPerDay = 2
        }) { app in
            let email = uniqueEmail("again")
            let browser = app.browser()
            try await browser.signUp(email: email)
            let again = try await browser.submit("/account/verify-email/resend", from: "/gallery", [])
            #expect(again.location == "/account?notice=verification-sent")
            try await MailSink.waitForMessage(to: email, subject: "Confirm your email address", count: 2)
            let tooMany = try await browser.submit("/account/verify-email/resend", from: "/gallery", [])
            #expect(tooMany.status == .tooManyRequests)
            #expect(tooMany.text.contains("We have already sent several links today."))

            let apiEmail = uniqueEmail("api")
            #expect(try await app.api.signUp(email: apiEmail).status == .ok)
            try await MailSink.waitForMessage(to: apiEmail, subject: "Confirm your email address")
        }
    }

    @Test("asking to move the account to new addresses past the day's links: said as that limit, not as too many attempts from the network")
    func emailChangeLinksPerDay() async throws {
        try await withTestApp(configure: { $0.protection.verificationMailsPerDay = 2 }) { app in
            let browser = app.browser()
            let email = uniqueEmail("mover")
            try await browser.signUp(email: email)  // its confirmation link is the first of the day
            let first = try await browser.submit("/account/email", from: "/account", [("email", uniqueEmail("new")), ("current_password", "correct horse battery")])
            #expect(first.status == .seeOther)
            let third = try await browser.submit("/account/email", from: "/account", [("email", uniqueEmail("newer")), ("current_password", "correct horse battery")])
            #expect(third.status == .tooManyRequests)
            #expect(third.text.contains("We have already sent several links today."))
        }
    }

    @Test("REQUIRE_VERIFIED_EMAIL with the day's links used up: the refusal does not claim a new link was mailed")
    func requireVerifiedNoNewLink() async throws {
        try await withTestApp(configure: { config in
            config.mail.requireVerifiedEmail = true
            config.protection.verificationMailsPerDay = 1  // the sign-up's own link uses it
        }) { app in
            let email = uniqueEmail("limited")
            _ = try await app.browser().submitSignUp(email: email)
            let refused = try await app.browser().signIn(email: email)
            #expect(refused.status == .forbidden)
            #expect(refused.text.contains("Confirm your email address first with a link we mailed to \(email) earlier (no more can be sent today)."))
            #expect(!refused.text.contains("we have mailed a new link"))
            let queued: Int = try await app.scalar("SELECT count(*)::int FROM mail_outbox WHERE recipient = \(email)")
            #expect(queued == 1, "only the sign-up's link")
        }
    }

    @Test("REQUIRE_VERIFIED_EMAIL: the right password waits for the link (403, a new link mailed), on the web and in the API")
    func requireVerified() async throws {
        try await withTestApp(configure: { config in
            try config.useMailSink()
            config.mail.requireVerifiedEmail = true
        }) { app in
            let email = uniqueEmail("strict")
            _ = try await app.browser().submitSignUp(email: email)
            let refused = try await app.browser().signIn(email: email)
            #expect(refused.status == .forbidden)
            #expect(refused.text.contains("Confirm your email address first: we have mailed a new link to \(email)."))
            let api = try await app.api.signIn(email: email)
            #expect(api.status == .forbidden)
            #expect(try api.apiError().message.contains("Confirm your email address first"))
            #expect(try await app.browser().signIn(email: email, password: "wrong password 1").status == .unauthorized, "a wrong password says nothing more")

            let mail = try await MailSink.waitForMessage(to: email, subject: "Confirm your email address", count: 3)
            try await app.browser().submit(
                "/verify-email", from: try mail.link(to: "/verify-email"),
                [("token", try mail.token(in: "/verify-email")), ("current_password", "correct horse battery")]
            )
            #expect(try await app.browser().signIn(email: email).status == .seeOther)
            #expect(try await app.api.signIn(email: email).status == .ok)

            // The register/login API makes the account and mails its link, but hands out no token
            // for an address nobody has confirmed (someone else's, perhaps).
            let other = uniqueEmail("strict-api")
            let registered = try await app.api.registerLoginForm("/api/register", [("access_type", "0"), ("passkey", other), ("passcode", "billion dollars")])
            #expect(registered.status == .forbidden, "\(registered.text)")
            #expect(try (registered.json()["message"] as? String)?.hasPrefix("Confirm your email address first: we have mailed a new link to \(other).") == true)
            #expect(try registered.json()["api_authtoken"] == nil)
            let tokens: Int = try await app.scalar("SELECT count(*)::int FROM api_tokens t JOIN users u ON u.id = t.user_id WHERE u.email = \(other)")
            #expect(tokens == 0)
            _ = try await MailSink.waitForMessage(to: other, subject: "Confirm your email address")
            let login = try await app.api.registerLoginForm("/api/login", [("access_type", "0"), ("passkey", other), ("passcode", "billion dollars")])
            #expect(login.status == .forbidden, "and no login before the link is used")
        }
    }

    @Test("an address mail cannot be sent to (letters outside ASCII, two dots in a row) is refused where it is typed, with a message that says why: sign-up in the browser and the API, and a change of address")
    func undeliverableAddresses() async throws {
        try await withTestApp { app in
            let ascii = "Use an address written with the letters a–z, digits and . _ - + only; for an international domain, its xn-- form."
            for (address, message) in [
                ("ana@bücher-\(UUID().uuidString.prefix(8)).example", ascii),
                ("añá-\(UUID().uuidString.prefix(8))@example.com", ascii),
                ("a..b-\(UUID().uuidString.prefix(8))@example.com", "Enter an email address like name@example.com."),
            ] {
                let web = try await app.browser().submit(
                    "/signup", from: "/signup",
                    [("full_name", "Ana"), ("email", address), ("password", "correct horse battery"), ("password_confirmation", "correct horse battery")]
                )
                #expect(web.status == .unprocessableContent, "\(address)")
                #expect(web.text.contains(message), "\(address)")
                let api = try await app.api.signUp(name: "Ana", email: address)
                #expect(api.status == .unprocessableContent, "\(address)")
                #expect(try api.apiError().message.contains(message), "\(address)")
            }
            #expect(try await app.scalar("SELECT count(*)::int FROM users") == 0)

            let browser = app.browser()
            let old = uniqueEmail("old")
            try await browser.signUp(email: old)
            let moved = try await browser.submit("/account/email", from: "/account", [("email", "ana@bücher.example"), ("current_password", "correct horse battery")])
            #expect(moved.status == .unprocessableContent)
            #expect(moved.text.contains(ascii))
            #expect(try await app.scalar("SELECT count(*)::int FROM email_tokens WHERE purpose = 'change_email'") == 0)
        }
    }

    @Test("changing the address: a link to the new one, a notice to the old one; the old address stays until the link is used")
    func changeEmail() async throws {
        try await withTestApp(configure: { try $0.useMailSink() }) { app in
            let old = uniqueEmail("old")
            let new = uniqueEmail("new")
            let browser = app.browser()
            try await browser.signUp(email: old)

            let wrong = try await browser.submit("/account/email", from: "/account", [("email", new), ("current_password", "not my password")])
            #expect(wrong.status == .unprocessableContent)
            #expect(wrong.text.contains(#"id="email_current_password-error">This is not your current password."#))
            #expect(wrong.text.contains(#"value="\#(new)""#), "what was typed stays")
            let same = try await browser.submit("/account/email", from: "/account", [("email", old.uppercased()), ("current_password", "correct horse battery")])
            #expect(same.text.contains("This is already your email address."))

            let asked = try await browser.submit("/account/email", from: "/account", [("email", new), ("current_password", "correct horse battery")])
            #expect(asked.location == "/account?notice=email-change-requested")
            let notice = try await MailSink.waitForMessage(to: old, subject: "moving to a new address")
            #expect(notice.text.contains(EmailAddress.masked(new)) && !notice.text.contains(new), "the new address is masked for whoever reads the old mail")
            let confirmation = try await MailSink.waitForMessage(to: new, subject: "Confirm your new email address")
            #expect(try await app.browser().signIn(email: new).status == .unauthorized, "not yet")
            #expect(try await app.browser().signIn(email: old).status == .seeOther, "the old address still signs in")

            let link = try confirmation.link(to: "/account/email/confirm")
            #expect(try await browser.get(link).text.contains("Use \(new)"))
            let done = try await browser.submit("/account/email/confirm", from: link, [("token", try confirmation.token(in: "/account/email/confirm"))])
            #expect(done.location == "/account?notice=email-changed")
            let recorded: String = try await app.scalar("SELECT target FROM audit_events WHERE event = 'email.changed'")
            #expect(recorded == "\(old) → \(new)", "the audit log keeps the address the account had")
            let account = try await browser.get("/account").text
            #expect(account.contains(new) && !account.contains(old))
            #expect(account.contains("Confirmed"), "confirmed by the link")
            let changed = try await MailSink.waitForMessage(to: old, subject: "email address was changed")
            // A reset would go to the new address, which is whoever made the change: the mail must not send the owner there.
            #expect(!changed.text.contains("/password/forgot") && changed.text.contains("contact the people who run this Selfie at once"))
            #expect(try await app.browser().signIn(email: new).status == .seeOther)
            #expect(try await app.browser().signIn(email: old).status == .unauthorized)
            #expect(try await browser.submit("/account/email/confirm", from: "/account", [("token", try confirmation.token(in: "/account/email/confirm"))]).status == .gone)
        }
    }

    @Test("an address change asked for by a session that was then thrown out dies with it: the admin's 'revoke access', a disable and enable, the owner's 'sign out everywhere else'")
    func addressChangeDiesWithTheSession() async throws {
        try await withTestApp(configure: { try $0.useMailSink() }) { app in
            let admin = try await app.signedInAdmin()
            for remedy in ["revoke access", "disable and enable", "sign out everywhere else"] {
                let owner = uniqueEmail("owner")
                // The thief holds a session of the account (and knows its password): they ask to move
                // it to their own address, and the link comes to them.
                let thief = app.browser()
                try await thief.signUp(email: owner)
                let theirs = uniqueEmail("thief")
                let asked = try await thief.submit("/account/email", from: "/account", [("email", theirs), ("current_password", "correct horse battery")])
                #expect(asked.location == "/account?notice=email-change-requested")
                let link = try await MailSink.waitForMessage(to: theirs, subject: "Confirm your new email address")
                let id = try await app.userID(owner)
                switch remedy {
                case "revoke access":
                    try await admin.submit("/admin/users/\(id)/revoke-access", from: "/admin/users/\(id)/revoke-access", [])
                case "disable and enable":
                    try await admin.submit("/admin/users/\(id)/disable", from: "/admin/users/\(id)/disable", [])
                    try await admin.submit("/admin/users/\(id)/enable", from: "/admin/users/\(id)/enable", [])
                default:
                    let ownersBrowser = app.browser()
                    #expect(try await ownersBrowser.signIn(email: owner).status == .seeOther)
                    let ended = try await ownersBrowser.submit("/account/sessions/end-others", from: "/account", [])
                    #expect(ended.status == .seeOther, "\(ended.status) \(ended.text)")
                }
                #expect(try await thief.get("/account").status == .seeOther, "\(remedy): the thief's session ended")
                let used = try await app.browser().submit(
                    "/account/email/confirm", from: "/signin", [("token", try link.token(in: "/account/email/confirm"))]
                )
                #expect(used.status == .gone, "\(remedy): \(used.status)")
                let email: String = try await app.scalar("SELECT email FROM users WHERE id = \(id)")
                #expect(email == owner, "\(remedy)")
            }
        }
    }

    @Test("race: an address change whose password was checked before the session was thrown out makes no link (the remedy commits while the request waits to write it)")
    func addressChangeRacingTheRemedy() async throws {
        try await withTestApp(configure: { config in
            try config.useMailSink()
            config.protection.verificationMailsPerDay = 100  // counted, so the counter's row exists
        }) { app in
            let admin = try await app.signedInAdmin()
            for remedy in ["sign out everywhere else", "revoke access", "disable and enable"] {
                let owner = uniqueEmail("owner")
                let thief = app.browser()
                try await thief.signUp(email: owner)
                let id = try await app.userID(owner)
                let ownersBrowser = app.browser()
                #expect(try await ownersBrowser.signIn(email: owner).status == .seeOther)
                // A first change makes the account's counter of mailed links, which the test then
                // holds: the thief's second request, its password checked, waits there to write.
                let first = try await thief.submit("/account/email", from: "/account", [("email", uniqueEmail("first")), ("current_password", "correct horse battery")])
                #expect(first.location == "/account?notice=email-change-requested")
                let theirs = uniqueEmail("thief")
                let late = try await app.db { client in
                    try await client.transaction(logger: testLogger) { connection in
                        try await connection.query(
                            "SELECT hits FROM rate_limit_counters WHERE action = 'verification-mail' AND client = \("user:\(id)") FOR UPDATE",
                            logger: testLogger
                        )
                        let port = try #require(app.client.port)
                        let late = Task {
                            try await thief.submitOnItsOwnConnection(
                                "/account/email", from: "/account", [("email", theirs), ("current_password", "correct horse battery")], port: port
                            )
                        }
                        try await TestApp.untilSomeoneWaitsForALock(client)
                        switch remedy {
                        case "sign out everywhere else":
                            let ended = try await ownersBrowser.submit("/account/sessions/end-others", from: "/account", [])
                            #expect(ended.status == .seeOther, "\(ended.status)")
                        case "revoke access":
                            try await admin.submit("/admin/users/\(id)/revoke-access", from: "/admin/users/\(id)/revoke-access", [])
                        default:
                            try await admin.submit("/admin/users/\(id)/disable", from: "/admin/users/\(id)/disable", [])
                            try await admin.submit("/admin/users/\(id)/enable", from: "/admin/users/\(id)/enable", [])
                        }
                        return late
                    }
                }
                let answer = try await late.value
                #expect(answer.status != 0, "\(remedy): answered")
                #expect(!answer.head.contains("notice=email-change-requested"), "\(remedy): \(answer.head)")
                #expect(answer.status == 303 && answer.head.lowercased().contains("location: /account/confirm?next="), "\(remedy): asked to sign in again: \(answer.head)")
                #expect(try await app.scalar("SELECT count(*)::int FROM email_tokens WHERE email = \(theirs)", as: Int.self) == 0, "\(remedy): no link")
                #expect(try await app.scalar("SELECT count(*)::int FROM mail_outbox WHERE recipient = \(theirs)", as: Int.self) == 0, "\(remedy): no mail")
                #expect(try await thief.get("/account").status == .seeOther, "\(remedy): the thief's session ended")
            }
        }
    }

    @Test("race: an address change whose insert waits behind a remedy that holds the account's row (revoke access, disable, delete) makes no link and no deadlock")
    func addressChangeWaitingBehindTheAccountsLock() async throws {
        try await withTestApp(configure: { try $0.useMailSink() }) { app in
            let owner = uniqueEmail("owner")
            let thief = app.browser()
            try await thief.signUp(email: owner)
            let id = try await app.userID(owner)
            let theirs = uniqueEmail("thief")
            let port = try #require(app.client.port)
            // What an admin's remedy does: the account's row first, then its sessions.
            let answer = try await app.racing({
                try await thief.submitOnItsOwnConnection(
                    "/account/email", from: "/account", [("email", theirs), ("current_password", "correct horse battery")], port: port
                )
            }, holdingUser: id) { connection in
                try await connection.query("DELETE FROM web_sessions WHERE user_id = \(id)", logger: testLogger)
            }
            #expect(answer.status == 303 && answer.head.lowercased().contains("location: /account/confirm?next="), "\(answer.head)")
            #expect(try await app.scalar("SELECT count(*)::int FROM email_tokens WHERE email = \(theirs)", as: Int.self) == 0)
        }
    }

    @Test("an address taken by another account before the link is used: a clear 409, nothing changes")
    func changeToTakenAddress() async throws {
        try await withTestApp(configure: { try $0.useMailSink() }) { app in
            let old = uniqueEmail("mover")
            let wanted = uniqueEmail("wanted")
            let browser = app.browser()
            try await browser.signUp(email: old)
            try await browser.submit("/account/email", from: "/account", [("email", wanted), ("current_password", "correct horse battery")])
            let confirmation = try await MailSink.waitForMessage(to: wanted, subject: "Confirm your new email address")
            _ = try await app.api.signUp(email: wanted)
            let refused = try await browser.submit("/account/email/confirm", from: "/account", [("token", try confirmation.token(in: "/account/email/confirm"))])
            #expect(refused.status == .conflict)
            #expect(refused.text.contains("Another account took this address in the meantime"))
            #expect(try await app.browser().signIn(email: old).status == .seeOther)
        }
    }

    @Test("security notices: a changed password and a linked provider are mailed to the account's address")
    func securityNotices() async throws {
        try await withTestApp(configure: { try $0.useMailSink() }) { app in
            let email = uniqueEmail("notices")
            let browser = app.browser()
            try await browser.signUp(email: email)
            try await browser.submit(
                "/account/password", from: "/account",
                [("current_password", "correct horse battery"), ("new_password", "second password 2"), ("new_password_confirmation", "second password 2")]
            )
            let changed = try await MailSink.waitForMessage(to: email, subject: "Your Selfie password was changed")
            #expect(changed.text.contains("/password/forgot"), "says what to do if it was not them")

            let token = try #require(try await app.api.signIn(email: email, password: "second password 2").json()["api_authtoken"] as? String)
            let reset = try await app.api.send(
                .post, "/api/reset_password",
                body: #"{"old_password":"\#(app.api.encrypt("second password 2"))","new_password":"\#(app.api.encrypt("third password 3"))"}"#,
                authorization: "Token token=\(token)"
            )
            #expect(reset.status == .ok)
            try await MailSink.waitForMessage(to: email, subject: "Your Selfie password was changed", count: 2)
        }
    }
}
