import Foundation
import Logging
import PostgresNIO

/// Numbers on the admin dashboard.
public struct DashboardCounts: Sendable {
    public let users: Int
    public let activeSessions: Int
    public let photos: Int
    public let bytesStored: Int64
    public let signInsLastDay: Int
    public let failedSignInsLastDay: Int
}

/// A user as the admin pages list them.
public struct UserSummary: Sendable {
    public let user: User
    public let photoCount: Int
    public let bytesStored: Int64
    public let lastSignedInAt: Date?
    public let quota: QuotaSetting
}

/// An API token as the admin user page lists it.
public struct TokenSummary: Sendable {
    public let appKey: String
    public let createdAt: Date
    public let lastUsedAt: Date
    public let expiresAt: Date
}

public enum UserSort: String, Sendable {
    case newest
    case oldest
    /// The most bytes stored first.
    case storage
}

/// Refusals of admin actions.
public enum AdminError: Error, Equatable, Sendable {
    /// The action would leave nobody to run the service.
    case lastAdmin
    /// The one acting is no longer an enabled admin (another admin demoted or disabled them while
    /// their request was on its way).
    case notAnAdmin
    case noSuchUser
    /// An app key name must be 3 to 64 of `A–Z a–z 0–9 . _ -`.
    case invalidKeyName
    /// The name of the key from the environment.
    case keyNameReserved
    case keyNameTaken
    /// No active app key of that name (the environment's key cannot be revoked).
    case noSuchKey
    /// Only an account whose address is confirmed (or that has none) can be made an admin: anyone
    /// can sign up with an address that is not theirs, and would be promoted by it.
    case unconfirmedAddress
    /// A quota must be a positive number of bytes (or the default, or no limit).
    case invalidQuota
}

/// The queries and changes behind the admin pages and the `selfie admin` commands.
public struct AdminRepository: Sendable {
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

    public func dashboard() async throws -> DashboardCounts {
        let rows = try await client.query(
            """
            SELECT
                (SELECT count(*)::int FROM users),
                (SELECT count(*)::int FROM web_sessions WHERE expires_at > now()),
                (SELECT count(*)::int FROM photos),
                (SELECT coalesce(sum(byte_size), 0)::bigint FROM photos) + (SELECT coalesce(sum(byte_size), 0)::bigint FROM photo_renditions),
                (SELECT count(*)::int FROM audit_events WHERE event = 'sign_in.succeeded' AND occurred_at > now() - interval '24 hours'),
                (SELECT count(*)::int FROM audit_events WHERE event IN ('sign_in.failed', 'sign_in.locked') AND occurred_at > now() - interval '24 hours')
            """,
            logger: logger
        )
        for try await (users, sessions, photos, bytes, signIns, failed) in rows.decode((Int, Int, Int, Int64, Int, Int).self) {
            return DashboardCounts(
                users: users,
                activeSessions: sessions,
                photos: photos,
                bytesStored: bytes,
                signInsLastDay: signIns,
                failedSignInsLastDay: failed
            )
        }
        throw AdminError.noSuchUser  // unreachable: the query always yields one row
    }

    private static let summaryColumns = """
        \(User.columns), u.last_signed_in_at,
        (SELECT count(*)::int FROM photos p WHERE p.user_id = u.id),
        (SELECT coalesce(sum(byte_size), 0)::bigint FROM photos p WHERE p.user_id = u.id)
            + (SELECT coalesce(sum(r.byte_size), 0)::bigint FROM photo_renditions r JOIN photos p ON p.id = r.photo_id WHERE p.user_id = u.id)
            AS stored_bytes,
        u.quota_bytes
        """

