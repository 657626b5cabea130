import Crypto
import Foundation
import Hummingbird
import JWTKit
import Synchronization
import _CryptoExtras

/// Stand-ins for the identity providers Selfie talks to, served over real HTTP on loopback for
/// the test suite and the browser check: an OpenID Connect issuer (discovery, JWKS with RSA and
/// EC keys, an authorization endpoint with a consent page, a token endpoint that checks PKCE),
/// Facebook's Graph API (`debug_token`, `/me`) and Twitter's `account/verify_credentials`,
/// which checks OAuth 1.0a HMAC-SHA1 signatures on its own.
///
/// Never part of the server: only tests and `scripts/e2e.sh` run it.
public final class FakeProviders: Sendable {
    /// Someone who can sign in at the fake issuer.
    public struct Person: Sendable {
        public var subject: String
        public var email: String?
        public var emailVerified: Bool
        public var name: String?

        public init(subject: String, email: String? = nil, emailVerified: Bool = true, name: String? = nil) {
            self.subject = subject
            self.email = email
            self.emailVerified = emailVerified
            self.name = name
        }
    }

    public enum KeyChoice: Sendable {
        case rsa, ec
        /// A key the JWKS does not publish (a forged token).
        case unpublished
    }

    struct FacebookToken {
        let appID: String
        let userID: String
        let name: String?
        let email: String?
        let isValid: Bool
        let expiresAt: Date?
    }

    struct TwitterAccount {
        let consumerKey: String
        let consumerSecret: String
        let tokenSecret: String
        let userID: String
        let name: String
        let screenName: String
    }

    struct PendingCode {
        let clientID: String
        let redirectURI: String
        let codeChallenge: String
        let nonce: String?
        let person: Person
    }

    struct SigningKey: @unchecked Sendable {
        let kid: String
        let jwk: [String: String]
        let keys: JWTKeyCollection
    }

    struct State {
        var baseURL = ""
        var published: [SigningKey] = []
        var unpublished: SigningKey?
        var clients: [String: String?] = [:]  // client id → secret
        var person = Person(subject: "fake-subject-1", email: "someone@example.com", emailVerified: true, name: "Fake Person")
        var codes: [String: PendingCode] = [:]
        var facebookTokens: [String: FacebookToken] = [:]
        var twitterTokens: [String: TwitterAccount] = [:]
        var twitterNonces: Set<String> = []
        var jwksRequests = 0
    }

    let state = Mutex(State())

    /// Generating RSA keys is slow in debug builds: every fake starts with the same keys.
    private static let initialKeys = Task {
        ([try await makeKey(.rsa), try await makeKey(.ec)], try await makeKey(.rsa))
    }

    public init() async throws {
        let (keys, unpublished) = try await Self.initialKeys.value
        state.withLock {
            $0.published = keys
            $0.unpublished = unpublished
        }
    }

    // MARK: Set-up

    /// The URL the fake is served at (set once it listens); the issuer is `baseURL/oidc`.
    public var baseURL: String { state.withLock { $0.baseURL } }
    public var issuer: String { baseURL + "/oidc" }
    public var graphURL: String { baseURL + "/facebook" }
    public var twitterURL: String { baseURL + "/twitter/1.1" }
    public var jwksRequests: Int { state.withLock { $0.jwksRequests } }

    public func setBaseURL(_ url: String) { state.withLock { $0.baseURL = url } }

    /// A client of the code flow; a nil secret is a public client (PKCE alone).
    public func registerClient(_ id: String, secret: String?) { state.withLock { $0.clients[id] = .some(secret) } }

    /// Who the consent page signs in as next.
    public func setPerson(_ person: Person) { state.withLock { $0.person = person } }

    /// Replaces the published keys with fresh ones (new key ids), as issuers rotate keys.
    public func rotateKeys() async throws {
        let keys = [try await Self.makeKey(.rsa), try await Self.makeKey(.ec)]
        state.withLock { $0.published = keys }
    }

