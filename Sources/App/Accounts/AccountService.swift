import Foundation
import Logging

/// Errors of account operations that the person can act on.
public enum AccountError: Error, Equatable {
    case emailTaken
    case usernameTaken
    case invalidCredentials
}

/// Field-by-field validation messages, keyed by form field name.
public struct FieldErrors: Error, Sendable, Equatable {
    public var messages: [String: String] = [:]
    public var isEmpty: Bool { messages.isEmpty }
    public subscript(field: String) -> String? {
        get { messages[field] }
        set { messages[field] = newValue }
    }
}

/// What someone types into a sign-up form (web) or sends to `/api/signup`.
public struct SignUpRequest: Sendable {
    public var fullName: String
    public var email: String
    /// Optional (nil when left empty).
    public var username: String?
    public var password: String
    /// nil when the client has no confirmation field (the iOS app).
    public var passwordConfirmation: String?
    /// Seed 004's password registration names a username only; everywhere else an email is required.
    public var requiresEmail = true

    public init(fullName: String, email: String, username: String? = nil, password: String, passwordConfirmation: String?) {
        self.fullName = fullName.trimmingCharacters(in: .whitespacesAndNewlines)
        self.email = email.trimmingCharacters(in: .whitespacesAndNewlines)
        let username = username?.trimmingCharacters(in: .whitespacesAndNewlines) ?? ""
        self.username = username.isEmpty ? nil : username
        self.password = password
        self.passwordConfirmation = passwordConfirmation
    }

    func validate() -> FieldErrors {
        var errors = FieldErrors()
        if fullName.isEmpty {
            errors["fullName"] = "Enter your name."
        } else if fullName.unicodeScalars.count > 100 {  // as PostgreSQL's length() counts
            errors["fullName"] = "Use at most 100 characters."
        } else if fullName.containsControlCharacters {
            errors["fullName"] = "Use letters, spaces and punctuation only."
        }
        if email.isEmpty, !requiresEmail, username != nil {
            // A username-only account.
        } else if !EmailAddress.isPlausible(email) {
            errors["email"] = "Enter an email address like name@example.com."
        }
        if let username, let problem = Username.problem(with: username) {
            errors["username"] = problem
        }
        if let problem = PasswordPolicy.problem(with: password) {
            errors["password"] = problem
        } else if let confirmation = passwordConfirmation, confirmation != password {
            errors["passwordConfirmation"] = "The two passwords do not match."
        }
        return errors
    }
}

/// Seed 003's rule: 5–30 characters of `[A-Za-z0-9_]`. No `@`, so a sign-in field can hold either
/// an email or a username without ambiguity.
enum Username {
    static func problem(with username: String) -> String? {
        guard (5...30).contains(username.utf8.count) else { return "Use 5 to 30 characters." }
        let allowed = username.utf8.allSatisfy { byte in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "_")
        }
        return allowed ? nil : "Use only letters, digits and underscores (_)."
    }
}

enum EmailAddress {
    /// A light check (one `@`, a dotted domain, no spaces, ≤ 254 bytes): the real test of an
    /// address is mail reaching it, not a regular expression.
    static func isPlausible(_ email: String) -> Bool {
        guard email.utf8.count <= 254, !email.containsControlCharacters,
            !email.unicodeScalars.contains(where: { $0.properties.isWhitespace })
        else {
            return false
        }
        let parts = email.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, parts[0].count <= 64 else { return false }
        let domain = parts[1]
        let labels = domain.split(separator: ".", omittingEmptySubsequences: false)
        return labels.count >= 2 && labels.allSatisfy { !$0.isEmpty && !$0.hasPrefix("-") && !$0.hasSuffix("-") }
    }
}

extension String {
    /// C0 controls (NUL included) and DEL: never part of a name, an email or a password, and
    /// NUL would be cut off by bcrypt's C string or refused by PostgreSQL.
    var containsControlCharacters: Bool {
        unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F }
    }
}

/// Account rules shared by the browser pages and the API: signing up, checking a password,
/// changing it, and starting or ending browser sessions.
public struct AccountService: Sendable {
    let users: any UserRepository
    let sessions: any WebSessionRepository
    let tokens: any APITokenRepository
    let hasher: PasswordHasher
    let audit: any AuditLog
    let protection: BruteForceProtection
    let sessionLifetime: Duration
    let tokenLifetime: Duration

