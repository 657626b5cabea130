import Foundation

/// Who a provider says a person is, after Selfie checked it with the provider itself.
public struct SocialIdentity: Sendable, Equatable {
    /// `apple`, `google`, `oidc`, `facebook` or `twitter`.
    public var provider: String
    /// Who vouches for `subject`: the configured OpenID Connect issuer, `facebook:<app id>` (its
    /// user ids are per app), `twitter`. A subject means nothing without it.
    public var issuer: String
    /// The provider's stable id for the person (`sub`, Facebook's user id, Twitter's `id_str`).
    public var subject: String
    /// nil unless the provider shared one that looks like an address.
    public var email: String?
    /// Only true when the provider asserted it (OpenID Connect's `email_verified`).
    public var emailVerified: Bool
    public var name: String?

    public init(
        provider: String,
        issuer: String,
        subject: String,
        email: String? = nil,
        emailVerified: Bool = false,
        name: String? = nil
    ) {
        self.provider = provider
        self.issuer = issuer
        self.subject = subject
        self.email = email.flatMap { EmailAddress.isPlausible($0) ? $0 : nil }
        self.emailVerified = emailVerified
        self.name = name
    }

    /// Whether a link made before links recorded their issuer (migration 0008: its issuer is
    /// empty) with this provider and subject is this person's: only when this identity comes from
    /// the provider's own issuer, the one every link was made with — Apple's and Google's built-in
    /// issuers (not another set in `APPLE_ISSUER` or `GOOGLE_ISSUER`), Twitter. Never Facebook
    /// (its ids are per app, and the app may have changed since) or the generic OpenID Connect
    /// provider (its issuer is the operator's choice): another issuer's subject is another person.
    var isTheSamePersonAsAnUnissuedLink: Bool {
        switch provider {
        case "apple": issuer == "https://appleid.apple.com"
        case "google": issuer == "https://accounts.google.com"
        case "twitter": issuer == "twitter"
        default: false
        }
    }
}

/// Why a provider's token was not accepted.
public enum SocialVerificationError: Error, Equatable {
    case notConfigured(provider: String)
    case malformed(String)
    case badSignature
    case unknownKey
    case wrongIssuer
    case wrongAudience
    case expired
    case issuedInTheFuture
    case nonceMismatch
    case replayed
    case rejectedByProvider(String)
    case providerUnavailable(String)

    /// What was wrong, in words that complete "… sign-in refused: " (also kept in the audit log).
    public var reason: String {
        switch self {
        case .notConfigured: "this provider is not configured"
        case .malformed(let what): what
        case .badSignature: "the token's signature is not valid"
        case .unknownKey: "the token is signed with a key the provider does not publish"
        case .wrongIssuer: "the token was not issued by the expected provider"
        case .wrongAudience: "the token was issued for another app"
        case .expired: "the token has expired"
        case .issuedInTheFuture: "the token's issue time is in the future"
        case .nonceMismatch: "the token's nonce does not match this sign-in"
        case .replayed: "this token has already been used"
        case .rejectedByProvider(let why): why
        case .providerUnavailable(let why): why
        }
    }
}

/// A provider's credential was refused (or the provider could not check it), with the provider's
/// display name ("Google") for messages.
public struct ProviderRefused: Error, Equatable, Sendable {
    public let providerName: String
    public let error: SocialVerificationError
}

/// Sign-ins and links with providers refused for reasons about accounts, not tokens.
public enum SocialAccountError: Error, Equatable, Sendable {
    /// Registering an identity that already has an account (the register/login API's /register).
    case alreadyRegistered(providerName: String)
    /// Signing in with an identity that has no account (the register/login API's /login).
    case notRegistered(providerName: String)
    /// A new identity whose email belongs to an account it may not join by itself.
    case emailInUse(email: String, providerName: String)
    case linkedToAnotherAccount(providerName: String)
    /// Unlinking an identity the account does not have.
    case notLinked
    /// Unlinking the only way the account can sign in.
    case lastWayToSignIn
    /// A browser sign-in whose state is unknown, expired or used.
    case flowExpired
}
