import Crypto
import Foundation
import Logging

/// Account rules shared by the browser pages and the API: signing up, checking a password,
/// changing it, and starting or ending browser sessions and API tokens.
public struct AccountService: Sendable {
    let users: UserRepository
    let sessions: WebSessionRepository
    let tokens: APITokenRepository
    let hasher: PasswordHasher
    let audit: AuditRepository
    let protection: BruteForceProtection
    let sessionLifetime: Duration
    let tokenLifetime: Duration
    let emails: AccountEmails
    let access: AccessCache
    var passwordCheck: PasswordConfirmation { PasswordConfirmation(hasher: hasher, protection: protection, audit: audit) }

    init(
        users: UserRepository,
        sessions: WebSessionRepository,
        tokens: APITokenRepository,
        hasher: PasswordHasher,
        audit: AuditRepository,
        protection: BruteForceProtection,
        sessionLifetime: Duration,
        tokenLifetime: Duration,
        emails: AccountEmails,
        access: AccessCache
    ) {
        self.access = access
        self.emails = emails
        self.protection = protection
        self.users = users
        self.sessions = sessions
        self.tokens = tokens
        self.hasher = hasher
        self.audit = audit
        self.sessionLifetime = sessionLifetime
        self.tokenLifetime = tokenLifetime
    }

    /// Creates the account and mails a link that confirms its address. Throws `InvalidFields` for
    /// invalid input, a taken email or username included (decided by the unique index, not by a
    /// read beforehand).
    public func signUp(_ request: SignUpRequest, origin: RequestOrigin) async throws -> UserCredentials {
        let credentials = try await createAccount(request, role: .user)
        await audit.record(.signedUp, actor: credentials.user.id, targetUser: credentials.user.id, target: credentials.user.handle, origin: origin)
        await emails.sendVerificationQuietly(to: credentials.user)
        return credentials
    }

    /// Sign-up where the form must not tell whether an address is taken: a taken address gets its
    /// owner a notice ("someone tried to sign up with your address") and the same answer as a new
    /// account. Other problems (a weak password, a taken username) are still `InvalidFields`.
    /// Returns the new account, or nil when the address belonged to someone.
    ///
    /// A taken username is said whoever owns the address: the unique index on emails answers
    /// first, so a form with a known username would otherwise be refused for a free address and
    /// accepted for a taken one.
    public func signUpQuietly(_ request: SignUpRequest, origin: RequestOrigin) async throws -> UserCredentials? {
        do {
            return try await signUp(request, origin: origin)
        } catch let problems as InvalidFields where problems.problems == [.email: .taken] {
            if let username = request.username, try await users.credentials(forUsername: username) != nil {
                throw InvalidFields([.username: .taken])
            }
            if let owner = try await users.credentials(forEmail: request.email)?.user {
                await emails.notifyOfSignUpAttempt(owner)
            }
            return nil
        }
    }

    /// Validates and creates an account (the caller records how it came to be).
    func createAccount(_ request: SignUpRequest, role: User.Role) async throws -> UserCredentials {
        var problems = request.validate()
        guard problems.isEmpty else { throw problems }
        let hash = try await hasher.hash(request.password)
        do {
            let user = try await users.create(
                NewUser(email: request.email.isEmpty ? nil : request.email, username: request.username, fullName: request.fullName, passwordHash: hash, role: role, language: request.language)
            )
            return UserCredentials(user: user, passwordHash: hash, secondFactor: .notEnrolled)
        } catch UniqueValueTaken.email {
            problems[.email] = .taken
            throw problems
        } catch UniqueValueTaken.username {
            problems[.username] = .taken
            throw problems
        }
    }