    public func addFacebookToken(
        _ token: String,
        appID: String,
        userID: String,
        name: String? = nil,
        email: String? = nil,
        isValid: Bool = true,
        expiresAt: Date? = nil
    ) {
        state.withLock {
            $0.facebookTokens[token] = FacebookToken(appID: appID, userID: userID, name: name, email: email, isValid: isValid, expiresAt: expiresAt)
        }
    }

    public func addTwitterAccount(
        token: String,
        tokenSecret: String,
        consumerKey: String,
        consumerSecret: String,
        userID: String,
        name: String,
        screenName: String
    ) {
        state.withLock {
            $0.twitterTokens[token] = TwitterAccount(
                consumerKey: consumerKey, consumerSecret: consumerSecret, tokenSecret: tokenSecret,
                userID: userID, name: name, screenName: screenName
            )
        }
    }

    // MARK: ID tokens

    /// A signed ID token with these claims (defaults: the fake issuer, valid for an hour).
    public func idToken(
        audience: [String],
        subject: String,
        issuer: String? = nil,
        issuedAt: Date = .now,
        expiresAt: Date? = nil,
        nonce: String? = nil,
        email: String? = nil,
        emailVerified: Bool? = nil,
        name: String? = nil,
        authorizedParty: String? = nil,
        key: KeyChoice = .rsa
    ) async throws -> String {
        let claims = Claims(
            jti: UUID().uuidString,
            iss: issuer ?? self.issuer,
            sub: subject,
            aud: audience,
            exp: Int((expiresAt ?? issuedAt.addingTimeInterval(3600)).timeIntervalSince1970),
            iat: Int(issuedAt.timeIntervalSince1970),
            azp: authorizedParty,
            nonce: nonce,
            email: email,
            email_verified: emailVerified,
            name: name
        )
        let signingKey: SigningKey? = state.withLock { state in
            switch key {
            case .rsa: state.published.first { $0.jwk["kty"] == "RSA" }
            case .ec: state.published.first { $0.jwk["kty"] == "EC" }
            case .unpublished: state.unpublished
            }
        }
        guard let signingKey else { throw HTTPError(.internalServerError) }
        return try await signingKey.keys.sign(claims, kid: JWKIdentifier(string: signingKey.kid))
    }

    struct Claims: JWTPayload {
        let jti: String
        let iss: String
        let sub: String
        let aud: [String]
        let exp: Int
        let iat: Int
        let azp: String?
        let nonce: String?
        let email: String?
        let email_verified: Bool?
        let name: String?

        func verify(using algorithm: some JWTAlgorithm) async throws {}
    }

    private static func makeKey(_ choice: KeyChoice) async throws -> SigningKey {
        let kid = (choice == .ec ? "ec-" : "rsa-") + UUID().uuidString.prefix(8).lowercased()
        let keys = JWTKeyCollection()
        switch choice {
        case .ec:
            let key = P256.Signing.PrivateKey()
            let point = key.publicKey.x963Representation
            await keys.add(ecdsa: try ES256PrivateKey(pem: key.pemRepresentation), kid: JWKIdentifier(string: kid))
            return SigningKey(
                kid: kid,
                jwk: ["kty": "EC", "crv": "P-256", "alg": "ES256", "use": "sig", "kid": kid,
                      "x": base64URL(point[1..<33]), "y": base64URL(point[33..<65])],
                keys: keys
            )
        case .rsa, .unpublished:
            let key = try Insecure.RSA.PrivateKey(backing: _RSA.Signing.PrivateKey(keySize: .bits2048))
            let (modulus, exponent) = try key.publicKey.getKeyPrimitives()
            await keys.add(rsa: key, digestAlgorithm: .sha256, kid: JWKIdentifier(string: kid))
            return SigningKey(
                kid: kid,
                jwk: ["kty": "RSA", "alg": "RS256", "use": "sig", "kid": kid, "n": base64URL(modulus), "e": base64URL(exponent)],
                keys: keys
            )
        }
    }
}

func base64URL(_ bytes: some DataProtocol) -> String {
    Data(bytes).base64EncodedString()
        .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_").replacingOccurrences(of: "=", with: "")
}
