import Foundation
import Logging
import OneTimePassword

/// The authenticator-app second factor (RFC 6238: 30 s, 6 digits, SHA-1, as the apps expect):
/// setting it up, turning it off, recovery codes, the code step of a sign-in, browsers that skip
/// it for 30 days, and an admin's reset.
///
/// A wrong code counts toward the account's lockout exactly like a wrong password, and a right
/// password does not clear the count while the code is outstanding, so knowing the password
/// buys no extra guesses at the code.
public struct SecondFactorService: Sendable {
    let store: SecondFactorRepository
    let box: TOTPSecretBox
    let users: UserRepository
    let protection: BruteForceProtection
    let audit: AuditRepository
    /// Each change of the factor is mailed to the owner.
    let emails: AccountEmails
    /// The name authenticator apps show above the code.
    let issuer: String

    /// How long a browser may skip the code after "remember this browser".
    public static let rememberedBrowserLifetime: TimeInterval = 30 * 24 * 3600
    /// How long the code step of a sign-in waits after the password.
    public static let pendingSignInLifetime: TimeInterval = 10 * 60
    static let recoveryCodeCount = 10

    init(store: SecondFactorRepository, box: TOTPSecretBox, users: UserRepository, protection: BruteForceProtection, audit: AuditRepository, emails: AccountEmails, issuer: String) {
        self.emails = emails
        self.store = store
        self.box = box
        self.users = users
        self.protection = protection
        self.audit = audit
        self.issuer = issuer
    }

    /// What the account page shows.
    public struct Status: Sendable {
        public let isEnabled: Bool
        public let unusedRecoveryCodes: Int
        public let rememberedBrowsers: Int
    }

    public func status(of user: User) async throws -> Status {
        let (isEnabled, codes, browsers) = try await store.status(userID: user.id)
        return Status(isEnabled: isEnabled, unusedRecoveryCodes: codes, rememberedBrowsers: browsers)
    }

    /// The secret to scan, as an `otpauth://` URI and as text to type.
    public struct Enrolment: Sendable {
        public let uri: String
        /// Base32 in groups of four, for typing into an app by hand.
        public let secret: String
    }

    /// Starts (or shows again) the set-up: the secret not yet confirmed is kept, so a reload
    /// shows the code already scanned.
    public func beginEnrolment(for user: User) async throws -> Enrolment {
        try user.requireProvenAddress()
        let existing = try await store.totp(userID: user.id)
        if existing?.isConfirmed == true { throw SecondFactorError.alreadyEnrolled }
        let secret: [UInt8]
        if let existing, let opened = try? box.open(existing.sealedSecret, userID: user.id) {
            secret = opened
        } else {
            secret = TOTP.generateSecret()
            guard try await store.saveUnconfirmed(userID: user.id, sealedSecret: box.seal(secret, userID: user.id)) else {
                throw SecondFactorError.alreadyEnrolled
            }
        }
        let account = user.handle.replacingOccurrences(of: ":", with: "")
        let uri = try OTPAuthURI.totp(secret: secret, issuer: issuer, account: account)
        let text = Base32.encode(secret)
        let grouped = stride(from: 0, to: text.count, by: 4).map { offset in
            String(text.dropFirst(offset).prefix(4))
        }.joined(separator: " ")
        return Enrolment(uri: uri, secret: grouped)
    }

    /// Turns the app on once the person typed a code from it; returns the recovery codes to
    /// show once (only their hashes are kept).
    public func confirmEnrolment(for user: User, code: String, origin: RequestOrigin) async throws -> [String] {
        try user.requireProvenAddress()
        let stored = try await store.totp(userID: user.id)
        guard let factor = stored, !factor.isConfirmed else {
            throw stored == nil ? SecondFactorError.notEnrolled : SecondFactorError.alreadyEnrolled
        }
        guard let secret = opened(factor, of: user) else { throw SecondFactorError.incorrectCode }
        guard let step = try TOTP(secret: secret).verify(code, at: .now) else { throw SecondFactorError.incorrectCode }
        let codes = RecoveryCodes.generate(count: Self.recoveryCodeCount)
        guard try await store.confirm(
            userID: user.id, step: step, recoveryCodeHashes: codes.compactMap(RecoveryCodes.storageHash(of:)),
            notifying: emails.pending(.securityChange(.twoFactorEnabled), to: user)
        ) else {
            throw SecondFactorError.alreadyEnrolled
        }
        emails.nudge()
        await audit.record(.twoFactorEnabled, actor: user.id, targetUser: user.id, target: user.handle, origin: origin)
        return codes
    }

