import AsyncHTTPClient
import Base64URLCoding
import Crypto
import Foundation
import Logging
import NIOCore

/// The providers Selfie is configured for, each with what verifies its credentials.
public struct SocialProviders: Sendable {
    let oidc: [String: OIDCVerifier]
    let facebook: FacebookVerifier?
    let twitter: TwitterVerifier?
    /// OpenID Connect providers in configuration order, for the "Continue with …" buttons.
    public let oidcConfigurations: [OIDCProviderConfiguration]

    init(_ configuration: SocialConfiguration, http: HTTPClient, logger: Logger) {
        var oidc: [String: OIDCVerifier] = [:]
        for provider in configuration.oidc {
            oidc[provider.name] = OIDCVerifier(
                configuration: provider,
                http: http,
                leeway: configuration.clockLeeway,
                refreshInterval: configuration.keySetRefreshInterval,
                logger: logger
            )
        }
        self.oidc = oidc
        self.oidcConfigurations = configuration.oidc
        self.facebook = configuration.facebook.map { FacebookVerifier(configuration: $0, http: http) }
        self.twitter = configuration.twitter.map { TwitterVerifier(configuration: $0, http: http) }
    }

    /// "Google", "Facebook", … for messages; the name itself for an unknown provider.
    public func displayName(of provider: String) -> String {
        switch provider {
        case "facebook": return "Facebook"
        case "twitter": return "Twitter"
        default: return oidcConfigurations.first { $0.name == provider }?.displayName ?? provider
        }
    }
}

/// What an app presents to prove who the person is at a provider.
public enum ProviderCredential: Sendable {
    /// An OpenID Connect ID token, with the nonce the app started the sign-in with, if any.
    case idToken(String, nonce: String?)
    /// A Facebook user access token; `userID` is what the app says it belongs to (checked).
    case facebookAccessToken(String, userID: String?)
    /// Twitter's `oauth_token:oauth_token_secret`; `userID` as above.
    case twitterPasscode(String, userID: String?)
}

/// Signing in (and up) with other providers, and linking them to accounts.
///
/// An identity is the provider's subject id, verified with the provider by Selfie itself; a
/// client's claim about who someone is never decides anything. An identity attaches to an
/// existing account by email only when the provider asserts the address verified and the
/// account's address is verified too; otherwise its owner signs in and links it.
public struct SocialSignInService: Sendable {
    public let providers: SocialProviders
    let identities: IdentityRepository
    let flows: SignInFlowRepository
    let users: UserRepository
    let audit: AuditRepository
    /// Where the provider sends the browser back for `provider`: the web's route, handed in (the
    /// core knows no routes).
    let callbackURL: @Sendable (_ provider: String) -> String
    let emails: AccountEmails
    let scopedLogger: ScopedLogger
    /// The request's logger while serving one (its id on every line), else the one given at start.
    var logger: Logger { scopedLogger.current }

    /// How long a browser may stay at the provider before its sign-in expires.
    public static let flowLifetime: TimeInterval = 600

    /// What to do when an identity is not linked to any account yet.
    public enum Mode: Sendable {
        /// Make an account (the usual "Continue with …").
        case signInOrSignUp
        /// Only sign up: an identity that already has an account is refused (the register/login API's /register).
        case signUpOnly
        /// Only sign in: an identity without an account is refused (the register/login API's /login).
        case signInOnly
    }

    // MARK: Verifying

    /// The identity a credential proves, checked with its provider.
    public func verify(provider: String, _ credential: ProviderCredential, origin: RequestOrigin) async throws -> SocialIdentity {
        do {
            switch credential {
            case .idToken(let token, let nonce):
                guard let verifier = providers.oidc[provider] else { throw SocialVerificationError.notConfigured(provider: provider) }
                let (identity, claims) = try await verifier.verify(token, expectedNonce: nonce)
                try await claimNonce(of: claims, token: token)
                return identity
            case .facebookAccessToken(let token, let userID):
                guard provider == "facebook", let facebook = providers.facebook else {
                    throw SocialVerificationError.notConfigured(provider: provider)
                }
                return try await facebook.verify(accessToken: token, expectedUserID: userID)
            case .twitterPasscode(let passcode, let userID):
                guard provider == "twitter", let twitter = providers.twitter else {
                    throw SocialVerificationError.notConfigured(provider: provider)
                }
                return try await twitter.verify(passcode: passcode, expectedUserID: userID)
            }
        } catch let error as SocialVerificationError {
            throw await refused(provider: provider, error, origin: origin)
        }
    }