    /// One page of users matching `search` (any part of the email or name, any case).
    public func users(search: String, sort: UserSort, offset: Int, limit: Int) async throws -> [UserSummary] {
        // LIKE's wildcards in the search text are matched literally.
        let pattern = "%" + search.lowercased()
            .replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "%", with: "\\%")
            .replacingOccurrences(of: "_", with: "\\_") + "%"
        let order = switch sort {
        case .newest: "u.created_at DESC, u.id DESC"
        case .oldest: "u.created_at ASC, u.id ASC"
        case .storage: "stored_bytes DESC, u.id ASC"
        }
        return try await summaries(
            """
            SELECT \(unescaped: Self.summaryColumns) FROM users u
            WHERE \(search) = '' OR lower(u.email) LIKE \(pattern) OR lower(u.full_name) LIKE \(pattern)
              OR lower(u.username) LIKE \(pattern)
            ORDER BY \(unescaped: order) LIMIT \(limit) OFFSET \(offset)
            """
        )
    }

    public func user(id: Int64) async throws -> UserSummary? {
        try await summaries("SELECT \(unescaped: Self.summaryColumns) FROM users u WHERE u.id = \(id)").first
    }

    public func user(email: String) async throws -> User? {
        try await summaries(
            "SELECT \(unescaped: Self.summaryColumns) FROM users u WHERE lower(u.email) = lower(\(email))"
        ).first?.user
    }

    public func tokens(userID: Int64) async throws -> [TokenSummary] {
        var tokens: [TokenSummary] = []
        for try await (key, created, used, expires) in try await client.query(
            """
            SELECT app_key, created_at, last_used_at, expires_at FROM api_tokens
            WHERE user_id = \(userID) AND revoked_at IS NULL AND expires_at > now()
            ORDER BY last_used_at DESC
            """,
            logger: logger
        ).decode((String, Date, Date, Date).self) {
            tokens.append(TokenSummary(appKey: key, createdAt: created, lastUsedAt: used, expiresAt: expires))
        }
        return tokens
    }

    /// Disables (ending every session and token at once) or enables. Refuses to disable the last admin.
    public func setDisabled(_ disabled: Bool, userID: Int64, audit: AuditRecord) async throws {
        defer { access.forget(userID: userID) }
        try await changeUser(userID, as: AdminAct(audit, removingAdmin: disabled ? userID : nil)) { connection in
            try await connection.query("UPDATE users SET disabled = \(disabled), updated_at = now() WHERE id = \(userID)", logger: logger)
            if disabled { try await UserAccess.revokeAll(userID: userID, on: connection, logger: logger) }
        }
    }

    /// Refuses to demote the last admin, and to promote an account whose address is not confirmed.
    public func setRole(_ role: User.Role, userID: Int64, audit: AuditRecord) async throws {
        defer { access.forget(userID: userID) }
        try await changeUser(userID, as: AdminAct(audit, removingAdmin: role == .admin ? nil : userID)) { connection in
            let changed = try await connection.query(
                """
                UPDATE users SET role = \(role.rawValue), updated_at = now()
                WHERE id = \(userID) AND (\(role != .admin) OR email IS NULL OR email_verified) RETURNING 1
                """,
                logger: logger
            ).collect().count
            guard changed == 1 else { throw AdminError.unconfirmedAddress }
        }
    }

    /// Ends every session and token of the user.
    public func revokeAccess(userID: Int64, audit: AuditRecord) async throws {
        defer { access.forget(userID: userID) }
        try await changeUser(userID, as: AdminAct(audit)) { connection in
            try await UserAccess.revokeAll(userID: userID, on: connection, logger: logger)
        }
    }

    /// Deletes the user and every row of theirs; returns their photos' blobs for the caller to delete.
    /// Refuses to delete the last admin. `act`: an admin's, or the owner's (`AdminAct.deletingOwnAccount`).
    /// `goodbye`: the owner's last mail, queued once the account's other mail is gone.
    func deleteUser(id: Int64, act: AdminAct, goodbye: PendingNotice? = nil) async throws -> [BlobKey] {
        defer { access.forget(userID: id) }
        var keys: [BlobKey] = []
        try await changeUser(id, as: act) { connection in
            // Originals and renditions, queued for deletion with their rows, the photos locked
            // first (see `PhotoRepository.deleteLocked`).
            keys = try await PhotoRepository.deleteLocked(
                "SELECT id FROM photos WHERE user_id = \(id) FOR UPDATE", on: connection, logger: logger
            ).flatMap(\.blobKeys)
            // Mail to the account that has not gone yet goes no more (the goodbye is queued after
            // this), nor a link of the account's to another address (a new address it was moving
            // to): found by its token, whose hash the account's links keep until they go with it.
            try await connection.query(
                """
                DELETE FROM mail_outbox WHERE sent_at IS NULL AND failed_at IS NULL
                  AND (lower(recipient) = (SELECT lower(email) FROM users WHERE id = \(id))
                    OR \(unescaped: MailOutboxRepository.linkTokenHash) IN (SELECT token_hash FROM email_tokens WHERE user_id = \(id)))
                """,
                logger: logger
            )
            // web_sessions and api_tokens go with the user (ON DELETE CASCADE).
            try await connection.query("DELETE FROM users WHERE id = \(id)", logger: logger)
            try await goodbye?.queue(on: connection, logger: logger)
        }
        return keys
    }

    /// Sets the user's storage quota; uploads that would pass it are refused from now on (what is
    /// stored already stays, even above it).
    public func setQuota(_ quota: QuotaSetting, userID: Int64, audit: AuditRecord) async throws {
        try await changeUser(userID, as: AdminAct(audit)) { connection in
            try await connection.query("UPDATE users SET quota_bytes = \(quota.column) WHERE id = \(userID)", logger: logger)
        }
    }

    /// Runs `change` on the user, locked (`AdminError.noSuchUser` when there is none), as `act`.
    private func changeUser(_ userID: Int64, as act: AdminAct, _ body: (PostgresConnection) async throws -> Void) async throws {
        try await client.transaction(as: act, logger: logger) { connection, _ in
            let rows = try await connection.query("SELECT id FROM users WHERE id = \(userID) FOR UPDATE", logger: logger)
            guard try await rows.collect().count == 1 else { throw AdminError.noSuchUser }
            try await body(connection)
        }
    }

    private func summaries(_ query: PostgresQuery) async throws -> [UserSummary] {
        var summaries: [UserSummary] = []
        for try await (id, email, username, name, role, disabled, created, verified, language, timeZone, theme, lastSignIn, photos, bytes, quota)
            in try await client.query(query, logger: logger)
            .decode((Int64, String?, String?, String, String, Bool, Date, Bool, String?, String?, String?, Date?, Int, Int64, Int64?).self)
        {
            let user = User(row: (id, email, username, name, role, disabled, created, verified, language, timeZone, theme))
            summaries.append(
                UserSummary(user: user, photoCount: photos, bytesStored: bytes, lastSignedInAt: lastSignIn, quota: QuotaSetting(column: quota))
            )
        }
        return summaries
    }
}

