import AsyncHTTPClient
import Base64URLCoding
import Crypto
import Foundation
import JWTKit
import Logging
import NIOCore

/// The claims of an OpenID Connect ID token that Selfie reads.
struct IDTokenClaims: JWTPayload {
    var iss: IssuerClaim
    var sub: SubjectClaim
    var aud: AudienceClaim
    var exp: ExpirationClaim
    var iat: IssuedAtClaim
    var azp: String?
    var nonce: String?
    var email: String?
    var emailVerified: BoolClaim?
    var name: String?

    enum CodingKeys: String, CodingKey {
        case iss, sub, aud, exp, iat, azp, nonce, email, name
        case emailVerified = "email_verified"
    }

    /// The signature is checked by jwt-kit; every claim by `OIDCVerifier`, which knows the
    /// provider's issuer, client ids and the clock leeway.
    func verify(using algorithm: some JWTAlgorithm) async throws {}
}

/// The parts of an issuer's discovery document Selfie uses.
struct OIDCMetadata: Decodable, Sendable {
    let issuer: String
    let jwksURI: String
    let authorizationEndpoint: String?
    let tokenEndpoint: String?

    enum CodingKeys: String, CodingKey {
        case issuer
        case jwksURI = "jwks_uri"
        case authorizationEndpoint = "authorization_endpoint"
        case tokenEndpoint = "token_endpoint"
    }
}

