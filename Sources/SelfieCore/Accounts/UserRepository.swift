import Foundation
import Logging
import PostgresNIO

/// What a new account is made of. `passwordHash` is nil for an account made through a provider.
public struct NewUser: Sendable {
    public var email: String?
    public var emailVerified = false
    public var username: String?
    public var fullName: String
    public var passwordHash: String?
    public var role: User.Role = .user
    /// The language the browser asked for when the account was made: its first mail (the address
    /// confirmation) is already written in it. nil when unknown (kept later, `setPreferences`).
    public var language: String? = nil

    /// The one INSERT of a user, yielding its `UserCredentials` row (alone, or inside the
    /// transaction that also links a provider identity).
    var insertQuery: PostgresQuery {
        """
        WITH u AS (
            INSERT INTO users (email, email_verified, username, full_name, password_hash, role, language)
            VALUES (\(email), \(emailVerified), \(username), \(fullName), \(passwordHash), \(role.rawValue), \(language))
            RETURNING *
        )
        SELECT \(unescaped: UserCredentials.columns) FROM u
        """
    }
}

extension UserCredentials {
    /// `User.columns`, the hash and whether a confirmed authenticator app guards the account,
    /// from `users` aliased `u`.
    static let columns = """
        \(User.columns), u.password_hash, \
        EXISTS (SELECT 1 FROM totp_factors t WHERE t.user_id = u.id AND t.confirmed_at IS NOT NULL)
        """

    /// The first row of a query that selected `columns`.
    static func first(in rows: PostgresRowSequence) async throws -> UserCredentials? {
        for try await (id, email, username, fullName, role, disabled, createdAt, verified, language, timeZone, theme, hash, hasTOTP) in rows.decode(
            (Int64, String?, String?, String, String, Bool, Date, Bool, String?, String?, String?, String?, Bool).self
        ) {
            return UserCredentials(
                user: User(row: (id, email, username, fullName, role, disabled, createdAt, verified, language, timeZone, theme)),
                passwordHash: hash,
                secondFactor: hasTOTP ? .required : .notEnrolled
            )
        }
        return nil
    }
}

/// A unique index refused a new or changed user: another account has this value.
enum UniqueValueTaken: Error {
    case email
    case username
}

/// Storage of users.
public struct UserRepository: Sendable {
    let client: PostgresClient
    let scopedLogger: ScopedLogger
    /// The request's logger while serving one (its id on every line), else the one given at start.
    var logger: Logger { scopedLogger.current }

    /// Told of every change this repository makes to a way in, once it is made.
    let access: AccessCache

    public init(client: PostgresClient, access: AccessCache, logger: Logger) {
        self.client = client
        self.access = access
        self.scopedLogger = ScopedLogger(logger)
    }

    /// Inserts a user; throws `UniqueValueTaken` when a unique index
    /// refuses it.
    public func create(_ user: NewUser) async throws -> User {
        do {
            guard let credentials = try await UserCredentials.first(in: client.query(user.insertQuery, logger: logger)) else {
                throw UniqueValueTaken.email  // unreachable: INSERT … RETURNING yields the row
            }
            return credentials.user
        } catch let error as PSQLError where error.isUniqueViolation(constraint: "users_email_key") {
            throw UniqueValueTaken.email
        } catch let error as PSQLError where error.isUniqueViolation(constraint: "users_username_key") {
            throw UniqueValueTaken.username
        }
    }

    public func find(id: Int64) async throws -> User? {
        try await credentials(forID: id)?.user
    }

    public func credentials(forEmail email: String) async throws -> UserCredentials? {
        try await fetchOne("SELECT \(unescaped: UserCredentials.columns) FROM users u WHERE lower(u.email) = lower(\(email))")
    }

    public func credentials(forUsername username: String) async throws -> UserCredentials? {
        try await fetchOne("SELECT \(unescaped: UserCredentials.columns) FROM users u WHERE lower(u.username) = lower(\(username))")
    }

    public func credentials(forID id: Int64) async throws -> UserCredentials? {
        try await fetchOne("SELECT \(unescaped: UserCredentials.columns) FROM users u WHERE u.id = \(id)")
    }

    /// The account with this email, if its address is verified (and only then).
    public func verifiedEmailOwner(_ email: String) async throws -> UserCredentials? {
        try await fetchOne(
            "SELECT \(unescaped: UserCredentials.columns) FROM users u WHERE lower(u.email) = lower(\(email)) AND u.email_verified"
        )
    }

