@testable import App
@testable import SelfieCore
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

/// Mail that tells the owner about changes to the ways into their account, and about sign-ins
/// from somewhere new.
@Suite("Security notices")
struct SecurityNoticeTests {
    @Test("two-step on and off, new recovery codes: each mailed to the owner")
    func secondFactorChanges() async throws {
        try await withTestApp(configure: { try $0.useMailSink() }) { app in
            let email = uniqueEmail("notified")
            let owner = app.browser()
            try await owner.signUp(email: email)
            try await app.confirmAddress(of: email)
            let (authenticator, _) = try await owner.enrolTOTP()
            try await MailSink.waitForMessage(to: email, subject: "Two-step verification is on for your Selfie account")
            let codes = try await owner.submit("/account/two-factor/recovery-codes", from: "/account", [("code", authenticator.code(offset: 1))])
            #expect(codes.status == .ok)
            try await MailSink.waitForMessage(to: email, subject: "New recovery codes for your Selfie account")
            let recoveryCode = try #require(codes.text.recoveryCodes.first)
            let off = try await owner.submit("/account/two-factor/disable", from: "/account", [("code", recoveryCode)])
            #expect(off.location == "/account?notice=two-factor-off")
            try await MailSink.waitForMessage(to: email, subject: "Two-step verification was turned off for your Selfie account")
        }
    }

    @Test("a passkey removed, and an administrator's reset of two-step verification: each mailed to the owner")
    func passkeyRemovedAndAdminReset() async throws {
        try await withTestApp(configure: { try $0.useMailSink() }) { app in
            let email = uniqueEmail("reset-notice")
            let owner = app.browser()
            try await owner.signUp(email: email)
            try await app.confirmAddress(of: email)
            let passkey = TestPasskey()
            #expect(try await passkey.add(in: owner).location == "/account?notice=passkey-added")
            let passkeyID: Int64 = try await app.scalar("SELECT id FROM passkeys")
            let removed = try await owner.submit("/account/passkeys/\(passkeyID)/remove", from: "/account", [])
            #expect(removed.location == "/account?notice=passkey-removed")
            let mail = try await MailSink.waitForMessage(to: email, subject: "A passkey was removed from your Selfie account")
            #expect(mail.text.contains("Chrome on Linux"), "names the passkey")

            _ = try await owner.enrolTOTP()
            let userID = try await app.userID(email)
            let admin = try await app.signedInAdmin()
            _ = try await admin.submit("/admin/users/\(userID)/reset-two-factor", from: "/admin/users/\(userID)/reset-two-factor", [])
            try await MailSink.waitForMessage(to: email, subject: "An administrator reset two-step verification on your Selfie account")
        }
    }

    @Test("a sign-in from a browser or network the account has not used is mailed, once; the first sign-in is not")
    func newSignIn() async throws {
        try await withTestApp(configure: { try $0.useMailSink() }) { app in
            let email = uniqueEmail("traveller")
            try await app.browser().signUp(email: email)  // the first sign-in: nothing to report
            try await app.browser().signIn(email: email)  // the same browser and network
            let phone = app.browser()
            phone.userAgent = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 Version/17.0 Mobile/15E148 Safari/604.1"
            #expect(try await phone.signIn(email: email).status == .seeOther)
            let mail = try await MailSink.waitForMessage(to: email, subject: "A new sign-in to your Selfie account")
            #expect(mail.text.contains("Safari on iPhone") && mail.text.contains("127.0.0.0/24"))
            #expect(mail.text.contains("/account#sessions"))
            let samePhone = app.browser()
            samePhone.userAgent = phone.userAgent
            #expect(try await samePhone.signIn(email: email).status == .seeOther)
            try await Task.sleep(for: .milliseconds(500))
            #expect(try MailSink.messages(to: email).filter { $0.subject == "A new sign-in to your Selfie account" }.count == 1)
        }
    }