    /// Turns the app off: needs a current code or an unused recovery code. Remembered browsers
    /// are forgotten with it.
    public func disable(for user: User, code: String, origin: RequestOrigin) async throws {
        try await requireCode(code, of: user, origin: origin)
        try await store.removeAll(userID: user.id, includingPasskeys: false, notifying: emails.pending(.securityChange(.twoFactorDisabled), to: user))
        emails.nudge()
        await audit.record(.twoFactorDisabled, actor: user.id, targetUser: user.id, target: user.handle, origin: origin)
    }

    /// Ten new recovery codes in place of the old ones; needs a current code (or a recovery code).
    public func regenerateRecoveryCodes(for user: User, code: String, origin: RequestOrigin) async throws -> [String] {
        try await requireCode(code, of: user, origin: origin)
        let codes = RecoveryCodes.generate(count: Self.recoveryCodeCount)
        try await store.replaceRecoveryCodes(
            userID: user.id, hashes: codes.compactMap(RecoveryCodes.storageHash(of:)),
            notifying: emails.pending(.securityChange(.recoveryCodesRegenerated), to: user)
        )
        emails.nudge()
        await audit.record(.recoveryCodesRegenerated, actor: user.id, targetUser: user.id, target: user.handle, origin: origin)
        return codes
    }

    /// A signed-in person proving they still hold the factor; counts toward lockout when wrong.
    func requireCode(_ code: String, of user: User, origin: RequestOrigin) async throws {
        try await protection.claimAttempt(account: user.lockoutKey)
        guard try await accepts(code, of: user, origin: origin) else {
            await audit.record(.twoFactorFailed, actor: user.id, targetUser: user.id, target: user.handle, origin: origin)
            throw SecondFactorError.incorrectCode
        }
        try await protection.clearFailures(account: user.lockoutKey)
    }

