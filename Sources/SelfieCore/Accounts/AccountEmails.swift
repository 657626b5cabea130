import Foundation
import Logging

/// Everything that reaches a person by mail: the link that confirms their address, the link that
/// resets a forgotten password, moving the account to a new address, and the notices of changes to
/// it. Each link's token and its message are written in one transaction (the outbox): both or
/// neither.
public struct AccountEmails: Sendable {
    let users: UserRepository
    let tokens: EmailTokenRepository
    let outbox: MailOutboxRepository
    let hasher: PasswordHasher
    let protection: BruteForceProtection
    let audit: AuditRepository
    /// `REQUIRE_VERIFIED_EMAIL`.
    public let requireVerifiedEmail: Bool
    let scopedLogger: ScopedLogger
    var logger: Logger { scopedLogger.current }
    var passwordCheck: PasswordConfirmation { PasswordConfirmation(hasher: hasher, protection: protection, audit: audit) }

    init(
        tokens: EmailTokenRepository,
        users: UserRepository,
        outbox: MailOutboxRepository,
        hasher: PasswordHasher,
        protection: BruteForceProtection,
        audit: AuditRepository,
        requireVerifiedEmail: Bool,
        logger: Logger
    ) {
        self.users = users
        self.tokens = tokens
        self.outbox = outbox
        self.hasher = hasher
        self.protection = protection
        self.audit = audit
        self.requireVerifiedEmail = requireVerifiedEmail
        self.scopedLogger = ScopedLogger(logger)
    }

    // MARK: Notices

    /// A notice to the user's address (none for an account without one) for the repository making
    /// the change it tells about to queue in its transaction; `nudge()` once that has committed.
    func pending(_ notice: MailNotice, to user: User) -> PendingNotice? {
        outbox.pending(notice, to: user)
    }

    /// Tells this instance's sender that mail was queued.
    func nudge() { outbox.nudge() }

    /// Queues a notice that tells of no change of its own (someone tried to sign up with the
    /// address): a notice that cannot be queued is logged.
    func notify(_ user: User, _ notice: MailNotice) async {
        guard let recipient = MailRecipient(user) else { return }
        do {
            try await outbox.enqueue(notice, to: recipient)
        } catch {
            logger.error("could not queue a notice", metadata: ["kind": "\(notice.kind.rawValue)", "error": "\(String(reflecting: error))"])
        }
    }

    /// "Someone tried to sign up with your address": at most one a day per address, so sign-up
    /// attempts cannot be used to flood someone's inbox.
    func notifyOfSignUpAttempt(_ owner: User) async {
        guard let email = owner.email else { return }
        do {
            try await protection.consume(.signUpAttemptNotice, client: "email:\(email.lowercased())")
        } catch is RateLimited {
            return
        } catch {
            logger.error("could not count a sign-up notice", metadata: ["error": "\(String(reflecting: error))"])
            return
        }
        await notify(owner, .signUpAttempted)
    }

    /// A new token for `purpose`, stored with the message that carries it, in one transaction;
    /// with `sessionID`, only while that session lasts (`AccountError.confirmItsYou` when it has
    /// ended, and nothing is stored).
    @discardableResult
    private func mailLink(
        _ purpose: EmailTokenPurpose,
        to recipient: MailRecipient,
        userID: Int64,
        as act: AdminAct? = nil,
        whileSession sessionID: Int64? = nil,
        alsoNotifying other: PendingNotice? = nil,
        notice: (String) -> MailNotice
    ) async throws -> String {
        let token = RandomToken.urlSafe()
        try await tokens.create(
            purpose, userID: userID, email: recipient.address, token: token, mailing: notice(token), to: recipient, through: outbox,
            as: act, whileSession: sessionID, alsoNotifying: other
        )
        outbox.nudge()
        return token
    }

    // MARK: Confirming an address

    /// Mails a link that confirms the user's address (if they have one and it is not confirmed).
    /// At most five a day per account, so the button cannot be used to flood someone's inbox.
    public func sendVerification(to user: User) async throws {
        guard !user.emailVerified, let recipient = MailRecipient(user) else { return }
        try await protection.consume(.verificationMail, user: user.id)
        try await mailLink(.verifyEmail, to: recipient, userID: user.id, notice: MailNotice.verifyEmail(token:))
    }

