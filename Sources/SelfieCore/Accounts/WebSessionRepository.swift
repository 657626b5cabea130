import Foundation
import Logging
import NIOCore
import PostgresNIO

/// A signed-in browser: the session row and its (enabled) user.
public struct ActiveSession: Sendable {
    public let sessionID: Int64
    public let user: User
    var lastSeenAt: Date
    /// When the session ends unless the browser signs out first.
    let expiresAt: Date
    /// When this browser signed in.
    public let signedInAt: Date
    /// When it last proved who it is: its sign-in, or the password typed again since ("confirm
    /// it's you"). Sensitive changes need this to be recent (`StepUp`).
    public let confirmedAt: Date
}

/// One of a user's sessions, as listed on the account page.
public struct SessionSummary: Sendable {
    public let id: Int64
    public let userAgent: String
    public let ipAddress: String
    public let createdAt: Date
    public let lastSeenAt: Date
}

/// Server-side browser sessions. Looked up by the SHA-256 of the cookie's token.
public struct WebSessionRepository: Sendable {
    let client: PostgresClient
    let scopedLogger: ScopedLogger
    /// The request's logger while serving one (its id on every line), else the one given at start.
    var logger: Logger { scopedLogger.current }

    let statements: HotStatements
    /// Told of every session this repository ends or changes, once it is done.
    let access: AccessCache

    public init(client: PostgresClient, preparedStatements: Bool, loopConnections: LoopConnections? = nil, access: AccessCache, logger: Logger) {
        self.client = client
        self.access = access
        self.scopedLogger = ScopedLogger(logger)
        self.statements = HotStatements(client: client, prepared: preparedStatements, loopConnections: loopConnections)
    }

    /// Starts a session, but only while the user is enabled and their password hash is still
    /// `passwordHash` (the one just verified). Returns false otherwise: a password change or a
    /// disable that lands while bcrypt runs cannot be outlived by the session being created.
    /// `confirmed`: the sign-in counts as "confirm it's you" for the next ten minutes (not one a
    /// remembered browser let through without the code).
    public func create(
        userID: Int64,
        passwordHash: String?,
        tokenHash: [UInt8],
        userAgent: String,
        ipAddress: String,
        expiresAt: Date,
        confirmed: Bool
    ) async throws -> Bool {
        // FOR SHARE waits for a concurrent password change (which holds the row) and then re-checks.
        let rows = try await client.query(
            """
            INSERT INTO web_sessions (token_hash, user_id, user_agent, ip_address, expires_at, confirmed_at)
            SELECT \(ByteBuffer(bytes: tokenHash)), id, \(String(userAgent.prefix(512))), \(ipAddress), \(expiresAt),
              CASE WHEN \(confirmed) THEN now() ELSE 'epoch'::timestamptz END
            FROM users WHERE id = \(userID) AND password_hash IS NOT DISTINCT FROM \(passwordHash) AND NOT disabled
            FOR SHARE
            RETURNING id
            """,
            logger: logger
        )
        return try await rows.collect().count == 1
    }

    /// The live session for a token: not expired, and its user not disabled.
    public func findActive(tokenHash: [UInt8]) async throws -> ActiveSession? {
        try await statements.rows(FindActiveSession(tokenHash: tokenHash), logger: logger).first
    }

    public func touch(sessionID: Int64) async throws {
        try await client.query("UPDATE web_sessions SET last_seen_at = now() WHERE id = \(sessionID)", logger: logger)
    }

    /// Records that the browser proved who it is just now.
    public func markConfirmed(sessionID: Int64) async throws {
        try await forgettingOwner(of: "UPDATE web_sessions SET confirmed_at = now() WHERE id = \(sessionID) RETURNING user_id")
    }

    public func delete(sessionID: Int64) async throws {
        try await forgettingOwner(of: "DELETE FROM web_sessions WHERE id = \(sessionID) RETURNING user_id")
    }

    /// Runs `change` (which returns the session's `user_id`) and tells `access` whose it was.
    private func forgettingOwner(of change: PostgresQuery) async throws {
        // Read to the end first: the statement's rows arrive before it is committed.
        for row in try await client.query(change, logger: logger).collect() {
            access.forget(userID: try row.decode(Int64.self))
        }
    }

    public func list(userID: Int64) async throws -> [SessionSummary] {
        let rows = try await client.query(
            """
            SELECT id, user_agent, ip_address, created_at, last_seen_at FROM web_sessions
            WHERE user_id = \(userID) AND expires_at > now()
            ORDER BY last_seen_at DESC
            """,
            logger: logger
        )
        var sessions: [SessionSummary] = []
        for try await (id, agent, ip, created, lastSeen) in rows.decode((Int64, String, String, Date, Date).self) {
            sessions.append(.init(id: id, userAgent: agent, ipAddress: ip, createdAt: created, lastSeenAt: lastSeen))
        }
        return sessions
    }

    /// Ends every session of a user but `keeping` (nil: all), forgets the browsers that skip the
    /// second factor ("sign out everywhere" must not leave a way back), a two-step set-up key not
    /// yet confirmed (an ended session may have seen it) and an address change still waiting for
    /// its link (an ended session may have asked for it). Returns how many sessions ended.
    ///
    /// The user's row is locked first, as every remedy does: a change that adds a way in while its
    /// session lasts (`UserAccess.requireSession`) holds that row, then its session; taken the
    /// other way round the two could each wait for the other.
    @discardableResult
    public func deleteAll(userID: Int64, keeping: Int64?) async throws -> Int {
        defer { access.forget(userID: userID) }
        let logger = self.logger
        return try await client.transaction(logger: logger) { connection in
            try await connection.query("SELECT 1 FROM users WHERE id = \(userID) FOR UPDATE", logger: logger)
            let rows = try await connection.query(
                """
                WITH forgotten AS (DELETE FROM remembered_browsers WHERE user_id = \(userID)),
                  unseen AS (DELETE FROM totp_factors WHERE user_id = \(userID) AND confirmed_at IS NULL),
                  unmoved AS (DELETE FROM email_tokens WHERE user_id = \(userID) AND purpose = \(EmailTokenPurpose.changeEmail.rawValue))
                DELETE FROM web_sessions WHERE user_id = \(userID) AND id IS DISTINCT FROM \(keeping) RETURNING id
                """,
                logger: logger
            )
            return try await rows.collect().count
        }
    }

    @discardableResult
    public func deleteExpired() async throws -> Int {
        let rows = try await client.query("DELETE FROM web_sessions WHERE expires_at <= now() RETURNING id", logger: logger)
        return try await rows.collect().count
    }
}

/// Every signed-in page asks this (when the session is not in `AccessCache`).
struct FindActiveSession: LookupByTokenHash {
    static let name = "find_active_session"
    static let sql = """
        SELECT s.id, s.last_seen_at, s.expires_at, s.created_at, s.confirmed_at, \(User.columns)
        FROM web_sessions s JOIN users u ON u.id = s.user_id
        WHERE s.token_hash = $1 AND s.expires_at > now() AND NOT u.disabled
        """
    let tokenHash: [UInt8]

    func decodeRow(_ row: PostgresRow) throws -> ActiveSession {
        let columns = row.makeRandomAccess()
        return ActiveSession(
            sessionID: try columns.column(0),
            user: try User(columns, from: 5),
            lastSeenAt: try columns.column(1),
            expiresAt: try columns.column(2),
            signedInAt: try columns.column(3),
            confirmedAt: try columns.column(4)
        )
    }
}