    public init(
        users: any UserRepository,
        sessions: any WebSessionRepository,
        tokens: any APITokenRepository,
        hasher: PasswordHasher,
        audit: any AuditLog,
        protection: BruteForceProtection,
        sessionLifetime: Duration,
        tokenLifetime: Duration
    ) {
        self.protection = protection
        self.users = users
        self.sessions = sessions
        self.tokens = tokens
        self.hasher = hasher
        self.audit = audit
        self.sessionLifetime = sessionLifetime
        self.tokenLifetime = tokenLifetime
    }

    /// Creates the account. Throws `FieldErrors` for invalid input, including a taken email
    /// (decided by the unique index, not by a read beforehand).
    public func signUp(_ request: SignUpRequest, origin: RequestOrigin) async throws -> UserCredentials {
        let credentials = try await createAccount(request, role: .user)
        await audit.record(.signedUp, actor: credentials.user.id, targetUser: credentials.user.id, target: credentials.user.handle, origin: origin)
        return credentials
    }

    /// Validates and creates an account (the caller records how it came to be).
    func createAccount(_ request: SignUpRequest, role: User.Role) async throws -> UserCredentials {
        var errors = request.validate()
        guard errors.isEmpty else { throw errors }
        let hash = try await hasher.hash(request.password)
        do {
            let user = try await users.create(
                NewUser(email: request.email.isEmpty ? nil : request.email, username: request.username, fullName: request.fullName, passwordHash: hash, role: role)
            )
            return UserCredentials(user: user, passwordHash: hash)
        } catch AccountError.emailTaken {
            errors["email"] = "An account with this email already exists. Sign in instead?"
            throw errors
        } catch AccountError.usernameTaken {
            errors["username"] = "This username is taken. Choose another."
            throw errors
        }
    }

