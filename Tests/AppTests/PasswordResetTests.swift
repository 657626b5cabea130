@testable import App
@testable import SelfieCore
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

/// Forgotten passwords, by mail through the test SMTP server: the form and the API answer alike
/// for every address, the link works once for an hour and dies with any password change, and
/// using it signs out every session and token.
@Suite("Forgotten passwords")
struct PasswordResetTests {
    @Test("the form answers byte for byte the same for an account's address and an unknown one; only the account gets mail")
    func sameAnswerForEveryAddress() async throws {
        try await withTestApp(configure: { try $0.useMailSink() }) { app in
            let email = uniqueEmail("known")
            try await app.browser().signUp(email: email)
            let unknown = uniqueEmail("unknown")
            let browser = app.browser()
            let forUnknown = try await browser.submit("/password/forgot", from: "/password/forgot", [("email", unknown)])
            let forKnown = try await browser.submit("/password/forgot", from: "/password/forgot", [("email", email)])
            #expect(forKnown.status == .seeOther && forKnown.location == "/password/forgot/sent", "redirected: a reload mails nothing again")
            #expect(forUnknown.status == forKnown.status && forUnknown.location == forKnown.location)
            #expect(forUnknown.text == forKnown.text)
            #expect(forUnknown.headers[.contentLength] == forKnown.headers[.contentLength])
            let sent = try await browser.get("/password/forgot/sent")
            #expect(sent.status == .ok && sent.text.contains("If that address belongs to a Selfie account"))

            let mail = try await MailSink.waitForMessage(to: email, subject: "Reset your Selfie password")
            #expect(mail.text.contains("/password/reset?token="))
            #expect(mail.html.contains("/password/reset?token="))
            let requested = try await app.auditCount("password.reset_requested")
            #expect(requested == 1)
            #expect(try MailSink.messages(to: unknown).isEmpty)
            let queuedForUnknown: Int = try await app.scalar("SELECT count(*)::int FROM mail_outbox WHERE recipient = \(unknown)")
            #expect(queuedForUnknown == 0)
        }
    }

