import Foundation

/// Every way into an account, in one place: a password (email or username), a provider's
/// identity, a passkey, the register/login API, and a completed password reset. Each answers an
/// `Outcome` — signed in, or a pending sign-in that still owes its second factor, which
/// `complete(_:code:origin:)` finishes — and only signed-in credentials become a browser session
/// (`startSession`) or an API token (`issueToken(after:)`). Lockout counting, remembered
/// browsers and sign-ins parked for their code live here too, so a new way in (a share link's
/// password, an upload token) is one method here, not a change in every controller.
///
/// The surfaces call nothing else to sign someone in: the methods that used to do it
/// (`AccountService.authenticate`, `startSession`, `issueToken`, `SecondFactorService.completeSignIn`,
/// `PasskeyService.signIn`, `SocialSignInService.account(for:)`) are internal to the core.
public struct SignInService: Sendable {
    let accounts: AccountService
    let secondFactor: SecondFactorService
    let passkeys: PasskeyService
    let social: SocialSignInService
    let emails: AccountEmails

    /// Where a sign-in stands.
    public enum Outcome: Sendable {
        /// Ready for a session or a token.
        case signedIn(UserCredentials)
        /// The password (or provider) was right; the account's second factor is still owed.
        /// `linking`: the provider's identity that found the account by its address, to link once
        /// the code is given.
        case needsSecondFactor(UserCredentials, linking: SocialIdentity?)

        init(_ credentials: UserCredentials) {
            self = credentials.secondFactor.allowsSignIn ? .signedIn(credentials) : .needsSecondFactor(credentials, linking: nil)
        }
    }

    /// A sign-in parked while its code is owed (the browser's code step).
    public struct ParkedSignIn: Sendable {
        /// The account as it is now, with the password that was checked when it was parked.
        public let credentials: UserCredentials
        public let returnTo: String
        let linking: SocialIdentity?
    }

    /// What a way in may bring along for the second factor: a code sent with the password (the
    /// API's `otp`), and the browser's "remember this browser" cookie.
    public struct SecondFactorProof: Sendable {
        public var code: String?
        public var rememberedBrowser: String?

        public init(code: String? = nil, rememberedBrowser: String? = nil) {
            self.code = code
            self.rememberedBrowser = rememberedBrowser
        }
    }

    // MARK: Ways in

    /// An email or username and its password. A code sent along is checked in the same attempt
    /// (the password check already counted it toward the lockout).
    public func password(login: String, password: String, proof: SecondFactorProof = .init(), origin: RequestOrigin) async throws -> Outcome {
        let checked = try await accounts.authenticate(login: login, password: password, origin: origin)
        return try await settle(checked, proof: proof, codeCountsAsAttempt: false, way: "password", origin: origin)
    }

    /// A provider's verified identity: its linked account, the account with the address the
    /// provider vouches for, or (if `mode` allows) a new account. A code sent along counts as an
    /// attempt of its own (no password claimed one).
    public func provider(
        _ identity: SocialIdentity,
        mode: SocialSignInService.Mode = .signInOrSignUp,
        proof: SecondFactorProof = .init(),
        origin: RequestOrigin
    ) async throws -> (outcome: Outcome, created: Bool) {
        let (account, created, unlinked) = try await social.account(for: identity, mode: mode, origin: origin)
        let outcome = try await settle(account, proof: proof, codeCountsAsAttempt: true, way: "with \(social.providers.displayName(of: identity.provider))", origin: origin)
        guard unlinked else { return (outcome, created) }
        // Matched by its verified address: linked only once the account is really signed in to
        // (here, or when the parked sign-in's code is given).
        switch outcome {
        case .signedIn(let credentials):
            try await social.link(identity, to: credentials.user, origin: origin)
            return (outcome, created)
        case .needsSecondFactor(let credentials, _):
            return (.needsSecondFactor(credentials, linking: identity), created)
        }
    }

    /// A passkey's assertion: the device and its lock are two factors already.
    public func passkey(_ assertion: PasskeyService.Assertion, origin: RequestOrigin) async throws -> Outcome {
        .signedIn(try await passkeys.signIn(assertion, origin: origin))
    }

    /// A new account through the register/login API, signed in at once (it has no second factor
    /// yet) — unless addresses must be confirmed first (`REQUIRE_VERIFIED_EMAIL`): then the
    /// account is made and its link mailed, and it signs in once the link is used, as a password
    /// sign-in would.
    public func register(_ request: SignUpRequest, origin: RequestOrigin) async throws -> Outcome {
        let credentials = try await accounts.signUp(request, origin: origin)
        if emails.requireVerifiedEmail, let email = credentials.user.email, !credentials.user.emailVerified {
            throw AccountError.emailNotVerified(email, linkMailed: true)  // the sign-up mailed its first
        }
        return .signedIn(credentials)
    }