    /// `sendVerification`, for a sign-up or a sign-in that waits for it: a failure is logged (the
    /// link can be sent again).
    /// Whether the link was queued (not when the day's limit is reached or the outbox refused it).
    @discardableResult
    func sendVerificationQuietly(to user: User) async -> Bool {
        do {
            try await sendVerification(to: user)
            return true
        } catch is RateLimited {
            logger.notice("confirmation links to one account limited")
        } catch {
            logger.error("could not queue the confirmation link", metadata: ["error": "\(String(reflecting: error))"])
        }
        return false
    }

    /// The address a confirmation link is for, while it works (the page that asks to confirm it).
    public func verificationTarget(token: String, signedInAs userID: Int64?) async throws -> ConfirmationLink? {
        try await confirmationLink(.verifyEmail, token: token, signedInAs: userID)
    }

    /// Confirms the address a link was sent to (if it is still the account's, and the account is
    /// enabled) and returns the account's id, once `holder` shows the account is theirs (see
    /// `requireHolder`). Throws `AccountError.linkNotValid` for an unknown, used or expired link.
    public func verifyEmail(token: String, by holder: LinkHolder, origin: RequestOrigin) async throws -> Int64 {
        let target = try await takeProven(.verifyEmail, token: token, by: holder, origin: origin)
        guard try await users.markEmailVerified(userID: target.userID, email: target.email) else { throw AccountError.linkNotValid }
        await audit.record(.emailVerified, actor: target.userID, targetUser: target.userID, target: target.email, origin: origin)
        return target.userID
    }

    // MARK: Who may use a confirmation link

    /// The link's inbox is not the account: anyone can sign up with another person's address (or
    /// ask to move their account to it), and that person pressing "confirm" in the mail must not
    /// give the account a proven address — a passkey or provider added then would outlive the
    /// owner's later reset, and a provider sign-in by that address would land in it. So a
    /// confirmation link also needs the account: a browser signed in to it, or its password.
    /// Throws `InvalidFields` (`.currentPassword`: missing or incorrect, counted like a sign-in),
    /// `AccountError.signInToUseLink` for an account without a password, `.linkNotValid` for a
    /// disabled or deleted one.
    private func requireHolder(of userID: Int64, _ holder: LinkHolder, origin: RequestOrigin) async throws {
        if holder.signedInAs == userID { return }
        guard let account = try await users.credentials(forID: userID), !account.user.isDisabled else { throw AccountError.linkNotValid }
        guard let hash = account.passwordHash else { throw AccountError.signInToUseLink }
        guard let password = holder.password, !password.isEmpty else { throw InvalidFields([.currentPassword: .missing]) }
        guard try await passwordCheck.check(password, against: hash, of: account, origin: origin) else {
            throw InvalidFields([.currentPassword: .incorrect])
        }
    }

    /// Uses up a confirmation link once `holder` shows the account is theirs: looked at, proven,
    /// then taken, so that a wrong or missing password uses nothing up.
    private func takeProven(_ purpose: EmailTokenPurpose, token: String, by holder: LinkHolder, origin: RequestOrigin) async throws
        -> EmailTokenTarget
    {
        guard let link = try await tokens.peek(purpose, token: token) else { throw AccountError.linkNotValid }
        try await requireHolder(of: link.userID, holder, origin: origin)
        guard let target = try await tokens.take(purpose, token: token) else { throw AccountError.linkNotValid }
        return target
    }

    private func confirmationLink(_ purpose: EmailTokenPurpose, token: String, signedInAs userID: Int64?) async throws -> ConfirmationLink? {
        guard let target = try await tokens.peek(purpose, token: token),
            let account = try await users.credentials(forID: target.userID), !account.user.isDisabled
        else { return nil }
        return ConfirmationLink(email: target.email, signedIn: userID == target.userID, accountHasPassword: account.passwordHash != nil)
    }

