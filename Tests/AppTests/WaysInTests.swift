@testable import App
@testable import SelfieCore
import FakeProviders
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing

/// An account keeps at least one way in (a password, a linked provider, a passkey): the account
/// page offers removing one only while another remains, and the database refuses the last one
/// even when two removals race (the two checks are twins: each is tested on its own).
@Suite("Ways in")
struct WaysInTests {
    /// An account made through Google (no password) with one passkey: two ways in.
    func providerAccountWithPasskey(_ app: TestApp, _ fake: FakeProviders, subject: String) async throws -> (Browser, email: String) {
        let email = "\(subject)@example.com"
        fake.setPerson(.init(subject: subject, email: email, emailVerified: true, name: "Wanda Ways"))
        let browser = app.browser()
        let callback = try await SocialSignInWebTests().goThroughProvider(browser, start: "/auth/google/start", from: "/signin")
        #expect(try await browser.get(callback).status == .seeOther)
        #expect(try await TestPasskey().add(in: browser).location == "/account?notice=passkey-added")
        return (browser, email)
    }

    func ways(_ app: TestApp, _ email: String) async throws -> Int {
        try await app.scalar(
            """
            SELECT ((SELECT count(*) FROM user_identities i JOIN users u ON u.id = i.user_id WHERE u.email = \(email))
                  + (SELECT count(*) FROM passkeys p JOIN users u ON u.id = p.user_id WHERE u.email = \(email)))::int
            """
        )
    }

    @Test("a passkey counts: a provider-made account can unlink its provider once it has a passkey, then cannot remove that passkey")
    func passkeyCounts() async throws {
        try await withFakeProviders { app, fake in
            let (browser, email) = try await providerAccountWithPasskey(app, fake, subject: "ways-1")
            let page = try await browser.get("/account").text
            #expect(page.contains(">Unlink</button>") && page.contains("Remove passkey"), "two ways in: either may go")
            let identityID: Int64 = try await app.scalar("SELECT id FROM user_identities")
            let unlinked = try await browser.submit("/account/identities/\(identityID)/unlink", from: "/account", [])
            #expect(unlinked.location == "/account?notice=identity-unlinked")
            let after = try await browser.get("/account").text
            #expect(!after.contains("Remove passkey"), "the last way in is not offered for removal")
            let passkeyID: Int64 = try await app.scalar("SELECT id FROM passkeys")
            let refused = try await browser.submit("/account/passkeys/\(passkeyID)/remove", from: "/account", [])
            #expect(refused.status == .conflict && refused.text.contains("only way to sign in"))
            #expect(try await ways(app, email) == 1)
        }
    }

    @Test("an admin's reset of two-step and passkeys is refused only when the passkeys are the last way in and no address can bring the owner back")
    func adminResetKeepsTheLastWayIn() async throws {
        try await withFakeProviders(configure: { try $0.useMailSink() }) { app, fake in
            let admin = try await app.signedInAdmin()
            func passkeyOnly(subject: String, email: String?) async throws -> (Browser, userID: Int64) {
                fake.setPerson(.init(subject: subject, email: email, emailVerified: true, name: "Wanda Ways"))
                let browser = app.browser()
                let callback = try await SocialSignInWebTests().goThroughProvider(browser, start: "/auth/google/start", from: "/signin")
                #expect(try await browser.get(callback).status == .seeOther)
                #expect(try await TestPasskey().add(in: browser).location == "/account?notice=passkey-added")
                let userID: Int64 = try await app.scalar("SELECT user_id FROM user_identities WHERE subject = \(subject)")
                let identityID: Int64 = try await app.scalar("SELECT id FROM user_identities WHERE subject = \(subject)")
                let unlinked = try await browser.submit("/account/identities/\(identityID)/unlink", from: "/account", [])
                #expect(unlinked.location == "/account?notice=identity-unlinked")
                return (browser, userID)
            }
            func passkeys(_ userID: Int64) async throws -> Int {
                try await app.scalar("SELECT count(*)::int FROM passkeys WHERE user_id = \(userID)")
            }

            // No address, no password, no provider: the passkey is all there is.
            let (owner, addressless) = try await passkeyOnly(subject: "ways-admin-no-address", email: nil)
            let refused = try await admin.submit("/admin/users/\(addressless)/reset-two-factor", from: "/admin/users/\(addressless)/reset-two-factor", [])
            #expect(refused.status == .conflict, "\(refused.status)")
            #expect(refused.text.contains("only way to sign in"), "\(refused.text)")
            #expect(try await passkeys(addressless) == 1, "the passkey stays")
            #expect(try await app.auditCount("admin.two_factor_reset", target: addressless) == 0)
            #expect(try await owner.get("/account").status == .ok, "the owner is still signed in")

            // With an address, the owner gets back in through a reset link: the reset goes ahead.
            let email = uniqueEmail("ways-admin")
            let (_, addressed) = try await passkeyOnly(subject: "ways-admin-address", email: email)
            let reset = try await admin.submit("/admin/users/\(addressed)/reset-two-factor", from: "/admin/users/\(addressed)/reset-two-factor", [])
            #expect(reset.status == .seeOther, "\(reset.status) \(reset.text)")
            #expect(try await passkeys(addressed) == 0)
            let told = try await MailSink.waitForMessage(to: email, subject: "An administrator reset two-step verification on your Selfie account")
            #expect(told.text.contains("No password yet? Choose one with “Forgot your password?”"), "\(told.text)")
            let stranger = app.browser()
            try await stranger.submit("/password/forgot", from: "/password/forgot", [("email", email)])
            let mail = try await MailSink.waitForMessage(to: email, subject: "Reset your Selfie password")
            let link = try mail.link(to: "/password/reset")
            let chosen = try await stranger.submit(
                "/password/reset", from: link,
                [("token", try mail.token(in: "/password/reset")), ("new_password", "back in again 1"), ("new_password_confirmation", "back in again 1")]
            )
            #expect(chosen.status == .seeOther, "\(chosen.status) \(chosen.text)")
            #expect(try await stranger.signIn(email: email, password: "back in again 1").location == "/gallery", "the owner is back in")
        }
    }

    @Test("unlinking the provider and removing the passkey at once: one wins, the account keeps a way in")
    func racingRemovals() async throws {
        try await withFakeProviders { app, fake in
            for round in 1...3 {
                let (browser, email) = try await providerAccountWithPasskey(app, fake, subject: "ways-race-\(round)")
                let userID = try await app.userID(email)
                let identityID: Int64 = try await app.scalar("SELECT id FROM user_identities WHERE user_id = \(userID)")
                let passkeyID: Int64 = try await app.scalar("SELECT id FROM passkeys WHERE user_id = \(userID)")
                let removals = [
                    try await browser.formRequest("/account/identities/\(identityID)/unlink", from: "/account", []),
                    try await browser.formRequest("/account/passkeys/\(passkeyID)/remove", from: "/account", []),
                ]
                let port = try #require(app.client.port)
                // Deletions wait until both removals are under way.
                let statuses = try await app.holding("LOCK TABLE user_identities, passkeys IN EXCLUSIVE MODE", untilWaiting: 2) {
                    try await AtOnce.send(removals, port: port).map(\.status)
                }
                #expect(statuses.sorted() == [303, 409], "exactly one removal went through, the other refused: \(statuses)")
                #expect(try await ways(app, email) == 1, "one way in is left")
            }
        }
    }
}