    /// The code step of a sign-in. Credentials that need no code pass through unchanged.
    /// - Parameter countsAsAttempt: false when this request's password check already claimed the
    ///   attempt (the API sends password and code together), true for a code sent on its own.
    func completeSignIn(
        _ credentials: UserCredentials,
        code: String?,
        countsAsAttempt: Bool,
        origin: RequestOrigin
    ) async throws -> UserCredentials {
        guard credentials.secondFactor == .required else { return credentials }
        let code = (code ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        guard !code.isEmpty else { throw SecondFactorError.codeRequired }
        let user = credentials.user
        if countsAsAttempt {
            do {
                try await protection.claimAttempt(account: user.lockoutKey)
            } catch let error as RateLimited {
                await audit.record(.signInLocked, actor: nil, targetUser: user.id, target: user.handle, origin: origin)
                throw error
            }
        }
        guard try await accepts(code, of: user, origin: origin) else {
            AppMetrics.signInFailed()
            await audit.record(.twoFactorFailed, actor: nil, targetUser: user.id, target: user.handle, origin: origin)
            throw SecondFactorError.incorrectCode
        }
        try await protection.clearFailures(account: user.lockoutKey)
        var satisfied = credentials
        satisfied.secondFactor = .satisfied
        return satisfied
    }

    /// A current, not yet used code of the account's app, or one of its unused recovery codes
    /// (which is then used up).
    private func accepts(_ code: String, of user: User, origin: RequestOrigin) async throws -> Bool {
        guard let factor = try await store.totp(userID: user.id), factor.isConfirmed else { throw SecondFactorError.notEnrolled }
        let digits = code.filter { !$0.isWhitespace }
        if digits.count == 6, digits.allSatisfy(\.isASCII), digits.allSatisfy(\.isNumber) {
            guard let secret = opened(factor, of: user) else { return false }
            guard let step = try TOTP(secret: secret).verify(digits, at: .now, lastUsedStep: factor.lastUsedStep) else { return false }
            return try await store.claimStep(userID: user.id, step: step)
        }
        guard let hash = RecoveryCodes.storageHash(of: code), try await store.useRecoveryCode(userID: user.id, hash: hash) else {
            return false
        }
        await audit.record(.recoveryCodeUsed, actor: user.id, targetUser: user.id, target: user.handle, origin: origin)
        return true
    }

    /// The factor's secret, or nil when it no longer opens: `SECRET_KEY` changed since it was set
    /// up. No code from the app can be right then (a recovery code still is, or an admin's reset);
    /// the operator is told, the person sees a wrong code.
    private func opened(_ factor: TOTPFactor, of user: User) -> [UInt8]? {
        do {
            return try box.open(factor.sealedSecret, userID: user.id)
        } catch {
            store.logger.error(
                "the authenticator secret of user \(user.id) does not open under this SECRET_KEY (changed since it was set up?): its codes are refused; a recovery code or an admin's reset of two-step verification lets the user in"
            )
            return nil
        }
    }

    // MARK: Remembered browsers

    /// A token for the "remember this browser" cookie; only its hash is stored.
    func rememberBrowser(for user: User) async throws -> String {
        let token = RandomToken.urlSafe()
        try await store.rememberBrowser(
            userID: user.id,
            tokenHash: RandomToken.hash(token),
            expiresAt: Date.now.addingTimeInterval(Self.rememberedBrowserLifetime)
        )
        return token
    }

    /// The credentials, satisfied if this browser's cookie names a live remembered browser of
    /// this very account.
    func applyingRememberedBrowser(_ credentials: UserCredentials, token: String?) async throws -> UserCredentials {
        guard credentials.secondFactor == .required, let token, !token.isEmpty,
            try await store.isRemembered(userID: credentials.user.id, tokenHash: RandomToken.hash(token))
        else { return credentials }
        // The browser answers for the code, and ends the count as a right code does (else the
        // password's attempt, kept for the code, would stay counted at every sign-in from it).
        try await protection.clearFailures(account: credentials.user.lockoutKey)
        var satisfied = credentials
        satisfied.secondFactor = .rememberedBrowser
        return satisfied
    }

    public func forgetBrowsers(of user: User, origin: RequestOrigin) async throws {
        try await store.forgetBrowsers(userID: user.id)
        await audit.record(.browsersForgotten, actor: user.id, targetUser: user.id, target: user.handle, origin: origin)
    }

    // MARK: Pending sign-ins

    /// Parks a sign-in whose code is outstanding; returns the token for the browser's cookie.
    func startPending(_ credentials: UserCredentials, linking identity: SocialIdentity?, returnTo: String) async throws -> String {
        let token = RandomToken.urlSafe()
        try await store.createPending(
            tokenHash: RandomToken.hash(token),
            PendingSignIn(userID: credentials.user.id, passwordHash: credentials.passwordHash, returnTo: returnTo, linking: identity),
            expiresAt: Date.now.addingTimeInterval(Self.pendingSignInLifetime)
        )
        return token
    }

    /// The parked sign-in of a cookie token: the account (as it is now, with the password that was
    /// checked then), where to go after, and the identity to link once it is complete.
    func pending(token: String) async throws -> SignInService.ParkedSignIn {
        guard !token.isEmpty, let pending = try await store.pending(tokenHash: RandomToken.hash(token)),
            let current = try await users.credentials(forID: pending.userID), !current.user.isDisabled
        else { throw SecondFactorError.signInExpired }
        let credentials = UserCredentials(user: current.user, passwordHash: pending.passwordHash, secondFactor: current.secondFactor)
        return SignInService.ParkedSignIn(credentials: credentials, returnTo: pending.returnTo, linking: pending.linking)
    }

    func finishPending(token: String) async throws {
        try await store.deletePending(tokenHash: RandomToken.hash(token))
    }

    // MARK: Admin

    /// Removes the user's app, recovery codes, remembered browsers and passkeys, so they can sign
    /// in with their password (or provider) alone and set it up again. Refused with
    /// `SecondFactorError.lastWayIn` when the passkeys are the only way in and the account has no
    /// address for a reset link: it would lock the account for good. `act` is the admin's (or the
    /// command line's).
    func reset(_ user: User, as act: AdminAct) async throws {
        try await store.removeAll(userID: user.id, includingPasskeys: true, as: act, notifying: emails.pending(.securityChange(.twoFactorReset), to: user))
        emails.nudge()
    }

    public func deleteExpired() async throws {
        try await store.deleteExpired()
    }
}