    /// A new password through an emailed reset link. It signs no one in: it ends every way in the
    /// account had, and the person signs in with the new password.
    public func completeReset(token: String, newPassword: String, confirmation: String?, origin: RequestOrigin) async throws -> User {
        try await emails.resetPassword(token: token, new: newPassword, confirmation: confirmation, origin: origin)
    }

    /// The code step of a parked sign-in (a code or a recovery code), which counts toward the
    /// account's lockout; the provider's identity it brought is linked once it is complete.
    public func complete(_ parked: ParkedSignIn, code: String?, origin: RequestOrigin) async throws -> UserCredentials {
        let credentials = try await secondFactor.completeSignIn(parked.credentials, code: code, countsAsAttempt: true, origin: origin)
        try await accounts.recordSignIn(of: credentials.user, target: "\(credentials.user.handle), with its code", origin: origin)
        if let identity = parked.linking { await social.linkAfterSignIn(identity, to: credentials.user, origin: origin) }
        return credentials
    }

    /// The second factor of credentials that owe one: a remembered browser, or a code sent along;
    /// else the code is asked. This is where such a sign-in is recorded (the password's or the
    /// provider's check records only sign-ins that need no code): `sign_in.succeeded` once it is
    /// complete, `sign_in.code_asked` (`way`: "password", "with Google") while it waits for one.
    private func settle(
        _ credentials: UserCredentials, proof: SecondFactorProof, codeCountsAsAttempt: Bool, way: String, origin: RequestOrigin
    ) async throws -> Outcome {
        guard credentials.secondFactor == .required else { return Outcome(credentials) }
        let user = credentials.user
        let remembered = try await secondFactor.applyingRememberedBrowser(credentials, token: proof.rememberedBrowser)
        if remembered.secondFactor.allowsSignIn {
            try await accounts.recordSignIn(of: user, target: "\(user.handle), \(way), from a remembered browser", origin: origin)
            return .signedIn(remembered)
        }
        guard proof.code != nil else {
            await accounts.recordCodeAsked(of: user, target: "\(user.handle), \(way)", origin: origin)
            return Outcome(remembered)
        }
        let satisfied = try await secondFactor.completeSignIn(remembered, code: proof.code, countsAsAttempt: codeCountsAsAttempt, origin: origin)
        try await accounts.recordSignIn(of: user, target: "\(user.handle), \(way), with its code", origin: origin)
        return .signedIn(satisfied)
    }

    // MARK: Sessions and tokens

    /// A browser session for signed-in credentials (a session the browser had is ended); returns
    /// the cookie's token.
    public func startSession(
        for credentials: UserCredentials,
        replacing previous: ActiveSession?,
        userAgent: String,
        ipAddress: String
    ) async throws -> String {
        if let previous { try await accounts.endSession(previous.sessionID) }
        return try await accounts.startSession(for: credentials, userAgent: userAgent, ipAddress: ipAddress)
    }

    /// An API token for signed-in credentials, through `appKey`.
    public func issueToken(after credentials: UserCredentials, appKey: String, origin: RequestOrigin) async throws -> IssuedToken {
        try await accounts.issueToken(for: credentials, appKey: appKey, origin: origin)
    }

    // MARK: Parked sign-ins and remembered browsers (the browser's code step)

    /// Parks a sign-in that owes its code (with the identity to link once it is given); returns
    /// the token for the browser's cookie.
    public func park(_ credentials: UserCredentials, linking identity: SocialIdentity?, returnTo: String) async throws -> String {
        try await secondFactor.startPending(credentials, linking: identity, returnTo: returnTo)
    }

    /// The parked sign-in of a cookie's token (the account as it is now), or nil when it expired.
    public func parked(token: String) async throws -> ParkedSignIn? {
        do {
            return try await secondFactor.pending(token: token)
        } catch SecondFactorError.signInExpired {
            return nil
        }
    }

    public func unpark(token: String) async throws {
        try await secondFactor.finishPending(token: token)
    }

    /// A token for "remember this browser" (skips the code for 30 days).
    public func rememberBrowser(for user: User) async throws -> String {
        try await secondFactor.rememberBrowser(for: user)
    }
}