    /// The user whose email or username (`login`) and password these are, with the hash that was
    /// verified (a session is only started while it is still current). Unknown login, wrong
    /// password, an account without a password and a disabled account all throw the same
    /// `AccountError.invalidCredentials`, after the same bcrypt work.
    ///
    /// An account (existing or not: lockout must not reveal which) with too many recent failures
    /// is refused with `RateLimited` before its password is even checked. Lockout counts per
    /// account, whichever of email or username was typed, so alternating them gains nothing.
    func authenticate(login: String, password: String, origin: RequestOrigin) async throws -> UserCredentials {
        let login = login.trimmingCharacters(in: .whitespacesAndNewlines)
        let account = try await lookUp(login: login)
        let attempted = AttemptedLogin.auditable(login, account: account)
        let lockoutKey = account?.user.lockoutKey ?? login
        do {
            try await protection.claimAttempt(account: lockoutKey)
        } catch let error as RateLimited {
            await audit.record(.signInLocked, actor: nil, targetUser: account?.user.id, target: attempted, origin: origin)
            throw error
        }
        do {
            let credentials = try await verify(account, password: password, attempted: attempted, origin: origin)
            // With a second factor the attempt stays counted until its code is right: knowing
            // the password must not reset the count that limits guessing the code.
            if credentials.secondFactor != .required {
                try await protection.clearFailures(account: lockoutKey)
            }
            return credentials
        } catch AccountError.invalidCredentials {
            AppMetrics.signInFailed()
            throw AccountError.invalidCredentials
        } catch let error as AccountError {
            // The right password for an account that must confirm its address first.
            try await protection.clearFailures(account: lockoutKey)
            throw error
        }
    }

    /// The account a sign-in field names: an email when it has an `@`, else a username.
    private func lookUp(login: String) async throws -> UserCredentials? {
        if login.contains("@") {
            guard EmailAddress.isPlausible(login) else { return nil }
            return try await users.credentials(forEmail: login)
        }
        guard Username.problem(with: login) == nil else { return nil }
        return try await users.credentials(forUsername: login)
    }

    private func verify(_ account: UserCredentials?, password: String, attempted: String, origin: RequestOrigin) async throws
        -> UserCredentials
    {
        guard PasswordPolicy.problem(with: password) == nil, let account, let hash = account.passwordHash else {
            try await hasher.verifyAgainstDecoy(password)
            await audit.record(.signInFailed, actor: nil, targetUser: account?.user.id, target: attempted, origin: origin)
            throw AccountError.invalidCredentials
        }
        guard try await hasher.verify(password, against: hash), !account.user.isDisabled else {
            await audit.record(.signInFailed, actor: nil, targetUser: account.user.id, target: attempted, origin: origin)
            throw AccountError.invalidCredentials
        }
        if emails.requireVerifiedEmail, let email = account.user.email, !account.user.emailVerified {
            // The right password: mail a fresh link (the first may be lost or expired), within
            // the daily limit.
            let mailed = await emails.sendVerificationQuietly(to: account.user)
            throw AccountError.emailNotVerified(email, linkMailed: mailed)
        }
        // With two-step verification the sign-in is recorded once its second factor is settled
        // (`SignInService`): a remembered browser, a code, or "code asked".
        if account.secondFactor != .required {
            try await recordSignIn(of: account.user, target: attempted, origin: origin)
        }
        return account
    }

    /// A sign-in that is complete: the account's last sign-in, and `sign_in.succeeded`.
    func recordSignIn(of user: User, target: String, origin: RequestOrigin) async throws {
        try await users.recordSignIn(userID: user.id)
        await audit.record(.signInSucceeded, actor: user.id, targetUser: user.id, target: target, origin: origin)
    }

    /// A sign-in whose password or provider was right, now waiting for the account's code: no
    /// actor (nothing shows it is the owner yet).
    func recordCodeAsked(of user: User, target: String, origin: RequestOrigin) async {
        await audit.record(.signInCodeAsked, actor: nil, targetUser: user.id, target: target, origin: origin)
    }

    /// The account's ways in (password, linked providers, passkeys).
    public func waysIn(of user: User) async throws -> WaysIn {
        try await users.waysIn(userID: user.id) ?? WaysIn(password: false, identities: 0, passkeys: 0, address: false)
    }

    /// Whether the user has a password (an account made through a provider may not, yet).
    public func hasPassword(_ user: User) async throws -> Bool {
        try await users.credentials(forID: user.id)?.passwordHash != nil
    }