    // MARK: Forgotten passwords

    /// Mails a reset link to the account with this address, if there is one (and it is enabled).
    /// The caller answers the same whatever happens here — and before it is done — so that
    /// neither the answer nor its timing tells whether the address has an account. At most three
    /// links an hour per account, silently: counted by the account found, not by the address as
    /// typed — PostgreSQL's `lower()` finds one account by several spellings that Swift lowercases
    /// apart ("İvan@…" and "ivan@…"), and a count per spelling would multiply the cap.
    public func requestPasswordReset(email: String, origin: RequestOrigin) async {
        let email = email.trimmingCharacters(in: .whitespacesAndNewlines)
        guard EmailAddress.isPlausible(email) else { return }
        do {
            guard let user = try await users.credentials(forEmail: email)?.user, !user.isDisabled, let recipient = MailRecipient(user) else {
                return
            }
            try await protection.consume(.passwordResetMail, user: user.id)
            try await mailLink(.resetPassword, to: recipient, userID: user.id, notice: MailNotice.passwordReset(token:))
            await audit.record(.passwordResetRequested, actor: nil, targetUser: user.id, target: user.handle, origin: origin)
        } catch is RateLimited {
            logger.notice("password reset links to one address limited")
        } catch {
            logger.error("could not queue a password reset link", metadata: ["error": "\(String(reflecting: error))"])
        }
    }

    /// A reset link for the user on an admin's request: mailed to them (the admin pages), or only
    /// returned for the admin to hand over (`selfie admin reset-link`, when mail does not reach
    /// them). Audited either way. Returns the link's token.
    @discardableResult
    public func issuePasswordReset(for user: User, mailed: Bool, by admin: User?, origin: RequestOrigin) async throws -> String {
        guard let email = user.email, !user.isDisabled else { throw AccountError.linkNotValid }
        let record = AuditRecord(type: .passwordResetLinkIssued, actor: admin?.id, targetUser: user.id, target: mailed ? "mailed to \(email)" : "printed for \(email)", origin: origin)
        if mailed, let recipient = MailRecipient(user) {
            return try await mailLink(.resetPassword, to: recipient, userID: user.id, as: AdminAct(record), notice: MailNotice.passwordReset(token:))
        }
        let token = RandomToken.urlSafe()
        try await tokens.create(.resetPassword, userID: user.id, email: email, token: token, as: AdminAct(record))
        return token
    }

    /// The account a reset link is for, while it works (the page with the new-password form).
    public func resetTarget(token: String) async throws -> String? {
        try await tokens.peek(.resetPassword, token: token)?.email
    }

    /// Sets a new password through a reset link, if the link went to the account's current
    /// address: the link is used up, every session, API token, remembered browser and mailed link
    /// of the account ends, the address counts as confirmed (and what was added before it was
    /// goes, see `UserRepository.resetPassword`), and a notice goes to the address.
    func resetPassword(token: String, new: String, confirmation: String?, origin: RequestOrigin) async throws -> User {
        var problems = InvalidFields()
        if let problem = PasswordPolicy.problem(with: new) {
            problems[.newPassword] = problem
        } else if let confirmation, confirmation != new {
            problems[.newPasswordConfirmation] = .confirmationMismatch
        }
        guard problems.isEmpty else { throw problems }
        guard let target = try await tokens.take(.resetPassword, token: token),
            let account = try await users.credentials(forID: target.userID), !account.user.isDisabled
        else { throw AccountError.linkNotValid }
        let hash = try await hasher.hash(new)
        guard try await users.resetPassword(
            userID: account.user.id, email: target.email, passwordHash: hash, notifying: pending(.passwordChanged, to: account.user)
        ) else {
            throw AccountError.linkNotValid  // the account moved to another address since the link was sent
        }
        nudge()
        try await protection.clearFailures(account: account.user.lockoutKey)
        await audit.record(.passwordReset, actor: account.user.id, targetUser: account.user.id, target: account.user.handle, origin: origin)
        return account.user
    }

    // MARK: A new address