    /// An ID token works once: its nonce (or, without one, what its signature covers: header and
    /// payload, byte for byte, as the signature's own encoding has several spellings) is recorded
    /// until the token expires, and a token (or another with its nonce) presented again is refused.
    private func claimNonce(of claims: IDTokenClaims, token: String) async throws {
        let nonce = claims.nonce ?? "signed:" + token.prefix(upTo: token.lastIndex(of: ".") ?? token.endIndex)
        guard try await flows.claimNonce(nonce, issuer: claims.iss.value, until: claims.exp.value.addingTimeInterval(300)) else {
            throw SocialVerificationError.replayed
        }
    }

    private func refused(provider: String, _ error: SocialVerificationError, origin: RequestOrigin) async -> ProviderRefused {
        let name = providers.displayName(of: provider)
        logger.notice("sign-in with a provider refused", metadata: ["provider": "\(provider)", "reason": "\(error)"])
        if case .notConfigured = error {} else {
            await audit.record(.socialSignInRefused, actor: nil, targetUser: nil, target: "\(name): \(error.reason)", origin: origin)
        }
        return ProviderRefused(providerName: name, error: error)
    }

    // MARK: Accounts

    /// The account a verified identity signs in to: its linked account, else the account whose
    /// verified email the provider asserts verified (`unlinked`: the caller links the identity once
    /// the account's second factor is passed, `link(_:to:origin:)`), else (if `mode` allows) a new
    /// account.
    func account(for identity: SocialIdentity, mode: Mode = .signInOrSignUp, origin: RequestOrigin) async throws
        -> (credentials: UserCredentials, created: Bool, unlinked: Bool)
    {
        let name = providers.displayName(of: identity.provider)
        if let owner = try await identities.owner(of: identity) {
            guard mode != .signUpOnly else {
                throw SocialAccountError.alreadyRegistered(providerName: name)
            }
            return (try await signedIn(owner, with: identity, origin: origin), false, false)
        }
        if identity.emailVerified, let email = identity.email, let owner = try await users.verifiedEmailOwner(email) {
            // Registering must not attach the identity to someone's account as a side effect; nor
            // may signing in before the account's second factor is passed (or to a disabled one):
            // the link would let the provider's account in on its own once two-step is turned off.
            guard mode != .signUpOnly else { throw SocialAccountError.alreadyRegistered(providerName: name) }
            return (try await signedIn(owner, with: identity, origin: origin), false, true)
        }
        guard mode != .signInOnly else {
            throw SocialAccountError.notRegistered(providerName: name)
        }
        // An address the provider did not assert verified stays on the identity: on the account it
        // would take the address from its real owner.
        let newUser = NewUser(
            email: identity.emailVerified ? identity.email : nil,
            emailVerified: identity.email != nil && identity.emailVerified,
            fullName: Self.fullName(for: identity, providerName: name),
            passwordHash: nil
        )
        let credentials: UserCredentials
        do {
            credentials = try await identities.createAccount(newUser, linking: identity)
        } catch UniqueValueTaken.email {
            // The same person signing in twice at once made the account with this address just now.
            if let owner = try await identities.owner(of: identity) {
                return (try await signedIn(owner, with: identity, origin: origin), false, false)
            }
            throw SocialAccountError.emailInUse(email: identity.email ?? "", providerName: name)
        } catch IdentityError.linkedToAnotherAccount {
            // Someone signed in with the same identity at the same moment: use their account.
            guard let owner = try await identities.owner(of: identity) else { throw IdentityError.linkedToAnotherAccount }
            return (try await signedIn(owner, with: identity, origin: origin), false, false)
        }
        await audit.record(.signedUp, actor: credentials.user.id, targetUser: credentials.user.id, target: "with \(name)", origin: origin)
        return (try await signedIn(credentials, with: identity, origin: origin), true, false)
    }