    /// The user whose email or username (`login`) and password these are, with the hash that was
    /// verified (a session is only started while it is still current). Unknown login, wrong
    /// password, an account without a password and a disabled account all throw the same
    /// `AccountError.invalidCredentials`, after the same bcrypt work.
    ///
    /// An account (existing or not: lockout must not reveal which) with too many recent failures
    /// is refused with a 429 before its password is even checked. Lockout counts per account
    /// email, whichever of email or username was typed, so alternating them gains nothing.
    public func authenticate(login: String, password: String, origin: RequestOrigin) async throws -> UserCredentials {
        let login = login.trimmingCharacters(in: .whitespacesAndNewlines)
        let attempted = login.containsControlCharacters ? "(unprintable)" : login
        let account = try await lookUp(login: login)
        do {
            try await protection.claimAttempt(account: account?.user.email ?? login)
        } catch let error as AppError {
            await audit.record(.signInLocked, actor: nil, targetUser: account?.user.id, target: attempted, origin: origin)
            throw error
        }
        do {
            let credentials = try await verify(account, password: password, attempted: attempted, origin: origin)
            try await protection.clearFailures(account: account?.user.email ?? login)
            return credentials
        } catch AccountError.invalidCredentials {
            AppMetrics.signInFailed()
            throw AccountError.invalidCredentials
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
        try await users.recordSignIn(userID: account.user.id)
        await audit.record(.signInSucceeded, actor: account.user.id, targetUser: account.user.id, target: attempted, origin: origin)
        return account
    }

    /// Whether the user has a password (an account made through a provider may not, yet).
    public func hasPassword(_ user: User) async throws -> Bool {
        try await users.credentials(forID: user.id)?.passwordHash != nil
    }

    /// Checks the current password, stores the new one, ends the user's other browser sessions
    /// and revokes their API tokens. Returns the credentials with the new hash.
    ///
    /// An account made through a provider sets its first password without a current one; if it
    /// has neither email nor username, it chooses a `username` too (a password needs something
    /// to be typed next to).
    @discardableResult
    public func changePassword(
        of user: User,
        current: String,
        new: String,
        confirmation: String?,
        username: String? = nil,
        keepingSession sessionID: Int64?,
        origin: RequestOrigin
    ) async throws -> UserCredentials {
        var errors = FieldErrors()
        if let problem = PasswordPolicy.problem(with: new) {
            errors["newPassword"] = problem
        } else if let confirmation, confirmation != new {
            errors["newPasswordConfirmation"] = "The two passwords do not match."
        }
        guard let credentials = try await users.credentials(forID: user.id) else { throw AccountError.invalidCredentials }
        // An account made through a provider sets its first password without one.
        if let currentHash = credentials.passwordHash, try await !hasher.verify(current, against: currentHash) {
            errors["currentPassword"] = "This is not your current password."
            throw errors
        }
        var newUsername: String?
        if credentials.user.email == nil, credentials.user.username == nil {
            let chosen = (username ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
            if chosen.isEmpty {
                errors["username"] = "Choose a username: your account has no email, so it is what you will sign in with."
            } else if let problem = Username.problem(with: chosen) {
                errors["username"] = problem
            } else {
                newUsername = chosen
            }
        }
        guard errors.isEmpty else { throw errors }
        let hash = try await hasher.hash(new)
        do {
            try await users.replacePassword(userID: user.id, passwordHash: hash, username: newUsername, keepingSession: sessionID)
        } catch AccountError.usernameTaken {
            errors["username"] = "This username is taken. Choose another."
            throw errors
        }
        await audit.record(.passwordChanged, actor: user.id, targetUser: user.id, target: user.handle, origin: origin)
        return UserCredentials(user: user, passwordHash: hash)
    }

    /// Starts a browser session and returns the token for its cookie. A fresh token every time:
    /// a session id is never taken from the client, which rules out session fixation. Throws
    /// `invalidCredentials` if the password changed or the user was disabled since it was checked.
    public func startSession(for credentials: UserCredentials, userAgent: String, ipAddress: String) async throws
        -> String
    {
        let token = RandomToken.urlSafe()
        let started = try await sessions.create(
            userID: credentials.user.id,
            passwordHash: credentials.passwordHash,
            tokenHash: RandomToken.hash(token),
            userAgent: userAgent,
            ipAddress: ipAddress,
            expiresAt: Date.now.addingTimeInterval(TimeInterval(sessionLifetime.components.seconds))
        )
        guard started else { throw AccountError.invalidCredentials }
        return token
    }

    /// The session a cookie token belongs to, if it is live. Records activity at most once a minute.
    /// Every signed-in request starts here, so it gives up (503) if the database does not answer
    /// in time rather than holding the request until it comes back.
    public func session(forToken token: String) async throws -> ActiveSession? {
        let sessions = self.sessions
        let hash = RandomToken.hash(token)
        guard let session = try await withDeadline(databaseWaitLimit, { try await sessions.findActive(tokenHash: hash) }) else {
            return nil
        }
        if session.lastSeenAt.timeIntervalSinceNow < -60 {
            try await sessions.touch(sessionID: session.sessionID)
        }
        return session
    }

    /// Issues an API token (≥ 256 random bits; only its hash is stored) through `appKey`.
    public func issueToken(for credentials: UserCredentials, appKey: String, origin: RequestOrigin) async throws
        -> (token: String, expiresAt: Date)
    {
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
        await audit.record(.tokenIssued, actor: credentials.user.id, targetUser: credentials.user.id, target: "app key \(appKey)", origin: origin)
        return (token, expiresAt)
    }

    /// The live token a request presents, if any. Records use at most once a minute.
    public func token(_ token: String) async throws -> AuthenticatedToken? {
        let tokens = self.tokens
        let hash = RandomToken.hash(token)
        guard let found = try await withDeadline(databaseWaitLimit, { try await tokens.findActive(tokenHash: hash) }) else {
            return nil
        }
        if found.lastUsedAt.timeIntervalSinceNow < -60 {
            try await tokens.touch(tokenID: found.tokenID)
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
    public func endSession(_ sessionID: Int64) async throws {
        try await sessions.delete(sessionID: sessionID)
    }

    public func listSessions(of user: User) async throws -> [SessionSummary] {
        try await sessions.list(userID: user.id)
    }

    @discardableResult
    public func endOtherSessions(of user: User, keeping sessionID: Int64) async throws -> Int {
        try await sessions.deleteAll(userID: user.id, keeping: sessionID)
    }
}