    @Test("the API answers the same JSON for every address; a malformed one is a 422")
    func apiSameAnswer() async throws {
        try await withTestApp(configure: { try $0.useMailSink() }) { app in
            let email = uniqueEmail("api")
            _ = try await app.api.signUp(email: email)
            func ask(_ address: String) async throws -> TestResponse {
                try await app.api.send(.post, "/api/forgot_password", body: #"{"email":"\#(address)"}"#, authorization: app.api.basicAuthorization)
            }
            let known = try await ask(email)
            let unknown = try await ask(uniqueEmail("nobody"))
            #expect(known.status == .ok)
            #expect(unknown.status == known.status)
            #expect(unknown.text == known.text)
            #expect(try known.json()["message"] as? String == "If this address belongs to an account, a link to choose a new password is on its way. It works for one hour.")
            try await MailSink.waitForMessage(to: email, subject: "Reset your Selfie password")

            let malformed = try await ask("not-an-address")
            #expect(malformed.status == .unprocessableContent)
            let withoutKey = try await app.api.send(.post, "/api/forgot_password", body: #"{"email":"\#(email)"}"#, authorization: nil)
            #expect(withoutKey.status == .unauthorized)
        }
    }

    @Test("the link sets a new password once: every session and API token ends, the old password stops working, a notice is mailed")
    func resetThroughTheLink() async throws {
        try await withTestApp(configure: { try $0.useMailSink() }) { app in
            let email = uniqueEmail("reset")
            let elsewhere = app.browser()
            try await elsewhere.signUp(email: email)
            let token = try #require(try await app.api.signIn(email: email).json()["api_authtoken"] as? String)

            let browser = app.browser()
            try await browser.submit("/password/forgot", from: "/password/forgot", [("email", email)])
            let mail = try await MailSink.waitForMessage(to: email, subject: "Reset your Selfie password")
            let link = try mail.link(to: "/password/reset")
            let resetToken = try mail.token(in: "/password/reset")

            let form = try await browser.get(link)
            #expect(form.status == .ok)
            #expect(form.text.contains("Choose a new password"))
            #expect(form.text.contains("For \(email)."))
            #expect(try await browser.get(link).status == .ok, "opening the link uses nothing up")

            let mismatch = try await browser.submit(
                "/password/reset", from: link,
                [("token", resetToken), ("new_password", "brand new password"), ("new_password_confirmation", "something else")]
            )
            #expect(mismatch.status == .unprocessableContent)
            #expect(mismatch.text.contains("The two passwords do not match."))

            let done = try await browser.submit(
                "/password/reset", from: link,
                [("token", resetToken), ("new_password", "brand new password"), ("new_password_confirmation", "brand new password")]
            )
            #expect(done.status == .seeOther)
            #expect(done.location == "/signin?notice=password-reset")
            #expect(try await browser.get("/signin?notice=password-reset").text.contains("every session was signed out"))

            let gallery = try await elsewhere.get("/gallery")
            #expect(gallery.status == .seeOther, "the session on the other browser ended")
            #expect(gallery.location?.hasPrefix("/signin") == true)
            #expect(try await app.api.getPhotos(token: token).status == .unauthorized, "the API token ended")
            #expect(try await app.browser().signIn(email: email).status == .unauthorized, "the old password no longer works")
            #expect(try await app.browser().signIn(email: email, password: "brand new password").status == .seeOther)
            #expect(try await app.auditCount("password.reset") == 1)
            try await MailSink.waitForMessage(to: email, subject: "Your Selfie password was changed")

            // Used up: the page says so, and a replayed POST changes nothing.
            let again = try await browser.get(link)
            #expect(again.status == .gone)
            #expect(again.text.contains("This link does not work any more"))
            #expect(again.text.contains("Nothing was changed"))
            let replay = try await browser.submit(
                "/password/reset", from: "/password/forgot",
                [("token", resetToken), ("new_password", "a third password"), ("new_password_confirmation", "a third password")]
            )
            #expect(replay.status == .gone)
            #expect(try await app.browser().signIn(email: email, password: "a third password").status == .unauthorized)
            #expect(try await app.browser().signIn(email: email, password: "brand new password").status == .seeOther)
        }
    }

    @Test("an expired link, and a link from before a password change, get the clear page and change nothing")
    func expiredAndSupersededLinks() async throws {
        try await withTestApp(configure: { try $0.useMailSink() }) { app in
            let email = uniqueEmail("expired")
            let browser = app.browser()
            try await browser.signUp(email: email)
            try await browser.submit("/password/forgot", from: "/password/forgot", [("email", email)])
            let first = try await MailSink.waitForMessage(to: email, subject: "Reset your Selfie password")
            let expiresIn: Double = try await app.scalar(
                "SELECT extract(epoch FROM expires_at - created_at)::float8 FROM email_tokens WHERE purpose = 'reset_password'"
            )
            #expect(expiresIn == 3600, "a reset link works for one hour")
            try await app.db { try await $0.query("UPDATE email_tokens SET expires_at = now() - interval '1 second'") }
            let expired = try await browser.get(try first.link(to: "/password/reset"))
            #expect(expired.status == .gone)
            #expect(expired.text.contains(#"<a href="/password/forgot">Mail me a new link</a>"#))
            let post = try await browser.submit(
                "/password/reset", from: "/password/forgot",
                [("token", try first.token(in: "/password/reset")), ("new_password", "never set 123"), ("new_password_confirmation", "never set 123")]
            )
            #expect(post.status == .gone)
            #expect(try await app.browser().signIn(email: email, password: "never set 123").status == .unauthorized)

            // A fresh link, then the password is changed on the account page: the link dies with it.
            try await browser.submit("/password/forgot", from: "/password/forgot", [("email", email)])
            let second = try await MailSink.waitForMessage(to: email, subject: "Reset your Selfie password", count: 2)
            try await browser.submit(
                "/account/password", from: "/account",
                [("current_password", "correct horse battery"), ("new_password", "changed meanwhile 1"), ("new_password_confirmation", "changed meanwhile 1")]
            )
            #expect(try await browser.get(try second.link(to: "/password/reset")).status == .gone)
        }
    }

    @Test("at most three links an hour go to one address, however often it is asked; the form itself is limited per client address")
    func limits() async throws {
        try await withTestApp(configure: { config in
            try config.useMailSink()
            config.protection.resetMailsPerHour = 2
            config.protection.signInsPerMinute = 4
        }) { app in
            let email = uniqueEmail("limited")
            _ = try await app.api.signUp(email: email)
            let browser = app.browser()
            // Windows are fixed minutes: if one ends mid-test the count starts again, so within ten
            // requests a 429 must come, after four answers in its window.
            var statuses: [HTTPResponse.Status] = []
            for _ in 1...10 {
                let status = try await browser.submit("/password/forgot", from: "/password/forgot", [("email", email)]).status
                statuses.append(status)
                if status == .tooManyRequests { break }
            }
            #expect(statuses.last == .tooManyRequests, "\(statuses)")
            #expect(statuses.count >= 5 && statuses.dropLast().suffix(4).allSatisfy { $0 == .seeOther }, "\(statuses)")
            try await MailSink.waitForMessage(to: email, subject: "Reset your Selfie password", count: 2)
            try await Task.sleep(for: .seconds(1))
            let queued: Int = try await app.scalar("SELECT count(*)::int FROM mail_outbox WHERE recipient = \(email) AND kind = 'password_reset'")
            #expect(queued == 2, "two links an hour to one address, whatever the answers said")
        }
    }

    @Test("the links an hour are counted per account, not per spelling of its address: \"İ\" for \"i\" (which PostgreSQL's lower() folds to the same account and Swift's does not) and capitals get no more links")
    func limitsPerAccountNotPerSpelling() async throws {
        try await withTestApp(configure: { config in
            try config.useMailSink()
            config.protection.resetMailsPerHour = 2
        }) { app in
            let email = uniqueEmail("limited")
            _ = try await app.api.signUp(email: email)
            let spellings = [email, email.replacingOccurrences(of: "i", with: "İ"), email.uppercased(), email.replacingOccurrences(of: "l", with: "L")]
            #expect(spellings[1] != email && spellings[1].lowercased() != email, "a spelling Swift lowercases apart")
            for spelling in spellings {
                let answer = try await app.browser().submit("/password/forgot", from: "/password/forgot", [("email", spelling)])
                #expect(answer.status == .seeOther)
            }
            try await MailSink.waitForMessage(to: email, subject: "Reset your Selfie password", count: 2)
            try await Task.sleep(for: .seconds(1))
            let queued: Int = try await app.scalar("SELECT count(*)::int FROM mail_outbox WHERE recipient = \(email) AND kind = 'password_reset'")
            #expect(queued == 2, "two links an hour to the account, however its address was typed")
        }
    }

    @Test("admins mail a reset link from the user's page (audited); `selfie admin reset-link` prints one that works")
    func adminResetLinks() async throws {
        try await withTestApp(configure: { try $0.useMailSink() }) { app in
            let adminEmail = uniqueEmail("admin")
            let admin = try await app.signedInAdmin(email: adminEmail)
            let adminID = try await app.userID(adminEmail)
            let email = uniqueEmail("locked-out")
            try await app.browser().signUp(email: email)
            let id = try await app.userID(email)

            #expect(try await admin.get("/admin/users/\(id)").text.contains(#"href="/admin/users/\#(id)/send-reset-link""#))
            #expect(try await admin.get("/admin/users/\(id)/send-reset-link").text.contains("it works once, for one hour"))
            let sent = try await admin.submit("/admin/users/\(id)/send-reset-link", from: "/admin/users/\(id)/send-reset-link", [])
            #expect(sent.status == .seeOther)
            #expect(sent.location == "/admin/users/\(id)?notice=reset-link-sent")
            let mail = try await MailSink.waitForMessage(to: email, subject: "Reset your Selfie password")
            #expect(try await app.auditCount("admin.reset_link_issued", actor: adminID, target: id) == 1)
            #expect(try await app.browser().get(try mail.link(to: "/password/reset")).status == .ok)

            let commands = AdminCommands(config: app.config, logger: testLogger)
            let printed = try await commands.resetLink(email: email.uppercased())
            #expect(printed.count == 2)
            #expect(printed.last?.hasPrefix("http://localhost/password/reset?token=") == true)
            let url = try #require(printed.last.flatMap(URLComponents.init(string:)))
            let form = try await app.browser().get(url.percentEncodedPath + "?" + (url.percentEncodedQuery ?? ""))
            #expect(form.status == .ok)
            #expect(form.text.contains("For \(email)."))
            let byCommandLine: Int = try await app.scalar(
                "SELECT count(*)::int FROM audit_events WHERE event = 'admin.reset_link_issued' AND actor_id IS NULL AND target_user_id = \(id)"
            )
            #expect(byCommandLine == 1)
            try await Task.sleep(for: .milliseconds(500))
            #expect(try MailSink.messages(to: email).filter { $0.subject.contains("Reset") }.count == 1, "the printed link is not mailed")
            await #expect(throws: AdminCommandError.self) { try await commands.resetLink(email: uniqueEmail("nobody")) }
        }
    }

    /// Forgot password → the mailed link (the newest) → a new password; returns when the reset is done.
    static func reset(_ email: String, to password: String, app: TestApp) async throws {
        let owner = app.browser()
        let subject = "Reset your Selfie password"
        let earlier = try MailSink.messages(to: email).filter { $0.subject.contains(subject) }.count
        try await owner.submit("/password/forgot", from: "/password/forgot", [("email", email)])
        let mail = try await MailSink.waitForMessage(to: email, subject: subject, count: earlier + 1)
        let link = try mail.link(to: "/password/reset")
        let done = try await owner.submit(
            "/password/reset", from: link,
            [("token", try mail.token(in: "/password/reset")), ("new_password", password), ("new_password_confirmation", password)]
        )
        guard done.status == .seeOther else { throw TestSetupError("the reset was refused: \(done.status)") }
    }

    @Test("attack: someone who signed up with an address they do not own cannot add a passkey to it (none to outlive the owner's reset), and the reset ends their session")
    func preRegisteredPasskeyDiesWithTheReset() async throws {
        try await withTestApp(configure: { try $0.useMailSink() }) { app in
            // The attacker signs up with the victim's address before the victim does
            // (REQUIRE_VERIFIED_EMAIL=false, the default) and tries to add a passkey.
            let victim = uniqueEmail("victim")
            let attacker = app.browser()
            try await attacker.signUp(email: victim, password: "attacker password")
            let passkey = TestPasskey()
            let added = try await passkey.add(in: attacker)
            #expect(added.status == .forbidden, "no passkey before the address is confirmed")

            // The victim claims the account through "forgot password".
            try await Self.reset(victim, to: "the victim's password", app: app)

            #expect(passkey.authenticator == nil, "refused at its options: nothing was registered")
            #expect(try await app.scalar("SELECT count(*)::int FROM passkeys") == 0)
            #expect(try await attacker.get("/gallery").status == .seeOther, "the attacker's session ended")
        }
    }

    @Test("attack: a share link someone made on an address they do not own stops working at the owner's reset (their browser is no longer known); links made after it stay")
    func preRegisteredShareLinkDiesWithTheReset() async throws {
        try await withTestApp(configure: { try $0.useMailSink() }) { app in
            // The attacker signs up with the victim's address and shares an album of the account:
            // whatever the victim later adds to it would be shown to the attacker.
            let victim = uniqueEmail("victim")
            let attacker = app.browser()
            try await attacker.signUp(email: victim, password: "attacker password")
            let photo = try await attacker.uploadPhoto(TestImage.jpeg(size: 800, seed: 3), title: "Bait")
            let album = try await attacker.makeAlbum("Holidays", of: [photo])
            let token = try await attacker.makeLink(("album", album), expires: "never")
            #expect(try await app.browser().get("/s/\(token)").status == .ok)
            #expect(try await app.scalar("SELECT count(*)::int FROM known_sign_ins") == 1, "the attacker's browser is known")

            try await Self.reset(victim, to: "the victim's password", app: app)

            #expect(try await app.browser().get("/s/\(token)").status == .notFound, "the attacker's link no longer opens the album")
            #expect(try await app.scalar("SELECT count(*)::int FROM share_links") == 0)
            #expect(try await app.scalar("SELECT count(*)::int FROM known_sign_ins") == 0, "a sign-in from the attacker's browser would be mailed as new")

            // The owner's own links, made once the address is proven, outlive a later reset.
            let owner = app.browser()
            _ = try await owner.signIn(email: victim, password: "the victim's password")
            let ownLink = try await owner.makeLink(("album", album))
            try await Self.reset(victim, to: "the victim's new password", app: app)
            #expect(try await app.browser().get("/s/\(ownLink)").status == .ok, "a reset of a proven address keeps its links")
        }
    }

    @Test("attack: an email-change link asked for before a reset dies with the reset")
    func emailChangeLinkDiesWithTheReset() async throws {
        try await withTestApp(configure: { try $0.useMailSink() }) { app in
            let email = uniqueEmail("owner")
            let evil = uniqueEmail("evil")
            let attacker = app.browser()
            try await attacker.signUp(email: email)  // the attacker knows the password
            let asked = try await attacker.submit(
                "/account/email", from: "/account", [("email", evil), ("current_password", "correct horse battery")]
            )
            #expect(asked.status == .seeOther)
            let change = try await MailSink.waitForMessage(to: evil, subject: "Confirm your new email address for Selfie")

            // The owner notices and resets the password.
            try await Self.reset(email, to: "the owner's new password", app: app)

            let used = try await app.browser().submit(
                "/account/email/confirm", from: "/signin",
                [("token", try change.token(in: "/account/email/confirm"))]
            )
            #expect(used.status == .gone, "the change link died with the reset")
            let current: String = try await app.scalar("SELECT email FROM users WHERE id = \(try await app.userID(email))")
            #expect(current == email)
        }
    }

    @Test("a reset link works only while its address is still the account's (the twin of killing links on an address change)")
    func resetFollowsTheAddress() async throws {
        try await withTestApp(configure: { try $0.useMailSink() }) { app in
            let email = uniqueEmail("moved")
            try await app.browser().signUp(email: email)
            let owner = app.browser()
            try await owner.submit("/password/forgot", from: "/password/forgot", [("email", email)])
            let mail = try await MailSink.waitForMessage(to: email, subject: "Reset your Selfie password")
            // The address changes without the change's own clean-up (which kills the link as well):
            // the link must still not work for an account that no longer has that address.
            let userID = try await app.userID(email)
            try await app.db { try await $0.query("UPDATE users SET email = \(uniqueEmail("elsewhere")) WHERE id = \(userID)") }
            let used = try await owner.submit(
                "/password/reset", from: "/password/forgot",
                [("token", try mail.token(in: "/password/reset")), ("new_password", "taken over 1"), ("new_password_confirmation", "taken over 1")]
            )
            #expect(used.status == .gone)
            let unchanged: Int = try await app.scalar("SELECT count(*)::int FROM audit_events WHERE event = 'password.reset'")
            #expect(unchanged == 0)
        }
    }

    @Test("a password reset forgets remembered browsers and ends parked sign-ins")
    func resetForgetsBrowsers() async throws {
        try await withTestApp(configure: { try $0.useMailSink() }) { app in
            let email = uniqueEmail("remembered")
            try await app.browser().signUp(email: email)
            let userID = try await app.userID(email)
            try await app.db { client in
                try await client.query("INSERT INTO remembered_browsers (token_hash, user_id, expires_at) VALUES (\(ByteBuffer(bytes: [UInt8](repeating: 7, count: 32))), \(userID), now() + interval '1 day')")
            }
            try await Self.reset(email, to: "a fresh password 1", app: app)
            #expect(try await app.scalar("SELECT count(*)::int FROM remembered_browsers") == 0)
        }
    }
}