    /// Stores a new password hash (and, when given, the username chosen with a first password)
    /// in place of `previousHash` (the one the person proved, nil for a first password) and, in
    /// the same transaction, ends every browser session of the user but `keepingSession` and
    /// revokes every API token: nothing signed in with the old password outlives the change. With
    /// `keepingSession` (a browser's change) or `askedWithToken` (an app's), only while that
    /// session or token lasts (`AccountError.confirmItsYou` once it ended).
    /// False, changing nothing, when the hash is no longer `previousHash` (a reset or another
    /// change landed meanwhile). Throws `UniqueValueTaken.username` when the username's unique
    /// index refuses it.
    public func replacePassword(
        userID: Int64, replacing previousHash: String?, with passwordHash: String, username: String?, keepingSession: Int64?,
        askedWithToken tokenID: Int64? = nil, notifying notice: PendingNotice? = nil
    ) async throws -> Bool {
        defer { access.forget(userID: userID) }
        do {
            return try await client.transaction(logger: logger) { connection in
                if let keepingSession { try await UserAccess.requireSession(keepingSession, of: userID, on: connection, logger: logger) }
                if let tokenID { try await UserAccess.requireToken(tokenID, of: userID, on: connection, logger: logger) }
                let replaced = try await connection.query(
                    """
                    UPDATE users SET password_hash = \(passwordHash), username = coalesce(\(username), username), updated_at = now()
                    WHERE id = \(userID) AND password_hash IS NOT DISTINCT FROM \(previousHash)
                    RETURNING id
                    """,
                    logger: logger
                ).collect().count == 1
                guard replaced else { return false }
                try await UserAccess.revokeAll(userID: userID, keepingSession: keepingSession, on: connection, logger: logger)
                // Reset links die with any change of password, and so do address changes asked
                // for before it (by someone who may have known the old password).
                try await UserAccess.killLinks([.resetPassword, .changeEmail], userID: userID, on: connection, logger: logger)
                try await notice?.queue(on: connection, logger: logger)
                return true
            }
        } catch let error as TransactionError {
            if let psql = error.closureError as? PSQLError, psql.isUniqueViolation(constraint: "users_username_key") {
                throw UniqueValueTaken.username
            }
            if let refusal = error.closureError as? AccountError { throw refusal }
            throw error
        }
    }

    /// Records a sign-in from `fingerprint` (a hash of the kind of browser or app and the network,
    /// in `known_sign_ins`); true when the account has not used it before but
    /// has signed in before (its very first sign-in is no news).
    /// `notice` (the owner's "new sign-in" mail) is queued with the record when it is news.
    func recordSignInFrom(userID: Int64, fingerprint: [UInt8], notifying notice: PendingNotice?) async throws -> Bool {
        let logger = self.logger
        return try await client.transaction(logger: logger) { connection in
            let news = try await Self.recordSignInFrom(userID: userID, fingerprint: fingerprint, on: connection, logger: logger)
            if news { try await notice?.queue(on: connection, logger: logger) }
            return news
        }
    }

    private static func recordSignInFrom(userID: Int64, fingerprint: [UInt8], on connection: PostgresConnection, logger: Logger) async throws -> Bool {
        let rows = try await connection.query(
            """
            WITH prior AS (SELECT count(*)::int AS n FROM known_sign_ins WHERE user_id = \(userID)),
            seen AS (
                INSERT INTO known_sign_ins (user_id, fingerprint) VALUES (\(userID), \(ByteBuffer(bytes: fingerprint)))
                ON CONFLICT (user_id, fingerprint) DO UPDATE SET last_seen_at = now()
                RETURNING (xmax = 0) AS inserted
            )
            SELECT seen.inserted, prior.n FROM seen, prior
            """,
            logger: logger
        )
        for try await (inserted, prior) in rows.decode((Bool, Int).self) { return inserted && prior > 0 }
        return false
    }

    public func recordSignIn(userID: Int64) async throws {
        try await client.query("UPDATE users SET last_signed_in_at = now() WHERE id = \(userID)", logger: logger)
    }

    /// Stores what the account is shown in. Each value given replaces the stored one; nil leaves
    /// it. With `onlyUnset`, values are written only where nothing is stored yet (a browser's
    /// language and zone are taken once, never over the account's own choice).
    public func setPreferences(userID: Int64, _ preferences: AccountPreferences, onlyUnset: Bool = false) async throws {
        defer { access.forget(userID: userID) }
        let (language, timeZone, theme) = (preferences.language, preferences.timeZone, preferences.theme)
        if onlyUnset {
            try await client.query(
                """
                UPDATE users SET language = coalesce(language, \(language)), time_zone = coalesce(time_zone, \(timeZone)),
                    theme = coalesce(theme, \(theme))
                WHERE id = \(userID)
                """,
                logger: logger
            )
        } else {
            try await client.query(
                """
                UPDATE users SET language = coalesce(\(language), language), time_zone = coalesce(\(timeZone), time_zone),
                    theme = coalesce(\(theme), theme)
                WHERE id = \(userID)
                """,
                logger: logger
            )
        }
    }

