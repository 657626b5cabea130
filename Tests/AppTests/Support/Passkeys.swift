@testable import App
import Base64URLCoding
import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import WebAuthnTestSupport

/// A passkey on a software authenticator, driven the way `passkeys.js` drives
/// `navigator.credentials` (tests run with `PUBLIC_URL=http://localhost`).
final class TestPasskey: @unchecked Sendable {
    static let origin = "http://localhost"
    private let key = P256.Signing.PrivateKey()
    /// Set once the passkey is registered (the user handle comes from the server's options).
    private(set) var authenticator: SoftwareAuthenticator?

    /// "Add a passkey" on the account page: the options, then the authenticator's answer. Returns
    /// the options' answer when it is not a 200, else the registration's.
    func add(in browser: Browser) async throws -> TestResponse {
        let options = try await browser.postJSON("/account/passkeys/options", "{}", csrfFrom: "/account")
        guard options.status == .ok else { return options }
        let json = try options.json()
        guard let challenge = (json["challenge"] as? String).flatMap(Base64URL.decode),
            let handle = ((json["user"] as? [String: Any])?["id"] as? String).flatMap(Base64URL.decode)
        else { throw TestSetupError("creation options without challenge or user id: \(options.text)") }
        return try await browser.postJSON("/account/passkeys", registration(challenge: challenge, userHandle: handle), csrfFrom: "/account")
    }

    /// The creation options asked for in `browser`, answered: the body that adds this passkey.
    func registration(in browser: Browser) async throws -> String {
        let options = try await browser.postJSON("/account/passkeys/options", "{}", csrfFrom: "/account")
        let json = try options.json()
        guard let challenge = (json["challenge"] as? String).flatMap(Base64URL.decode),
            let handle = ((json["user"] as? [String: Any])?["id"] as? String).flatMap(Base64URL.decode)
        else { throw TestSetupError("creation options without challenge or user id: \(options.text)") }
        return registration(challenge: challenge, userHandle: handle)
    }

    private func registration(challenge: [UInt8], userHandle: [UInt8]) -> String {
        let authenticator = SoftwareAuthenticator(key: .es256(key), userHandle: userHandle)
        self.authenticator = authenticator
        let response = authenticator.register(origin: Self.origin, challenge: challenge)
        return #"{"response":{"clientDataJSON":"\#(Base64URL.encode(response.clientDataJSON))","attestationObject":"\#(Base64URL.encode(response.attestationObject))"}}"#
    }

    /// "Sign in with a passkey" on the sign-in page.
    func signIn(in browser: Browser) async throws -> TestResponse {
        guard var authenticator else { throw TestSetupError("the passkey was never added") }
        let options = try await browser.postJSON("/signin/passkey/options", "{}", csrfFrom: "/signin")
        guard let challenge = (try options.json()["challenge"] as? String).flatMap(Base64URL.decode) else {
            throw TestSetupError("request options without a challenge: \(options.text)")
        }
        let assertion = authenticator.assert(origin: Self.origin, challenge: challenge)
        self.authenticator = authenticator
        let body = """
            {"rawId":"\(Base64URL.encode(assertion.credentialID))","response":{"clientDataJSON":"\(Base64URL.encode(assertion.clientDataJSON))",\
            "authenticatorData":"\(Base64URL.encode(assertion.authenticatorData))","signature":"\(Base64URL.encode(assertion.signature))",\
            "userHandle":"\(Base64URL.encode(assertion.userHandle ?? []))"}}
            """
        return try await browser.postJSON("/signin/passkey", body, csrfFrom: "/signin")
    }
}

extension Browser {
    /// POSTs JSON with the CSRF token of `page` in `X-CSRF-Token`, as the page's script does.
    func postJSON(_ path: String, _ body: String, csrfFrom page: String) async throws -> TestResponse {
        let csrf = try await csrfToken(on: page)
        return try await send(path, method: .post, body: ByteBuffer(string: body), contentType: "application/json", extraHeaders: [.csrfToken: csrf])
    }
}

extension TestApp {
    /// Marks the address confirmed, as opening the mailed link would.
    func confirmAddress(of email: String) async throws {
        try await db { client in
            try await client.query("UPDATE users SET email_verified = true WHERE lower(email) = lower(\(email))")
        }
    }

    /// Moves every sign-in of the account `minutes` into the past (a session someone left open).
    func ageSignIns(of email: String, minutes: Int) async throws {
        try await db { client in
            try await client.query(
                """
                UPDATE web_sessions
                SET created_at = created_at - \(minutes) * interval '1 minute', confirmed_at = confirmed_at - \(minutes) * interval '1 minute'
                WHERE user_id = (SELECT id FROM users WHERE lower(email) = lower(\(email)))
                """
            )
        }
    }
}
