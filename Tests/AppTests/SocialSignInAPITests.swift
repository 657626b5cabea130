@testable import App
@testable import SelfieCore
import Base64URLCoding
import FakeProviders
import Foundation
import HummingbirdTesting
import Testing

@Suite("Sign-in with providers from apps (/api/social/signin)")
struct SocialSignInAPITests {
    @Test("a Google ID token (RS256 or ES256) makes an account without a password, and signs the same person in again")
    func idTokenSignsUpThenIn() async throws {
        try await withFakeProviders { app, fake in
            let api = APIClient(client: app.client)
            for key in [FakeProviders.KeyChoice.rsa, .ec] {
                let subject = "google-\(key)"
                let email = uniqueEmail("grace")
                func token() async throws -> String {
                    try await fake.idToken(audience: [iOSClientID], subject: subject, email: email, emailVerified: true, name: "Grace Hopper", key: key)
                }
                let first = try await api.socialSignIn(["provider": "google", "id_token": try await token()])
                #expect(first.status == .ok, "\(first.text)")
                let json = try first.json()
                #expect(json["first_name"] as? String == "Grace")
                #expect(json["email"] as? String == email)
                let apiToken = try #require(json["api_authtoken"] as? String)
                #expect(try await api.getPhotos(token: apiToken).status == .ok, "the token works like a password sign-in's")

                let again = try await api.socialSignIn(["provider": "google", "id_token": try await token()])
                #expect(again.status == .ok)
                let users: Int = try await app.scalar("SELECT count(*)::int FROM users WHERE email = \(email)")
                #expect(users == 1, "the second sign-in finds the same account")
                let passwordless: Bool = try await app.scalar("SELECT password_hash IS NULL AND email_verified FROM users WHERE email = \(email)")
                #expect(passwordless)
                let identity: String = try await app.scalar(
                    "SELECT i.provider || ':' || i.subject FROM user_identities i JOIN users u ON u.id = i.user_id WHERE u.email = \(email)"
                )
                #expect(identity == "google:\(subject)")
            }
        }
    }

    @Test("an account whose only way in is a link made before links recorded their issuer (migration 0008) is found again by that provider's own issuer (Twitter here), not replaced by a new empty one; another issuer's same subject is another person")
    func linkWithoutIssuer() async throws {
        try await withFakeProviders { app, fake in
            let api = APIClient(client: app.client)
            fake.addTwitterAccount(
                token: "1234-tok", tokenSecret: "tok-secret", consumerKey: "tw-key", consumerSecret: "tw-secret",
                userID: "1234", name: "Ada Lovelace", screenName: "ada"
            )
            let first = try await api.socialSignIn(["provider": "twitter", "passcode": "1234-tok:tok-secret"])
            #expect(first.status == .ok, "\(first.text)")
            let owner = try await app.scalar("SELECT user_id FROM user_identities WHERE subject = '1234'", as: Int64.self)
            // As the link was stored before 0008.
            _ = try await app.db { try await $0.query("UPDATE user_identities SET issuer = '' WHERE subject = '1234'") }
            let users = try await app.scalar("SELECT count(*)::int FROM users", as: Int.self)

            let again = try await api.socialSignIn(["provider": "twitter", "passcode": "1234-tok:tok-secret"])
            #expect(again.status == .ok, "\(again.text)")
            #expect(try await app.scalar("SELECT count(*)::int FROM users", as: Int.self) == users, "no new account")
            #expect(try await app.scalar("SELECT issuer FROM user_identities WHERE subject = '1234'", as: String.self) == "twitter", "the link now says its issuer")
            #expect(try await app.scalar("SELECT user_id FROM api_tokens ORDER BY id DESC LIMIT 1", as: Int64.self) == owner, "signed in to the account the link was made for")

            // The fake Google's issuer is not Google's own: a link without an issuer is not its.
            _ = try await app.db { try await $0.query("UPDATE user_identities SET provider = 'google', issuer = '', subject = 'google-sub' WHERE subject = '1234'") }
            let google = try await api.socialSignIn(["provider": "google", "id_token": try await fake.idToken(audience: [iOSClientID], subject: "google-sub")])
            #expect(google.status == .ok, "\(google.text)")
            #expect(try await app.scalar("SELECT issuer FROM user_identities WHERE user_id = \(owner)", as: String.self) == "", "not taken")
            #expect(try await app.scalar("SELECT user_id FROM api_tokens ORDER BY id DESC LIMIT 1", as: Int64.self) != owner, "another account")
        }
        #expect(SocialIdentity(provider: "google", issuer: "https://accounts.google.com", subject: "1").isTheSamePersonAsAnUnissuedLink)
        #expect(SocialIdentity(provider: "apple", issuer: "https://appleid.apple.com", subject: "1").isTheSamePersonAsAnUnissuedLink)
        #expect(!SocialIdentity(provider: "facebook", issuer: "facebook:123", subject: "1").isTheSamePersonAsAnUnissuedLink)
        #expect(!SocialIdentity(provider: "oidc", issuer: "https://sso.example.com", subject: "1").isTheSamePersonAsAnUnissuedLink)
    }