    @Test("a notice commits with the change it tells about: while the outbox refuses its row, the change is refused too (503) and nothing changed; a device is not remembered without its notice")
    func noticeAndChangeTogether() async throws {
        try await withTestApp(configure: { try $0.useMailSink() }) { app in
            let email = uniqueEmail("together")
            let owner = app.browser()
            try await owner.signUp(email: email)
            try await app.confirmAddress(of: email)
            let userID = try await app.userID(email)
            // A full disk, as far as the outbox goes.
            try await app.db {
                try await $0.query(
                    """
                    CREATE FUNCTION outbox_full() RETURNS trigger LANGUAGE plpgsql AS $$
                    BEGIN RAISE EXCEPTION 'the outbox is full' USING ERRCODE = '53100'; END $$
                    """
                )
                try await $0.query("CREATE TRIGGER outbox_full BEFORE INSERT ON mail_outbox FOR EACH ROW EXECUTE FUNCTION outbox_full()")
            }

            let changed = try await owner.submit(
                "/account/password", from: "/account",
                [("current_password", "correct horse battery"), ("new_password", "second password 2"), ("new_password_confirmation", "second password 2")]
            )
            #expect(changed.status == .serviceUnavailable)
            #expect(try await app.browser().signIn(email: email).status == .seeOther, "the old password still works")
            #expect(try await app.browser().signIn(email: email, password: "second password 2").status == .unauthorized)

            let moving = try await owner.submit("/account/email", from: "/account", [("email", uniqueEmail("new")), ("current_password", "correct horse battery")])
            #expect(moving.status == .serviceUnavailable)
            #expect(try await app.scalar("SELECT count(*)::int FROM email_tokens WHERE user_id = \(userID) AND purpose = 'change_email'") == 0)

            let phone = app.browser()
            phone.userAgent = "Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 Version/17.0 Mobile/15E148 Safari/604.1"
            #expect(try await phone.signIn(email: email).status == .seeOther, "the sign-in itself is done")
            let devices: Int = try await app.scalar("SELECT count(*)::int FROM known_sign_ins WHERE user_id = \(userID)")

            let leaving = try await owner.submit("/account/delete", from: "/account", [("current_password", "correct horse battery")])
            #expect(leaving.status == .serviceUnavailable)
            #expect(try await app.scalar("SELECT count(*)::int FROM users WHERE id = \(userID)") == 1, "no account deleted without its goodbye")

            // The outbox takes rows again: the same sign-in from the phone is news, and mailed.
            try await app.db { try await $0.query("DROP TRIGGER outbox_full ON mail_outbox") }
            let phoneAgain = app.browser()
            phoneAgain.userAgent = phone.userAgent
            #expect(try await phoneAgain.signIn(email: email).status == .seeOther)
            try await MailSink.waitForMessage(to: email, subject: "A new sign-in to your Selfie account")
            #expect(try await app.scalar("SELECT count(*)::int FROM known_sign_ins WHERE user_id = \(userID)") == devices + 1, "remembered with its notice")
        }
    }

    @Test("a password change whose COMMIT ran but whose answer was lost: its notice committed with it")
    func noticeWithALostCommit() async throws {
        try await SilentProxy.with { proxy in
            try await withTestApp(configure: { config in
                proxy.carry(&config)
                config.logLevel = .critical
            }) { app in
                let email = uniqueEmail("lost-answer")
                let owner = app.browser()
                try await owner.signUp(email: email)
                proxy.cut(after: "UPDATE users SET password_hash", at: "COMMIT", delivered: true)
                let changed = try await owner.submit(
                    "/account/password", from: "/account",
                    [("current_password", "correct horse battery"), ("new_password", "second password 2"), ("new_password_confirmation", "second password 2")]
                )
                #expect(proxy.hasCut)
                #expect(changed.status == .serviceUnavailable, "the answer was lost: the server cannot tell")
                #expect(try await app.browser().signIn(email: email, password: "second password 2").status == .seeOther, "it did change")
                #expect(
                    try await app.scalar("SELECT count(*)::int FROM mail_outbox WHERE recipient = \(email) AND kind = 'password_changed'") == 1,
                    "and the owner is told"
                )
            }
        }
    }

    @Test("“someone tried to sign up with your address”: at most one a day")
    func signUpAttemptsOncePerDay() async throws {
        try await withTestApp(configure: { try $0.useMailSink() }) { app in
            let email = uniqueEmail("taken")
            try await app.browser().signUp(email: email)
            for _ in 1...3 { try await app.browser().submitSignUp(name: "Someone", email: email, password: "another password") }
            try await MailSink.waitForMessage(to: email, subject: "Someone tried to sign up to Selfie with your address")
            try await Task.sleep(for: .milliseconds(500))
            #expect(try MailSink.messages(to: email).filter { $0.subject.hasPrefix("Someone tried") }.count == 1)
        }
    }
}