/// Verifies ID tokens of one OpenID Connect provider: the signature against the issuer's
/// published keys (fetched, cached, fetched again when a token names a key id not seen yet),
/// then `iss`, `aud`/`azp`, `exp` and `iat` (with leeway) and, when the sign-in has one, `nonce`.
actor OIDCVerifier {
    let configuration: OIDCProviderConfiguration
    let http: HTTPClient
    private let leeway: TimeInterval
    private let refreshInterval: Duration
    private let logger: Logger

    private var metadata: (value: OIDCMetadata, fetchedAt: ContinuousClock.Instant)?
    private var keys = JWTKeyCollection()
    /// The algorithm each published key verifies (pinned when the key set is read).
    private var keyAlgorithms: [String: String] = [:]
    private var keysFetchedAt: ContinuousClock.Instant?
    /// The last attempt, successful or not: fetches are spaced by `refreshInterval` either way.
    private var lastKeyFetchAttempt: ContinuousClock.Instant?
    /// One fetch at a time; callers arriving meanwhile wait for it.
    private var keyFetch: Task<Void, any Error>?

    /// Only asymmetric algorithms: a token naming HS256 (signed with a "public" key) is refused.
    static let acceptedAlgorithms: Set<String> = ["RS256", "RS384", "RS512", "ES256", "ES384", "PS256"]
    static let metadataLifetime: Duration = .seconds(3600)
    static let keySetLifetime: Duration = .seconds(3600)
    /// How long known keys stay in use while the issuer's key set cannot be fetched.
    static let keySetFallbackLimit: Duration = .seconds(86_400)

    init(configuration: OIDCProviderConfiguration, http: HTTPClient, leeway: Duration, refreshInterval: Duration, logger: Logger) {
        self.configuration = configuration
        self.http = http
        self.leeway = TimeInterval(leeway.components.seconds)
        self.refreshInterval = refreshInterval
        self.logger = logger
    }

    /// The verified identity. `expectedNonce` is the nonce this sign-in was started with (the
    /// code flow's, or one the app sent): the token must carry it, as is or as its SHA-256 hex
    /// (Sign in with Apple's native convention).
    func verify(_ idToken: String, expectedNonce: String?, now: Date = .now) async throws -> (SocialIdentity, IDTokenClaims) {
        let header = try Self.header(of: idToken)
        guard let alg = header.alg, Self.acceptedAlgorithms.contains(alg) else {
            throw SocialVerificationError.malformed("the token's signing algorithm is not accepted")
        }
        guard let kid = header.kid, !kid.isEmpty else { throw SocialVerificationError.malformed("the token names no signing key") }
        try await ensureKey(kid)
        // The key decides the algorithm, never the token: a header naming another one is refused.
        guard keyAlgorithms[kid] == alg else { throw SocialVerificationError.malformed("the token's signing algorithm does not match its key") }

        let claims: IDTokenClaims
        do {
            claims = try await keys.verify(idToken, as: IDTokenClaims.self)
        } catch let error as JWTError where error.errorType == .signatureVerificationFailed {
            throw SocialVerificationError.badSignature
        } catch let error as JWTError where error.errorType == .malformedToken {
            throw SocialVerificationError.malformed("the ID token is not a well-formed JWT")
        } catch is DecodingError {
            throw SocialVerificationError.malformed("the ID token lacks required claims")
        } catch {
            logger.notice("ID token refused", metadata: ["provider": "\(configuration.name)", "error": "\(error)"])
            throw SocialVerificationError.badSignature
        }

        guard configuration.acceptedIssuers.contains(claims.iss.value) else { throw SocialVerificationError.wrongIssuer }
        let audiences = claims.aud.value
        guard audiences.contains(where: configuration.clientIDs.contains) else { throw SocialVerificationError.wrongAudience }
        if audiences.count > 1 || claims.azp != nil {
            // With several audiences, the party the token was issued to (azp) must be us.
            guard let azp = claims.azp, configuration.clientIDs.contains(azp) else { throw SocialVerificationError.wrongAudience }
        }
        guard claims.exp.value.addingTimeInterval(leeway) > now else { throw SocialVerificationError.expired }
        guard claims.iat.value.addingTimeInterval(-leeway) <= now else { throw SocialVerificationError.issuedInTheFuture }
        if let expectedNonce {
            let hashed = SHA256.hash(data: Data(expectedNonce.utf8)).hexString
            guard let nonce = claims.nonce,
                constantTimeEquals(Array(nonce.utf8), Array(expectedNonce.utf8)) || constantTimeEquals(Array(nonce.utf8), Array(hashed.utf8))
            else { throw SocialVerificationError.nonceMismatch }
        }
        guard !claims.sub.value.isEmpty, claims.sub.value.utf8.count <= 255 else {
            throw SocialVerificationError.malformed("the token has no valid subject")
        }
        let identity = SocialIdentity(
            provider: configuration.name,
            issuer: configuration.issuer,
            subject: claims.sub.value,
            email: claims.email,
            emailVerified: configuration.trustsVerifiedEmail && claims.emailVerified?.value == true,
            name: claims.name
        )
        return (identity, claims)
    }

    /// The issuer's discovery document (cached for an hour).
    func discover() async throws -> OIDCMetadata {
        if let metadata, metadata.fetchedAt.duration(to: .now) < Self.metadataLifetime { return metadata.value }
        let document: OIDCMetadata = try ProviderHTTP.decode(
            await ProviderHTTP.get(configuration.discoveryURL, http: http, provider: configuration.displayName),
            provider: configuration.displayName
        )
        guard configuration.acceptedIssuers.contains(document.issuer) else {
            throw SocialVerificationError.providerUnavailable("the discovery document names issuer \(document.issuer)")
        }
        metadata = (document, .now)
        return document
    }

    // MARK: Keys

    /// Makes sure the key `kid` is known: the key set is fetched when it is an hour old, or when a
    /// token names a key not seen yet (at most once per `refreshInterval`). A failed refresh
    /// leaves the keys already known in use.
    private func ensureKey(_ kid: String) async throws {
        let known = keyAlgorithms[kid] != nil
        let stale = keysFetchedAt.map { $0.duration(to: .now) > Self.keySetLifetime } ?? true
        if known, !stale { return }
        let mayFetch = lastKeyFetchAttempt.map { $0.duration(to: .now) >= refreshInterval } ?? true
        if mayFetch {
            do {
                try await refreshKeys()
            } catch where known && keysFetchedAt.map({ $0.duration(to: .now) < Self.keySetFallbackLimit }) == true {
                logger.warning("could not refresh signing keys; using the ones already known", metadata: ["provider": "\(configuration.name)", "error": "\(error)"])
            }
        }
        guard keyAlgorithms[kid] != nil else { throw SocialVerificationError.unknownKey }
    }

    private func refreshKeys() async throws {
        if let keyFetch { return try await keyFetch.value }
        let task = Task { try await self.fetchKeys() }
        keyFetch = task
        defer { keyFetch = nil }
        try await task.value
    }

    private func fetchKeys() async throws {
        lastKeyFetchAttempt = .now
        let metadata = try await discover()
        let body = try await ProviderHTTP.get(metadata.jwksURI, http: http, provider: configuration.displayName)
        // Key by key: one that jwt-kit cannot read (an encryption key, an unknown curve) is skipped,
        // not a reason to refuse the whole set.
        guard let object = try? JSONSerialization.jsonObject(with: Data(buffer: body)) as? [String: Any],
            let entries = object["keys"] as? [[String: Any]]
        else {
            throw SocialVerificationError.providerUnavailable("\(configuration.displayName) published no key set Selfie could read")
        }
        let collection = JWTKeyCollection()
        var algorithms: [String: String] = [:]
        for entry in entries {
            guard entry["use"] == nil || entry["use"] as? String == "sig",
                let json = try? JSONSerialization.data(withJSONObject: entry),
                var key = try? JSONDecoder().decode(JWK.self, from: json),
                let kid = key.keyIdentifier?.string
            else { continue }
            // Pin each key to one algorithm, from the key set, else from the key's type: jwt-kit
            // would otherwise take it from the first token's header and keep it.
            if key.algorithm == nil {
                switch (key.keyType, key.curve?.rawValue) {
                case (.rsa, _): key.algorithm = .rs256
                case (.ecdsa, "P-256"): key.algorithm = .es256
                case (.ecdsa, "P-384"): key.algorithm = .es384
                default: continue
                }
            }
            guard let algorithm = key.algorithm?.rawValue, Self.acceptedAlgorithms.contains(algorithm) else { continue }
            do {
                try await collection.add(jwk: key)
                algorithms[kid] = algorithm
            } catch {
                logger.notice("skipped a key the provider publishes", metadata: ["provider": "\(configuration.name)", "kid": "\(kid)"])
            }
        }
        keys = collection
        keyAlgorithms = algorithms
        keysFetchedAt = .now
        logger.info("fetched signing keys", metadata: ["provider": "\(configuration.name)", "keys": "\(algorithms.count)"])
    }

    // MARK: Token header

    private struct Header: Decodable {
        let alg: String?
        let kid: String?
    }

    private static func header(of token: String) throws -> Header {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let bytes = Base64URL.decode(String(parts[0])),
            let header = try? JSONDecoder().decode(Header.self, from: Data(bytes))
        else {
            throw SocialVerificationError.malformed("the ID token is not a well-formed JWT")
        }
        return header
    }
}