    /// Checks the current password, stores the new one, ends the user's other browser sessions
    /// and revokes their API tokens. Returns the credentials with the new hash. A wrong current
    /// password is `InvalidFields` with `.currentPassword: .incorrect`, and counts toward the
    /// account's lockout.
    ///
    /// An account made through a provider sets its first password without a current one, but only
    /// with a sign-in from the last ten minutes (`confirmedAt`, see `StepUp`); if it has neither
    /// email nor username, it chooses a `username` too (a password needs something to be typed
    /// next to). The change is stored only while the browser session (`keepingSession`) or the
    /// app's token (`askedWithToken`) that asks for it lasts.
    @discardableResult
    public func changePassword(
        of user: User,
        current: String,
        new: String,
        confirmation: String?,
        username: String? = nil,
        keepingSession sessionID: Int64?,
        askedWithToken tokenID: Int64? = nil,
        confirmedAt: Date,
        origin: RequestOrigin
    ) async throws -> UserCredentials {
        guard let credentials = try await users.credentials(forID: user.id) else { throw AccountError.invalidCredentials }
        if credentials.passwordHash == nil { try StepUp.require(confirmedAt: confirmedAt) }
        var problems = InvalidFields()
        if let problem = PasswordPolicy.problem(with: new) {
            problems[.newPassword] = problem
        } else if let confirmation, confirmation != new {
            problems[.newPasswordConfirmation] = .confirmationMismatch
        }
        if let currentHash = credentials.passwordHash {
            guard try await passwordCheck.check(current, against: currentHash, of: credentials, origin: origin) else {
                problems[.currentPassword] = .incorrect
                throw problems
            }
        }
        var newUsername: String?
        if credentials.user.email == nil, credentials.user.username == nil {
            let chosen = (username ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
            if chosen.isEmpty {
                problems[.username] = .requiredWithoutEmail
            } else if let problem = Username.problem(with: chosen) {
                problems[.username] = problem
            } else {
                newUsername = chosen
            }
        }
        guard problems.isEmpty else { throw problems }
        let hash = try await hasher.hash(new)
        do {
            let replaced = try await users.replacePassword(
                userID: user.id, replacing: credentials.passwordHash, with: hash, username: newUsername, keepingSession: sessionID,
                askedWithToken: tokenID, notifying: emails.pending(.passwordChanged, to: credentials.user)
            )
            // The password proved above is not the account's any more (a reset landed meanwhile).
            guard replaced else { throw InvalidFields([.currentPassword: .incorrect]) }
        } catch UniqueValueTaken.username {
            problems[.username] = .taken
            throw problems
        }
        emails.nudge()
        await audit.record(.passwordChanged, actor: user.id, targetUser: user.id, target: user.handle, origin: origin)
        // Changed by someone signed in already (or holding a reset link, which never signs in).
        return UserCredentials(user: user, passwordHash: hash, secondFactor: .satisfied)
    }

    /// Starts a browser session and returns the token for its cookie. A fresh token every time:
    /// a session id is never taken from the client, which rules out session fixation. Throws
    /// `invalidCredentials` if the password changed or the user was disabled since it was checked.
    func startSession(for credentials: UserCredentials, userAgent: String, ipAddress: String) async throws
        -> String
    {
        guard credentials.secondFactor.allowsSignIn else { throw SecondFactorError.codeRequired }
        let token = RandomToken.urlSafe()
        let started = try await sessions.create(
            userID: credentials.user.id,
            passwordHash: credentials.passwordHash,
            tokenHash: RandomToken.hash(token),
            userAgent: userAgent,
            ipAddress: ipAddress,
            expiresAt: Date.now.addingTimeInterval(TimeInterval(sessionLifetime.components.seconds)),
            confirmed: credentials.secondFactor.confirmsNow
        )
        guard started else { throw AccountError.invalidCredentials }
        await noteSignIn(of: credentials.user, userAgent: userAgent, ipAddress: ipAddress)
        return token
    }

    /// The session a cookie token belongs to, if it is live. Records activity at most once a minute.
    /// Every signed-in request starts here: from memory when `access` has it, else from the
    /// database, giving up (`DeadlineExceeded`) if it does not answer in time rather than holding
    /// the request until it comes back.
    public func session(forToken token: String) async throws -> ActiveSession? {
        let sessions = self.sessions
        let hash = RandomToken.hash(token)
        var session = access.session(tokenHash: hash)
        if session == nil {
            let ticket = access.ticket()
            guard let found = try await sessions.findActive(tokenHash: hash) else {
                return nil
            }
            access.keep(found, tokenHash: hash, ticket: ticket)
            session = found
        }
        guard let session else { return nil }
        if session.lastSeenAt.timeIntervalSinceNow < -60 {
            try await sessions.touch(sessionID: session.sessionID)
            access.noteSeen(sessionTokenHash: hash, at: .now)
        }
        return session
    }

    /// Issues an API token (≥ 256 random bits; only its hash is stored) through `appKey`.
    func issueToken(for credentials: UserCredentials, appKey: String, origin: RequestOrigin) async throws
        -> IssuedToken
    {
        guard credentials.secondFactor.allowsSignIn else { throw SecondFactorError.codeRequired }
        let token = RandomToken.urlSafe()
        let expiresAt = Date.now.addingTimeInterval(TimeInterval(tokenLifetime.components.seconds))
        let issued = try await tokens.create(
            userID: credentials.user.id,
            passwordHash: credentials.passwordHash,
            tokenHash: RandomToken.hash(token),
            appKeyName: appKey,
            expiresAt: expiresAt
        )
        guard issued else { throw AccountError.invalidCredentials }
        await noteSignIn(of: credentials.user, userAgent: origin.userAgent, ipAddress: origin.ipAddress)
        await audit.record(.tokenIssued, actor: credentials.user.id, targetUser: credentials.user.id, target: "app key \(appKey)", origin: origin)
        return IssuedToken(token: token, expiresAt: expiresAt)
    }

    /// The live token a request presents, if any. Records use at most once a minute.
    public func token(_ token: String) async throws -> AuthenticatedToken? {
        let tokens = self.tokens
        let hash = RandomToken.hash(token)
        var found = access.token(tokenHash: hash)
        if found == nil {
            let ticket = access.ticket()
            guard let row = try await tokens.findActive(tokenHash: hash) else {
                return nil
            }
            access.keep(row, tokenHash: hash, ticket: ticket)
            found = row
        }
        guard let found else { return nil }
        if found.lastUsedAt.timeIntervalSinceNow < -60 {
            try await tokens.touch(tokenID: found.tokenID)
            access.noteUsed(tokenHash: hash, at: .now)
        }
        return found
    }

    public func revokeToken(_ token: AuthenticatedToken, origin: RequestOrigin) async throws {
        try await tokens.revoke(tokenID: token.tokenID)
        await audit.record(.tokenRevoked, actor: token.user.id, targetUser: token.user.id, target: "app key \(token.appKeyName)", origin: origin)
    }

    /// Signs a browser out.
    public func signOut(_ session: ActiveSession, origin: RequestOrigin) async throws {
        try await sessions.delete(sessionID: session.sessionID)
        await audit.record(.signedOut, actor: session.user.id, targetUser: session.user.id, target: session.user.handle, origin: origin)
    }

    /// Ends a session without it being a sign-out (a new sign-in in the same browser replaces it).
    func endSession(_ sessionID: Int64) async throws {
        try await sessions.delete(sessionID: sessionID)
    }

    public func listSessions(of user: User) async throws -> [SessionSummary] {
        try await sessions.list(userID: user.id)
    }

    @discardableResult
    public func endOtherSessions(of user: User, keeping sessionID: Int64, origin: RequestOrigin) async throws -> Int {
        let ended = try await sessions.deleteAll(userID: user.id, keeping: sessionID)
        await audit.record(.otherSessionsEnded, actor: user.id, targetUser: user.id, target: "\(ended) session(s)", origin: origin)
        return ended
    }

    /// Mails the owner when the account signs in from a kind of browser or app and a network
    /// (an IPv4 /24, an IPv6 /48) it has not used before. A failure is logged: the sign-in is done.
    private func noteSignIn(of user: User, userAgent: String, ipAddress: String) async {
        let family = UserAgentFamily(userAgent)
        let network = Self.network(of: ipAddress)
        do {
            let fingerprint = Array(SHA256.hash(data: Data("\(family.browser ?? "")\n\(family.system ?? "")\n\(network)".utf8)))
            let notice = emails.pending(.newSignIn(userAgent: String(userAgent.prefix(256)), network: network), to: user)
            if try await users.recordSignInFrom(userID: user.id, fingerprint: fingerprint, notifying: notice) { emails.nudge() }
        } catch {
            emails.logger.error("could not record a sign-in's browser", metadata: ["error": "\(String(reflecting: error))"])
        }
    }

    /// The network an address belongs to, as a person would recognise it changing (home, office,
    /// phone): an IPv4 /24, an IPv6 /48.
    static func network(of address: String) -> String {
        guard let parsed = IPAddress(address)?.unmapped else { return address }
        return parsed.isIPv6 ? "\(parsed.masked(to: 48))/48" : "\(parsed.masked(to: 24))/24"
    }
}


/// A new API token, shown to the client once.
public struct IssuedToken: Sendable {
    public let token: String
    public let expiresAt: Date
}