    enum BadToken: String, CaseIterable, Sendable {
        case wrongAudience, wrongIssuer, expired, badSignature, unpublishedKey, futureIssuedAt, noneAlgorithm, algorithmNotTheKeys
    }

    @Test("a token that is not right for us is refused with a 401 that says why, and no account is made", arguments: BadToken.allCases)
    func badTokensAreRefused(_ bad: BadToken) async throws {
        try await withFakeProviders { app, fake in
            let api = APIClient(client: app.client)
            let subject = "bad-\(bad.rawValue)"
            var token: String
            let expected: String
            switch bad {
            case .wrongAudience:
                token = try await fake.idToken(audience: ["someone-elses-app"], subject: subject)
                expected = "the token was issued for another app"
            case .wrongIssuer:
                token = try await fake.idToken(audience: [iOSClientID], subject: subject, issuer: "https://evil.example")
                expected = "the token was not issued by the expected provider"
            case .expired:
                token = try await fake.idToken(
                    audience: [iOSClientID], subject: subject, issuedAt: .now.addingTimeInterval(-7200), expiresAt: .now.addingTimeInterval(-120)
                )
                expected = "the token has expired"
            case .badSignature:
                // Another subject's payload under this token's signature.
                let genuine = try await fake.idToken(audience: [iOSClientID], subject: subject).split(separator: ".")
                let other = try await fake.idToken(audience: [iOSClientID], subject: "someone-else").split(separator: ".")
                token = [genuine[0], other[1], genuine[2]].joined(separator: ".")
                expected = "the token's signature is not valid"
            case .unpublishedKey:
                token = try await fake.idToken(audience: [iOSClientID], subject: subject, key: .unpublished)
                expected = "the token is signed with a key the provider does not publish"
            case .futureIssuedAt:
                token = try await fake.idToken(audience: [iOSClientID], subject: subject, issuedAt: .now.addingTimeInterval(600))
                expected = "the token's issue time is in the future"
            case .noneAlgorithm:
                let genuine = try await fake.idToken(audience: [iOSClientID], subject: subject).split(separator: ".")
                token = Base64URL.encode(Data(#"{"alg":"none","typ":"JWT"}"#.utf8)) + "." + genuine[1] + "."
                expected = "the token's signing algorithm is not accepted"
            case .algorithmNotTheKeys:
                // The RSA key's id with another RSA algorithm in the header: the key set pins RS256.
                let genuine = try await fake.idToken(audience: [iOSClientID], subject: subject).split(separator: ".")
                let headerJSON = Data(try #require(Base64URL.decode(String(genuine[0]))))
                let header = try #require(try JSONSerialization.jsonObject(with: headerJSON) as? [String: Any])
                let kid = try #require(header["kid"] as? String)
                token = Base64URL.encode(Data(#"{"alg":"PS256","kid":"\#(kid)"}"#.utf8)) + "." + genuine[1] + "." + genuine[2]
                expected = "the token's signing algorithm does not match its key"
            }
            let response = try await api.socialSignIn(["provider": "google", "id_token": token])
            #expect(try response.apiError() == (401, "Google sign-in refused: \(expected)."))
            let accounts: Int = try await app.scalar("SELECT count(*)::int FROM users")
            #expect(accounts == 0)
            let refusals: Int = try await app.scalar("SELECT count(*)::int FROM audit_events WHERE event = 'social.refused'")
            #expect(refusals == 1)
        }
    }

    @Test("a token signed with a key the issuer rotated in is accepted after one fresh fetch of its key set")
    func keyRotation() async throws {
        try await withFakeProviders { app, fake in
            let api = APIClient(client: app.client)
            let before = try await fake.idToken(audience: [iOSClientID], subject: "rotating")
            #expect(try await api.socialSignIn(["provider": "google", "id_token": before]).status == .ok)
            #expect(fake.jwksRequests == 1)
            try await fake.rotateKeys()
            let after = try await fake.idToken(audience: [iOSClientID], subject: "rotating")
            #expect(try await api.socialSignIn(["provider": "google", "id_token": after]).status == .ok)
            #expect(fake.jwksRequests == 2, "the unknown key id made Selfie fetch the keys again")
            // The old key is gone from the issuer, so tokens it signed no longer pass.
            let stale = try await api.socialSignIn(["provider": "google", "id_token": before])
            // (Refused for its key, not as a replay: the key is checked first.)
            #expect(try stale.apiError() == (401, "Google sign-in refused: the token is signed with a key the provider does not publish."))
        }
    }

    @Test("a nonce works once; a token whose nonce is not the app's is refused")
    func nonces() async throws {
        try await withFakeProviders { app, fake in
            let api = APIClient(client: app.client)
            let nonce = RandomToken.urlSafe()
            let token = try await fake.idToken(audience: [iOSClientID], subject: "nonce-user", nonce: nonce)
            #expect(try await api.socialSignIn(["provider": "google", "id_token": token, "nonce": nonce]).status == .ok)
            let replay = try await api.socialSignIn(["provider": "google", "id_token": token, "nonce": nonce])
            #expect(try replay.apiError() == (401, "Google sign-in refused: this token has already been used."))

            let withoutNonce = try await fake.idToken(audience: [iOSClientID], subject: "nonce-user")
            #expect(try await api.socialSignIn(["provider": "google", "id_token": withoutNonce]).status == .ok)
            let replayedToken = try await api.socialSignIn(["provider": "google", "id_token": withoutNonce])
            #expect(try replayedToken.apiError().status == 401, "without a nonce, the token itself works once")
            let respelled = try await api.socialSignIn(["provider": "google", "id_token": withoutNonce + "=="])
            #expect(try respelled.apiError().status == 401, "another spelling of the same signature is the same token")

            let other = try await fake.idToken(audience: [iOSClientID], subject: "nonce-user", nonce: "the-providers-nonce")
            let mismatch = try await api.socialSignIn(["provider": "google", "id_token": other, "nonce": "the-apps-nonce"])
            #expect(try mismatch.apiError() == (401, "Google sign-in refused: the token's nonce does not match this sign-in."))
        }
    }

    @Test("Facebook: a token of our app signs in; another app's token, an invalid or an expired one is refused")
    func facebook() async throws {
        try await withFakeProviders { app, fake in
            let api = APIClient(client: app.client)
            fake.addFacebookToken("fb-good", appID: "fb-app", userID: "10001", name: "Mark Zed", email: "mark@example.com")
            fake.addFacebookToken("fb-other-app", appID: "someone-elses-app", userID: "10002", name: "Eve")
            fake.addFacebookToken("fb-invalid", appID: "fb-app", userID: "10003", isValid: false)
            fake.addFacebookToken("fb-expired", appID: "fb-app", userID: "10004", expiresAt: .now.addingTimeInterval(-60))

            let good = try await api.socialSignIn(["provider": "facebook", "access_token": "fb-good"])
            #expect(good.status == .ok, "\(good.text)")
            #expect(try good.json()["first_name"] as? String == "Mark")
            let kept: String = try await app.scalar(
                "SELECT coalesce(u.email, '(none)') || ' ' || i.email FROM users u JOIN user_identities i ON i.user_id = u.id"
            )
            #expect(kept == "(none) mark@example.com", "Facebook does not assert addresses verified: the address stays on the identity")

            for (token, reason) in [
                ("fb-other-app", "the token was issued for another app"),
                ("fb-invalid", "Facebook says this access token is not valid"),
                ("fb-expired", "the token has expired"),
                ("fb-unknown", "Facebook says this access token is not valid"),
            ] {
                let response = try await api.socialSignIn(["provider": "facebook", "access_token": token])
                #expect(try response.apiError() == (401, "Facebook sign-in refused: \(reason)."), "\(token)")
            }
            let accounts: Int = try await app.scalar("SELECT count(*)::int FROM users")
            #expect(accounts == 1)
        }
    }

    @Test("Twitter: a token and secret signed with our consumer key sign in; a wrong secret breaks the signature and is refused")
    func twitter() async throws {
        try await withFakeProviders { app, fake in
            let api = APIClient(client: app.client)
            fake.addTwitterAccount(
                token: "2311112785-tok", tokenSecret: "tok-secret", consumerKey: "tw-key", consumerSecret: "tw-secret",
                userID: "2311112785", name: "Sean Cook", screenName: "theseancook"
            )
            let good = try await api.socialSignIn(["provider": "twitter", "passcode": "2311112785-tok:tok-secret"])
            #expect(good.status == .ok, "\(good.text)")
            #expect(try good.json()["last_name"] as? String == "Cook")

            let forged = try await api.socialSignIn(["provider": "twitter", "passcode": "2311112785-tok:guessed-secret"])
            #expect(try forged.apiError() == (401, "Twitter sign-in refused: Twitter does not accept this token and secret."))
            let malformed = try await api.socialSignIn(["provider": "twitter", "passcode": "no-colon"])
            #expect(try malformed.apiError().status == 401)
            let accounts: Int = try await app.scalar("SELECT count(*)::int FROM users")
            #expect(accounts == 1)
        }
    }

    @Test("a provider's email never takes over an account whose email is not verified; a verified one links")
    func noAccountTakeover() async throws {
        try await withFakeProviders { app, fake in
            let api = APIClient(client: app.client)
            let email = uniqueEmail("victim")
            #expect(try await api.signUp(email: email).status == .ok)

            let attacker = try await fake.idToken(audience: [iOSClientID], subject: "attacker", email: email, emailVerified: true)
            let refused = try await api.socialSignIn(["provider": "google", "id_token": attacker])
            #expect(try refused.apiError().status == 409)
            #expect(try refused.apiError().message.contains("Sign in to it with your password, then link Google from your account page"))
            let links: Int = try await app.scalar("SELECT count(*)::int FROM user_identities")
            #expect(links == 0)
            let accounts: Int = try await app.scalar("SELECT count(*)::int FROM users")
            #expect(accounts == 1)

            // An account made by a provider that verified its address: another provider asserting
            // the same verified address signs in to it.
            let shared = uniqueEmail("verified")
            let google = try await fake.idToken(audience: [iOSClientID], subject: "g-1", email: shared, emailVerified: true)
            #expect(try await api.socialSignIn(["provider": "google", "id_token": google]).status == .ok)
            let sso = try await fake.idToken(audience: [iOSClientID], subject: "sso-1", email: shared, emailVerified: true)
            #expect(try await api.socialSignIn(["provider": "oidc", "id_token": sso]).status == .ok)
            let linked: Int = try await app.scalar(
                "SELECT count(*)::int FROM user_identities i JOIN users u ON u.id = i.user_id WHERE u.email = \(shared)"
            )
            #expect(linked == 2)
            // An address the provider does not assert verified is not enough: a separate account is
            // made, and the address is not put on it.
            let unverified = try await fake.idToken(audience: [iOSClientID], subject: "sso-2", email: shared, emailVerified: false)
            #expect(try await api.socialSignIn(["provider": "oidc", "id_token": unverified]).status == .ok)
            let stillLinked: Int = try await app.scalar(
                "SELECT count(*)::int FROM user_identities i JOIN users u ON u.id = i.user_id WHERE u.email = \(shared)"
            )
            #expect(stillLinked == 2)
            let separate: Bool = try await app.scalar(
                "SELECT u.email IS NULL FROM users u JOIN user_identities i ON i.user_id = u.id WHERE i.subject = 'sso-2'"
            )
            #expect(separate)
        }
    }

    @Test("a verified address links the provider to a two-step account only with the right code, and never to a disabled account")
    func linkOnlyPastTheSecondFactor() async throws {
        try await withFakeProviders { app, fake in
            let api = APIClient(client: app.client)
            func links(_ email: String) async throws -> Int {
                try await app.scalar("SELECT count(*)::int FROM user_identities i JOIN users u ON u.id = i.user_id WHERE u.email = \(email)")
            }
            let email = uniqueEmail("two-step")
            _ = try await api.signUp(email: email)
            let browser = app.browser()
            try await browser.signIn(email: email)
            try await app.confirmAddress(of: email)
            let (authenticator, _) = try await browser.enrolTOTP()

            // Someone holding the address's provider account, without the code: refused, and nothing
            // is left on the account (a link would sign them in once two-step is turned off).
            let first = try await fake.idToken(audience: [iOSClientID], subject: "ts-1", email: email, emailVerified: true)
            let owed = try await api.socialSignIn(["provider": "google", "id_token": first])
            #expect(try owed.status == .unauthorized && (owed.json()["otp_required"] as? Bool) == true)
            #expect(try await links(email) == 0)
            #expect(try await app.auditCount("social.linked") == 0)

            let second = try await fake.idToken(
                audience: [iOSClientID], subject: "ts-1", issuedAt: .now.addingTimeInterval(-5), email: email, emailVerified: true
            )
            let withCode = try await api.socialSignIn(["provider": "google", "id_token": second, "otp": authenticator.code(offset: 1)])
            #expect(withCode.status == .ok, "\(withCode.status) \(withCode.text)")
            #expect(try await links(email) == 1)

            let disabled = uniqueEmail("disabled")
            _ = try await api.signUp(email: disabled)
            try await app.confirmAddress(of: disabled)
            try await app.db { try await $0.query("UPDATE users SET disabled = true WHERE email = \(disabled)") }
            let third = try await fake.idToken(audience: [iOSClientID], subject: "dis-1", email: disabled, emailVerified: true)
            let refused = try await api.socialSignIn(["provider": "google", "id_token": third])
            #expect(refused.status == .forbidden, "\(refused.status) \(refused.text)")
            #expect(try await links(disabled) == 0)
        }
    }

    @Test("a provider that cannot be reached is a 503 that says so, not a 500")
    func unreachableProvider() async throws {
        try await withTestApp(configure: { config in
            config.social.oidc = [OIDCProviderConfiguration(name: "google", displayName: "Google", issuer: "http://127.0.0.1:9/oidc", clientIDs: ["x"])]
            config.social.facebook = FacebookConfiguration(appID: "fb", appSecret: "s", graphURL: "http://127.0.0.1:9/facebook")
        }) { app in
            let api = APIClient(client: app.client)
            let google = try await api.socialSignIn(["provider": "google", "id_token": "eyJhbGciOiJSUzI1NiIsImtpZCI6ImsifQ.e30.c2ln"])
            #expect(try google.apiError() == (503, "Google could not be reached to check your sign-in. Try again in a moment."))
            let facebook = try await api.socialSignIn(["provider": "facebook", "access_token": "token"])
            #expect(try facebook.apiError().status == 503)
            let page = try await app.browser().submit("/auth/google/start", from: "/signin", [("next", "")])
            #expect(page.status == .serviceUnavailable)
        }
    }

    @Test("a subject is only the same person at the same issuer")
    func identitiesBelongToTheirIssuer() async throws {
        try await withFakeProviders { app, fake in
            let api = APIClient(client: app.client)
            let token = try await fake.idToken(audience: [iOSClientID], subject: "same-sub", email: uniqueEmail("first"), emailVerified: true)
            #expect(try await api.socialSignIn(["provider": "google", "id_token": token]).status == .ok)
            try await app.db { client in
                let identities = IdentityRepository(client: client, logger: testLogger)
                let here = SocialIdentity(provider: "google", issuer: fake.issuer, subject: "same-sub")
                let elsewhere = SocialIdentity(provider: "google", issuer: "https://another-issuer.example", subject: "same-sub")
                let owner = try await identities.owner(of: here)
                let stranger = try await identities.owner(of: elsewhere)
                #expect(owner != nil)
                #expect(stranger == nil, "the same sub from another issuer is someone else")
            }
        }
    }

    @Test("a provider that is not configured is a 404; a missing token is a 400")
    func unknownProvider() async throws {
        try await withFakeProviders(configure: { $0.social.twitter = nil }) { app, _ in
            let api = APIClient(client: app.client)
            let twitter = try await api.socialSignIn(["provider": "twitter", "passcode": "a:b"])
            #expect(try twitter.apiError() == (404, "Signing in with \"twitter\" is not available here."))
            let unknown = try await api.socialSignIn(["provider": "myspace", "id_token": "x.y.z"])
            #expect(try unknown.apiError().status == 404)
            let missing = try await api.socialSignIn(["provider": "google"])
            #expect(try missing.apiError() == (400, "Missing field: id_token"))
        }
    }
}
