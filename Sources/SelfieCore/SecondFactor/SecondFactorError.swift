/// Why a second-factor step was refused. The words live in the App's `ErrorCopy`.
public enum SecondFactorError: Error, Sendable, Equatable {
    /// The password (or provider) was right; the account also needs a code.
    case codeRequired
    /// Not a current code of the account's app nor an unused recovery code (or a code already used).
    case incorrectCode
    /// The account has no authenticator app to check against (or to turn off).
    case notEnrolled
    /// Setting up an authenticator app while one is already on.
    case alreadyEnrolled
    /// The half-finished sign-in (password done, code pending) has expired or never existed.
    case signInExpired
    /// The browser's passkey answer was not accepted (wrong challenge, origin, signature, …);
    /// the reason is for logs only.
    case passkeyRefused(String)
    /// No passkey of this account has this id.
    case passkeyNotFound
    /// The passkey's name is empty or longer than 100 characters.
    case invalidPasskeyName
    /// The passkey is the account's last way in (no password, no linked provider).
    case lastWayIn
}