    /// Marks the address confirmed — if it is still the account's address and the account is
    /// not disabled (a disabled account proves nothing until an admin enables it again).
    public func markEmailVerified(userID: Int64, email: String) async throws -> Bool {
        defer { access.forget(userID: userID) }
        return try await client.query(
            "UPDATE users SET email_verified = true WHERE id = \(userID) AND lower(email) = lower(\(email)) AND NOT disabled RETURNING id",
            logger: logger
        ).collect().count == 1
    }

    /// Moves the account to a new (confirmed) address and kills every other mailed link (resets and
    /// confirmations went to the old address); throws `UniqueValueTaken.email` when another
    /// account has it by now.
    public func changeEmail(userID: Int64, to email: String, notifying notice: PendingNotice? = nil) async throws {
        defer { access.forget(userID: userID) }
        do {
            try await client.transaction(logger: logger) { connection in
                try await connection.query(
                    "UPDATE users SET email = \(email), email_verified = true, updated_at = now() WHERE id = \(userID)",
                    logger: logger
                )
                try await UserAccess.killLinks([.verifyEmail, .resetPassword, .changeEmail], userID: userID, on: connection, logger: logger)
                try await notice?.queue(on: connection, logger: logger)
            }
        } catch let error as TransactionError {
            if let psql = error.closureError as? PSQLError, psql.isUniqueViolation(constraint: "users_email_key") {
                throw UniqueValueTaken.email
            }
            throw error
        }
    }

    /// The account's ways in; nil when there is no such user.
    public func waysIn(userID: Int64) async throws -> WaysIn? {
        let logger = self.logger
        return try await client.withConnection { connection in
            try await UserAccess.waysIn(userID: userID, on: connection, logger: logger)
        }
    }

    /// A password set through a reset link mailed to `email`, if that is still the account's
    /// address (else false, and nothing changes). The reset proves the address: it is marked
    /// confirmed, and if it was not confirmed before, whatever was added to the account without
    /// that proof is removed: its other ways in (passkeys, the authenticator app, linked
    /// providers), its share links (whoever made them would see what the owner adds) and the
    /// devices it knows (a sign-in from one of them would not be mailed as new). Every
    /// session, token, remembered browser and mailed link ends, in one transaction.
    public func resetPassword(userID: Int64, email: String, passwordHash: String, notifying notice: PendingNotice? = nil) async throws -> Bool {
        defer { access.forget(userID: userID) }
        return try await client.transaction(logger: logger) { connection in
            let rows = try await connection.query(
                """
                UPDATE users u SET password_hash = \(passwordHash), email_verified = true, updated_at = now()
                FROM (SELECT id, email_verified FROM users WHERE id = \(userID) FOR UPDATE) before
                WHERE u.id = before.id AND lower(u.email) = lower(\(email))
                RETURNING before.email_verified
                """,
                logger: logger
            )
            var wasConfirmed: Bool?
            for try await value in rows.decode(Bool.self) { wasConfirmed = value }
            guard let wasConfirmed else { return false }
            if !wasConfirmed {
                for table in ["passkeys", "totp_factors", "recovery_codes", "user_identities", "share_links", "known_sign_ins"] {
                    try await connection.query("DELETE FROM \(unescaped: table) WHERE user_id = \(userID)", logger: logger)
                }
            }
            try await UserAccess.revokeAll(userID: userID, on: connection, logger: logger)
            try await UserAccess.killLinks([.verifyEmail, .resetPassword, .changeEmail], userID: userID, on: connection, logger: logger)
            try await notice?.queue(on: connection, logger: logger)
            return true
        }
    }

    private func fetchOne(_ query: PostgresQuery) async throws -> UserCredentials? {
        try await UserCredentials.first(in: client.query(query, logger: logger))
    }
}

extension User {
    /// A user read through `columns`, starting at column `first` of `row`.
    init(_ row: PostgresRandomAccessRow, from first: Int) throws {
        self.init(
            row: (
                try row.column(first), try row.column(first + 1), try row.column(first + 2), try row.column(first + 3),
                try row.column(first + 4), try row.column(first + 5), try row.column(first + 6), try row.column(first + 7),
                try row.column(first + 8), try row.column(first + 9), try row.column(first + 10)
            )
        )
    }
}