    private func signedIn(_ owner: UserCredentials, with identity: SocialIdentity, origin: RequestOrigin) async throws -> UserCredentials {
        guard !owner.user.isDisabled else { throw AccountError.disabled }
        let name = providers.displayName(of: identity.provider)
        // With two-step verification the sign-in is recorded once its second factor is settled
        // (`SignInService`).
        if owner.secondFactor == .required { return owner }
        try await users.recordSignIn(userID: owner.user.id)
        await audit.record(.socialSignInSucceeded, actor: owner.user.id, targetUser: owner.user.id, target: name, origin: origin)
        return owner
    }

    /// Links a verified identity to a signed-in user's account; with `inSession`, only while the
    /// browser session that asked for it lasts (a sign-out everywhere during the provider's round
    /// trip must not leave the asker a way in).
    public func link(_ identity: SocialIdentity, to user: User, inSession sessionID: Int64? = nil, origin: RequestOrigin) async throws {
        try user.requireProvenAddress()
        let name = providers.displayName(of: identity.provider)
        let made: Bool
        do {
            made = try await identities.link(
                identity, to: user.id, inSession: sessionID, notifying: emails.pending(.providerLinked(providerName: name), to: user)
            )
        } catch IdentityError.linkedToAnotherAccount {
            throw SocialAccountError.linkedToAnotherAccount(providerName: name)
        }
        // Linked already (a second sign-in that completed with the same identity): nothing new to tell.
        guard made else { return }
        emails.nudge()
        await audit.record(.identityLinked, actor: user.id, targetUser: user.id, target: name, origin: origin)
    }

    /// `link`, once a parked sign-in is complete: its code is used up, so a link that cannot be made
    /// (the identity went to another account meanwhile, the address is no longer proven) does not
    /// undo the sign-in; it is logged, and the provider finds the account by its address next time.
    func linkAfterSignIn(_ identity: SocialIdentity, to user: User, origin: RequestOrigin) async {
        do {
            try await link(identity, to: user, origin: origin)
        } catch {
            logger.notice("a provider's identity could not be linked after the code step", metadata: ["provider": "\(identity.provider)", "error": "\(error)"])
        }
    }

    public func unlink(identityID: Int64, of user: User, origin: RequestOrigin) async throws {
        let removed: LinkedIdentity
        do {
            let (providers, emails) = (self.providers, self.emails)
            removed = try await identities.unlink(identityID: identityID, of: user.id) { removed in
                emails.pending(.securityChange(.providerUnlinked, name: providers.displayName(of: removed.provider)), to: user)
            }
        } catch IdentityError.noSuchIdentity {
            throw SocialAccountError.notLinked
        } catch IdentityError.lastWayToSignIn {
            throw SocialAccountError.lastWayToSignIn
        }
        emails.nudge()
        let name = providers.displayName(of: removed.provider)
        await audit.record(.identityUnlinked, actor: user.id, targetUser: user.id, target: name, origin: origin)
    }

    public func identities(of user: User) async throws -> [LinkedIdentity] {
        try await identities.identities(of: user.id)
    }

    /// A name for a new account: the provider's, else the email's local part, else "… user".
    static func fullName(for identity: SocialIdentity, providerName: String) -> String {
        // What sign-up refuses in a name is left out (controls, direction overrides); at most 100
        // as PostgreSQL counts them (scalars, not grapheme clusters).
        func shown(_ text: String) -> String {
            let cleaned = text.unicodeScalars.filter { !$0.isControlCharacter && !$0.isDirectionOverride }
            return String(String.UnicodeScalarView(cleaned.prefix(100))).trimmingCharacters(in: .whitespacesAndNewlines)
        }
        let name = shown(identity.name ?? "")
        if !name.isBlankWhenShown { return name }
        if let local = identity.email?.split(separator: "@").first.map({ shown(String($0)) }), !local.isBlankWhenShown { return local }
        return "\(providerName) user"
    }

    // MARK: Browser code flow (OpenID Connect, PKCE)

    /// The OpenID Connect provider named in a code-flow URL.
    private func codeFlowVerifier(_ provider: String) throws -> OIDCVerifier {
        guard let verifier = providers.oidc[provider] else {
            throw ProviderRefused(providerName: provider, error: .notConfigured(provider: provider))
        }
        return verifier
    }

    /// Where the provider sends the browser back.
    func redirectURI(for provider: String) -> String {
        callbackURL(provider)
    }