    /// Mails a confirmation link to the new address and a notice to the old one; the account keeps
    /// its old address until the link is used. A password account confirms with its password, one
    /// without a password with a sign-in from the last ten minutes (the session's `confirmedAt`,
    /// see `StepUp`). The link is stored only while `session` lasts: one ended meanwhile (the
    /// owner signed out everywhere, an admin revoked access) throws `AccountError.confirmItsYou`
    /// and leaves nothing behind.
    public func requestEmailChange(in session: ActiveSession, to newEmail: String, currentPassword: String, origin: RequestOrigin) async throws {
        let user = session.user
        let newEmail = newEmail.trimmingCharacters(in: .whitespacesAndNewlines)
        var problems = InvalidFields()
        if let problem = EmailAddress.problem(with: newEmail) {
            problems[.email] = problem
        } else if newEmail.lowercased() == user.email?.lowercased() {
            problems[.email] = .unchanged
        }
        guard let credentials = try await users.credentials(forID: user.id) else { throw AccountError.invalidCredentials }
        if let hash = credentials.passwordHash {
            guard try await passwordCheck.check(currentPassword, against: hash, of: credentials, origin: origin) else {
                problems[.currentPassword] = .incorrect
                throw problems
            }
        } else {
            try StepUp.require(confirmedAt: session.confirmedAt)
        }
        guard problems.isEmpty else { throw problems }
        try await protection.consume(.verificationMail, user: user.id)
        // Not confirmed yet: not named (see `MailRecipient.init(_:)`).
        let recipient = MailRecipient(address: newEmail, name: nil, language: user.preferences.language)
        // The old address is told in the same transaction.
        try await mailLink(
            .changeEmail, to: recipient, userID: user.id, whileSession: session.sessionID,
            alsoNotifying: pending(.emailChangeRequested(newEmail: EmailAddress.masked(newEmail)), to: user)
        ) { token in
            .confirmNewEmail(token: token, newEmail: newEmail)
        }
        await audit.record(.emailChangeRequested, actor: user.id, targetUser: user.id, target: newEmail, origin: origin)
    }

    /// The new address a confirmation link is for, while it works.
    public func emailChangeTarget(token: String, signedInAs userID: Int64?) async throws -> ConfirmationLink? {
        try await confirmationLink(.changeEmail, token: token, signedInAs: userID)
    }

    /// Moves the account to the address the link was sent to, once `holder` shows the account is
    /// theirs (see `requireHolder`); the old address gets a notice. Another account taking the
    /// address meanwhile is `InvalidFields` (`.email: .taken`).
    public func confirmEmailChange(token: String, by holder: LinkHolder, origin: RequestOrigin) async throws -> User {
        let target = try await takeProven(.changeEmail, token: token, by: holder, origin: origin)
        guard let before = try await users.credentials(forID: target.userID)?.user, !before.isDisabled else { throw AccountError.linkNotValid }
        do {
            try await users.changeEmail(
                userID: before.id, to: target.email, notifying: pending(.emailChanged(newEmail: EmailAddress.masked(target.email)), to: before)
            )
        } catch UniqueValueTaken.email {
            throw InvalidFields([.email: .taken])
        }
        nudge()
        await audit.record(.emailChanged, actor: before.id, targetUser: before.id, target: "\(before.email ?? "(none)") → \(target.email)", origin: origin)
        return try await users.credentials(forID: before.id)?.user ?? before
    }

    func deleteExpiredTokens() async throws {
        try await tokens.deleteExpired()
    }
}

/// Who is using a confirmation link: the account the browser is signed in to, and the password
/// typed on the link's page, if any.
public struct LinkHolder: Sendable {
    public var signedInAs: Int64?
    public var password: String?

    public init(signedInAs: Int64?, password: String?) {
        self.signedInAs = signedInAs
        self.password = password
    }
}

/// What a confirmation link's page needs: the address, whether this browser is signed in to the
/// link's account (a button is enough), and otherwise whether the account has a password to type
/// (else the page leads to a sign-in).
public struct ConfirmationLink: Sendable {
    public let email: String
    public let signedIn: Bool
    public let accountHasPassword: Bool
}
