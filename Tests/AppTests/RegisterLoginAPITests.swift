@testable import App
@testable import SelfieCore
import FakeProviders
import Foundation
import HummingbirdTesting
import Testing

@Suite("The register/login API (/api/register, /api/login with access_type) and usernames")
struct RegisterLoginAPITests {
    @Test("missing fields are named in the register/login API's own shape")
    func missingFields() async throws {
        try await withFakeProviders { app, _ in
            let api = APIClient(client: app.client)
            let empty = try await api.registerLoginForm("/api/register", [])
            #expect(empty.status == .badRequest)
            let json = try empty.json()
            #expect(json["error"] as? Bool == true)
            #expect(json["message"] as? String == "Required field(s) access_type, passkey, passcode missing or empty")
            let partial = try await api.send(.post, "/api/login", body: #"{"access_type": "0", "passkey": "someone"}"#, authorization: api.basicAuthorization)
            #expect(try partial.json()["message"] as? String == "Required field(s) passcode missing or empty")
            let wrongType = try await api.registerLoginForm("/api/login", [("access_type", "7"), ("passkey", "a"), ("passcode", "b")])
            #expect(wrongType.status == .badRequest)
        }
    }

    @Test("access_type 0: register with a username and password (a form post), then log in with it")
    func passwordRegistration() async throws {
        try await withFakeProviders { app, _ in
            let api = APIClient(client: app.client)
            let registered = try await api.registerLoginForm("/api/register", [("access_type", "0"), ("passkey", "lepunk_99"), ("passcode", "billion dollars")])
            #expect(registered.status == .created, "\(registered.text)")
            let json = try registered.json()
            #expect(json["error"] as? Bool == false)
            #expect(json["username"] as? String == "lepunk_99")
            #expect(json["api_authtoken"] as? String != nil)

            let login = try await api.registerLoginForm("/api/login", [("access_type", "0"), ("passkey", "LEPUNK_99"), ("passcode", "billion dollars")])
            #expect(login.status == .ok, "usernames are case-insensitive")
            #expect(try login.json()["error"] as? Bool == false)

            let wrong = try await api.registerLoginForm("/api/login", [("access_type", "0"), ("passkey", "lepunk_99"), ("passcode", "wrong password")])
            #expect(wrong.status == .unauthorized)
            #expect(try wrong.json()["message"] as? String == "Login failed. Incorrect credentials")
            #expect(try wrong.json()["error"] as? Bool == true)

            let taken = try await api.registerLoginForm("/api/register", [("access_type", "0"), ("passkey", "Lepunk_99"), ("passcode", "another password")])
            #expect(taken.status == .conflict)
            #expect(try taken.json()["message"] as? String == "This username is taken.")
            let invalid = try await api.registerLoginForm("/api/register", [("access_type", "0"), ("passkey", "no"), ("passcode", "another password")])
            #expect(invalid.status == .unprocessableContent)
            #expect(try invalid.json()["message"] as? String == "username: Use 5 to 30 characters.")
        }
    }

    @Test("access_type 1 and 2: the token is checked with Facebook or Twitter, and passkey must be its user")
    func socialRegistration() async throws {
        try await withFakeProviders { app, fake in
            let api = APIClient(client: app.client)
            fake.addFacebookToken("fb-token", appID: "fb-app", userID: "555", name: "Fiona Book")
            fake.addTwitterAccount(
                token: "tw-token", tokenSecret: "tw-token-secret", consumerKey: "tw-key", consumerSecret: "tw-secret",
                userID: "777", name: "Tess Tweet", screenName: "tess"
            )
            let loginFirst = try await api.registerLoginForm("/api/login", [("access_type", "1"), ("passkey", "555"), ("passcode", "fb-token")])
            #expect(loginFirst.status == .unauthorized)
            #expect(try loginFirst.json()["message"] as? String == "No Selfie account is linked to this Facebook account. Register first.")

            let claimed = try await api.registerLoginForm("/api/register", [("access_type", "1"), ("passkey", "999"), ("passcode", "fb-token")])
            #expect(claimed.status == .unauthorized, "a client-asserted id that is not the token's user is refused")
            #expect(try claimed.json()["message"] as? String == "Facebook sign-in refused: the access token belongs to another Facebook user.")

            #expect(try await api.registerLoginForm("/api/register", [("access_type", "1"), ("passkey", "555"), ("passcode", "fb-token")]).status == .created)
            let twice = try await api.registerLoginForm("/api/register", [("access_type", "1"), ("passkey", "555"), ("passcode", "fb-token")])
            #expect(twice.status == .conflict)
            let login = try await api.registerLoginForm("/api/login", [("access_type", "1"), ("passkey", "555"), ("passcode", "fb-token")])
            #expect(login.status == .ok)
            #expect(try login.json()["first_name"] as? String == "Fiona")

            let twitter = try await api.send(
                .post, "/api/register", body: #"{"access_type": "2", "passkey": "777", "passcode": "tw-token:tw-token-secret"}"#,
                authorization: api.basicAuthorization
            )
            #expect(twitter.status == .created, "\(twitter.text)")
            let badSecret = try await api.registerLoginForm("/api/login", [("access_type", "2"), ("passkey", "777"), ("passcode", "tw-token:nope")])
            #expect(badSecret.status == .unauthorized)
            let accounts: Int = try await app.scalar("SELECT count(*)::int FROM users")
            #expect(accounts == 2)
        }
    }

    @Test("usernames: sign up with one in the browser, sign in with it on the web and in the API")
    func usernames() async throws {
        try await withTestApp { app in
            let browser = app.browser()
            let email = uniqueEmail("ada")
            let signedUp = try await browser.submit(
                "/signup", from: "/signup",
                [("full_name", "Ada"), ("email", email), ("username", "Ada_Lovelace"), ("password", "correct horse battery"),
                 ("password_confirmation", "correct horse battery")]
            )
            #expect(signedUp.status == .seeOther && signedUp.location == "/signup/sent", "check your mail")
            #expect(try await browser.signIn(email: "Ada_Lovelace").status == .seeOther)
            #expect(try await browser.get("/account").text.contains("Ada_Lovelace"))

            let other = app.browser()
            let signIn = try await other.signIn(email: "ada_lovelace")
            #expect(signIn.status == .seeOther, "the sign-in field takes a username, in any case")

            let api = APIClient(client: app.client)
            let apiSignIn = try await api.send(
                .post, "/api/signin", body: "{\"username\":\"Ada_Lovelace\",\"password\":\"\(api.encrypt("correct horse battery"))\"}",
                authorization: api.basicAuthorization
            )
            #expect(apiSignIn.status == .ok)
            #expect(try apiSignIn.json()["username"] as? String == "Ada_Lovelace")

            let taken = try await app.browser().submit(
                "/signup", from: "/signup",
                [("full_name", "Imposter"), ("email", uniqueEmail()), ("username", "ADA_LOVELACE"), ("password", "correct horse battery"),
                 ("password_confirmation", "correct horse battery")]
            )
            #expect(taken.status == .unprocessableContent)
            #expect(taken.text.contains("This username is taken. Choose another."))
            let invalid = try await app.browser().submit(
                "/signup", from: "/signup",
                [("full_name", "X"), ("email", uniqueEmail()), ("username", "has space"), ("password", "correct horse battery"),
                 ("password_confirmation", "correct horse battery")]
            )
            #expect(invalid.text.contains("Use only letters, digits and underscores (_)."))
        }
    }

    @Test("guesses against a username count toward the same lockout as against its email")
    func lockoutCoversUsernames() async throws {
        try await withTestApp(configure: { $0.protection.lockoutThreshold = 3 }) { app in
            let email = uniqueEmail("lock")
            _ = try await app.browser().submit(
                "/signup", from: "/signup",
                [("full_name", "Lock"), ("email", email), ("username", "lock_me"), ("password", "correct horse battery"),
                 ("password_confirmation", "correct horse battery")]
            )
            let browser = app.browser()
            #expect(try await browser.signIn(email: email, password: "wrong one!").status == .unauthorized)
            #expect(try await browser.signIn(email: "lock_me", password: "wrong two!").status == .unauthorized)
            #expect(try await browser.signIn(email: "LOCK_ME", password: "wrong three!").status == .unauthorized)
            #expect(try await browser.signIn(email: "lock_me").status == .tooManyRequests, "locked, even with the right password")
        }
    }
}