    /// Starts a sign-in (or, with `linking`, a link) at the provider: returns the `state` the
    /// browser must bring back (it goes into a cookie too) and the URL to send the browser to.
    public func startFlow(provider: String, linking user: User?, returnTo: String) async throws -> (state: String, url: String) {
        try user?.requireProvenAddress()
        let verifier = try codeFlowVerifier(provider)
        let configuration = verifier.configuration
        let metadata: OIDCMetadata
        do {
            metadata = try await verifier.discover()
        } catch let error as SocialVerificationError {
            throw ProviderRefused(providerName: configuration.displayName, error: error)
        }
        guard let endpoint = metadata.authorizationEndpoint else {
            throw ProviderRefused(providerName: configuration.displayName, error: .providerUnavailable("no authorization endpoint"))
        }
        let state = RandomToken.urlSafe()
        let flow = SignInFlow(
            provider: provider,
            nonce: RandomToken.urlSafe(),
            codeVerifier: RandomToken.urlSafe(),
            linkUserID: user?.id,
            returnTo: returnTo
        )
        try await flows.save(flow, stateHash: RandomToken.hash(state), expiresAt: Date.now.addingTimeInterval(Self.flowLifetime))
        var query = [
            ("response_type", "code"),
            ("client_id", configuration.clientIDs[0]),
            ("redirect_uri", redirectURI(for: provider)),
            ("scope", configuration.scopes),
            ("state", state),
            ("nonce", flow.nonce),
            ("code_challenge", Base64URL.encode(Array(SHA256.hash(data: Data(flow.codeVerifier.utf8))))),
            ("code_challenge_method", "S256"),
        ]
        if configuration.usesFormPost { query.append(("response_mode", "form_post")) }
        let separator = endpoint.contains("?") ? "&" : "?"
        return (state, endpoint + separator + PercentEncoding.query(query))
    }

    private struct TokenResponse: Decodable {
        let idToken: String?
        enum CodingKeys: String, CodingKey { case idToken = "id_token" }
    }

    /// Finishes a code flow: the state must be one this browser started (and is used up), the
    /// code is exchanged with the PKCE verifier, and the ID token must carry the flow's nonce.
    public func finishFlow(provider: String, state: String, code: String, origin: RequestOrigin) async throws -> (SocialIdentity, SignInFlow) {
        let verifier = try codeFlowVerifier(provider)
        let configuration = verifier.configuration
        guard let flow = try await flows.take(stateHash: RandomToken.hash(state)), flow.provider == provider else {
            throw SocialAccountError.flowExpired
        }
        do {
            let metadata = try await verifier.discover()
            guard let endpoint = metadata.tokenEndpoint else { throw SocialVerificationError.providerUnavailable("no token endpoint") }
            var form = [
                ("grant_type", "authorization_code"),
                ("code", code),
                ("redirect_uri", redirectURI(for: provider)),
                ("client_id", configuration.clientIDs[0]),
                ("code_verifier", flow.codeVerifier),
            ]
            if let secret = configuration.clientSecret { form.append(("client_secret", secret)) }
            var request = HTTPClientRequest(url: endpoint)
            request.method = .POST
            request.headers.add(name: "Content-Type", value: "application/x-www-form-urlencoded")
            request.headers.add(name: "Accept", value: "application/json")
            request.body = .bytes(ByteBuffer(string: PercentEncoding.query(form)))
            let (status, body) = try await ProviderHTTP.send(request, http: verifier.http, provider: configuration.displayName)
            switch status {
            case 200: break
            case 400, 401: throw SocialVerificationError.rejectedByProvider("the sign-in code was not accepted")
            default: throw SocialVerificationError.providerUnavailable("\(configuration.displayName) answered \(status)")
            }
            let tokens: TokenResponse = try ProviderHTTP.decode(body, provider: configuration.displayName)
            guard let idToken = tokens.idToken else { throw SocialVerificationError.malformed("the provider sent no ID token") }
            let (identity, claims) = try await verifier.verify(idToken, expectedNonce: flow.nonce)
            try await claimNonce(of: claims, token: idToken)
            return (identity, flow)
        } catch let error as SocialVerificationError {
            throw await refused(provider: provider, error, origin: origin)
        }
    }
}
