import Foundation

/// A message Selfie sends a person: what it is about and the values it needs. It is stored as
/// such in the outbox and composed — in words, from the mail templates — only when it is sent, so
/// the core never holds user-facing copy.
public struct MailNotice: Sendable, Equatable {
    public enum Kind: String, Sendable, CaseIterable {
        /// A link that confirms the address (`token`).
        case verifyEmail = "verify_email"
        /// A link that sets a new password (`token`), valid for an hour.
        case passwordReset = "password_reset"
        /// To a new address: a link that confirms it (`token`, `newEmail`).
        case confirmNewEmail = "confirm_new_email"
        /// To the old address: someone asked to move the account to `newEmail`.
        case emailChangeRequested = "email_change_requested"
        /// To the old address: the account now uses `newEmail`.
        case emailChanged = "email_changed"
        case passwordChanged = "password_changed"
        /// A provider (`providerName`) can now sign in to the account.
        case providerLinked = "provider_linked"
        case accountDeleted = "account_deleted"
        /// Someone tried to sign up with an address that already has an account.
        case signUpAttempted = "sign_up_attempted"
        /// A way in or a factor of the account changed (`change`: a `SecurityChange`; passkeys and
        /// providers also name themselves in `name`).
        case securityChange = "security_change"
        /// A sign-in from a browser or app the account has not used before (`userAgent`, `network`).
        case newSignIn = "new_sign_in"
    }

    /// What a `securityChange` notice tells about.
    public enum SecurityChange: String, Sendable, CaseIterable {
        case twoFactorEnabled = "two_factor_enabled"
        case twoFactorDisabled = "two_factor_disabled"
        case recoveryCodesRegenerated = "recovery_codes_regenerated"
        case passkeyAdded = "passkey_added"
        case passkeyRemoved = "passkey_removed"
        case providerUnlinked = "provider_unlinked"
        /// An administrator removed the authenticator app and passkeys.
        case twoFactorReset = "two_factor_reset"
    }

    public let kind: Kind
    public let params: [String: String]

    public init(_ kind: Kind, _ params: [String: String] = [:]) {
        self.kind = kind
        self.params = params
    }

    public static func verifyEmail(token: String) -> MailNotice { MailNotice(.verifyEmail, ["token": token]) }
    public static func passwordReset(token: String) -> MailNotice { MailNotice(.passwordReset, ["token": token]) }
    public static func confirmNewEmail(token: String, newEmail: String) -> MailNotice {
        MailNotice(.confirmNewEmail, ["token": token, "newEmail": newEmail])
    }
    public static func emailChangeRequested(newEmail: String) -> MailNotice { MailNotice(.emailChangeRequested, ["newEmail": newEmail]) }
    public static func emailChanged(newEmail: String) -> MailNotice { MailNotice(.emailChanged, ["newEmail": newEmail]) }
    public static let passwordChanged = MailNotice(.passwordChanged)
    public static func providerLinked(providerName: String) -> MailNotice { MailNotice(.providerLinked, ["providerName": providerName]) }
    public static let accountDeleted = MailNotice(.accountDeleted)
    public static let signUpAttempted = MailNotice(.signUpAttempted)
    public static func securityChange(_ change: SecurityChange, name: String? = nil) -> MailNotice {
        MailNotice(.securityChange, ["change": change.rawValue].merging(name.map { ["name": $0] } ?? [:]) { $1 })
    }
    public static func newSignIn(userAgent: String, network: String) -> MailNotice {
        MailNotice(.newSignIn, ["userAgent": userAgent, "network": network])
    }
}

/// Who a message goes to.
public struct MailRecipient: Sendable, Equatable {
    public let address: String
    public let name: String?
    /// The language the message is written in (the account's); nil is English.
    public let language: String?

    public init(address: String, name: String?, language: String? = nil) {
        self.address = address
        self.name = name
        self.language = language
    }

    /// The user's address, if they have one (accounts made through some providers do not). Named
    /// (the greeting, the `To` header) only once the address is confirmed: anyone can sign up with
    /// someone else's address, and the name they type ("Your parcel is held, pay at …") would
    /// otherwise reach that inbox in Selfie's own mail.
    public init?(_ user: User) {
        guard let email = user.email else { return nil }
        self.init(address: email, name: user.emailVerified ? user.fullName : nil, language: user.preferences.language)
    }
}

/// A notice in words: what the sender hands to the transport.
public struct ComposedMail: Sendable, Equatable {
    public let subject: String
    public let text: String
    public let html: String?

    public init(subject: String, text: String, html: String?) {
        self.subject = subject
        self.text = text
        self.html = html
    }
}

/// Turns notices into words (the web surface's mail templates).
public protocol MailComposer: Sendable {
    func compose(_ notice: MailNotice, to recipient: MailRecipient) throws -> ComposedMail
}
