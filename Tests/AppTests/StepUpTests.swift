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
            #expect(page.status == .ok && page.text.contains("Confirm it's you"))
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
}