/// Requests to providers: bounded in time and size; failures become `providerUnavailable`.
enum ProviderHTTP {
    static let timeout: TimeAmount = .seconds(10)
    static let maximumBytes = 1024 * 1024

    /// The body of a GET that must succeed (a document the provider publishes).
    static func get(_ url: String, http: HTTPClient, provider: String) async throws -> ByteBuffer {
        let (status, body) = try await send(HTTPClientRequest(url: url), http: http, provider: provider)
        guard status == 200 else { throw SocialVerificationError.providerUnavailable("\(provider) answered \(status) for \(url)") }
        return body
    }

    /// The status and body of a request (any status: the caller decides what a refusal means).
    static func send(_ request: HTTPClientRequest, http: HTTPClient, provider: String) async throws -> (Int, ByteBuffer) {
        do {
            let response = try await http.execute(request, timeout: timeout)
            let body = try await response.body.collect(upTo: maximumBytes)
            return (Int(response.status.code), body)
        } catch {
            throw SocialVerificationError.providerUnavailable("\(provider) could not be reached: \(error)")
        }
    }

    static func decode<T: Decodable>(_ body: ByteBuffer, provider: String) throws -> T {
        do {
            return try JSONDecoder().decode(T.self, from: Data(buffer: body))
        } catch {
            throw SocialVerificationError.providerUnavailable("\(provider) sent an answer Selfie could not read")
        }
    }
}