// MARK: Admin acts

extension AdminAct {
    /// Locks the enabled admins, always in id order (two admins acting on each other queue up
    /// instead of deadlocking), and refuses the act if the actor is not among them or it would
    /// leave none.
    fileprivate func begin(on connection: PostgresConnection, logger: Logger) async throws {
        var admins: [Int64] = []
        for try await id in try await connection.query(
            // NO KEY: as exclusive among admin acts, and against a change of role or of disabled,
            // but a foreign key's check (an admin's new session, token or photo) need not wait.
            "SELECT id FROM users WHERE role = 'admin' AND NOT disabled ORDER BY id FOR NO KEY UPDATE",
            logger: logger
        ).decode(Int64.self) {
            admins.append(id)
        }
        if actorMustBeAdmin, let actor = record.actor, !admins.contains(actor) { throw AdminError.notAnAdmin }
        if let removingAdmin, admins == [removingAdmin] { throw AdminError.lastAdmin }
    }
}

extension PostgresClient {
    /// `transaction(logger:_:)` for an admin's act: it begins with the act's checks (an
    /// `AdminError` thrown as it is), and ends by recording it. With `act` nil (the same change
    /// made by its owner), a plain transaction.
    func transaction<Result: Sendable>(
        as act: AdminAct?,
        logger: Logger,
        _ body: (PostgresConnection, _ record: inout AuditRecord?) async throws -> Result
    ) async throws -> Result {
        do {
            return try await transaction(logger: logger) { connection in
                try await act?.begin(on: connection, logger: logger)
                var record = act?.record
                let result = try await body(connection, &record)
                if let record { try await connection.query(record.insertQuery, logger: logger) }
                return result
            }
        } catch let error as TransactionError {
            if let refusal = error.closureError as? AdminError { throw refusal }
            if let refusal = error.closureError as? AccountError { throw refusal }
            throw error
        }
    }
}
