import Foundation
import Logging
import NIOCore
import PostgresNIO

/// A live API token and its user, as found from the token a request carries.
public struct AuthenticatedToken: Sendable {
    public let tokenID: Int64
    public let user: User
    /// The app key the token was issued through.
    public let appKeyName: String
    var lastUsedAt: Date
    /// When the token stops working unless revoked first.
    let expiresAt: Date
    /// When the token was issued (a sign-in).
    public let issuedAt: Date
}

/// API tokens, stored as SHA-256 hashes.
public struct APITokenRepository: Sendable {
    let client: PostgresClient
    let scopedLogger: ScopedLogger
    /// The request's logger while serving one (its id on every line), else the one given at start.
    var logger: Logger { scopedLogger.current }

    let statements: HotStatements
    /// Told of every token this repository revokes, once it is done.
    let access: AccessCache

    public init(client: PostgresClient, preparedStatements: Bool, loopConnections: LoopConnections? = nil, access: AccessCache, logger: Logger) {
        self.client = client
        self.access = access
        self.scopedLogger = ScopedLogger(logger)
        self.statements = HotStatements(client: client, prepared: preparedStatements, loopConnections: loopConnections)
    }

    /// Issues a token while `passwordHash` is still the user's current hash and the user is
    /// enabled (false otherwise), like web sessions.
    public func create(
        userID: Int64,
        passwordHash: String?,
        tokenHash: [UInt8],
        appKeyName: String,
        expiresAt: Date
    ) async throws -> Bool {
        let rows = try await client.query(
            """
            INSERT INTO api_tokens (token_hash, user_id, app_key, expires_at)
            SELECT \(ByteBuffer(bytes: tokenHash)), id, \(appKeyName), \(expiresAt)
            FROM users WHERE id = \(userID) AND password_hash IS NOT DISTINCT FROM \(passwordHash) AND NOT disabled
            FOR SHARE
            RETURNING id
            """,
            logger: logger
        )
        return try await rows.collect().count == 1
    }

    /// The live token: not revoked, not expired, its user not disabled.
    public func findActive(tokenHash: [UInt8]) async throws -> AuthenticatedToken? {
        try await statements.rows(FindActiveToken(tokenHash: tokenHash), logger: logger).first
    }

    public func touch(tokenID: Int64) async throws {
        try await client.query("UPDATE api_tokens SET last_used_at = now() WHERE id = \(tokenID)", logger: logger)
    }

    public func revoke(tokenID: Int64) async throws {
        let rows = try await client.query(
            "UPDATE api_tokens SET revoked_at = now() WHERE id = \(tokenID) AND revoked_at IS NULL RETURNING user_id",
            logger: logger
        )
        for row in try await rows.collect() { access.forget(userID: try row.decode(Int64.self)) }
    }

    @discardableResult
    public func deleteExpired() async throws -> Int {
        // Kept a day past expiry or revocation, so "last used" stays visible for a while.
        let rows = try await client.query(
            """
            DELETE FROM api_tokens
            WHERE expires_at < now() - interval '1 day' OR revoked_at < now() - interval '1 day'
            RETURNING id
            """,
            logger: logger
        )
        return try await rows.collect().count
    }
}

/// Every API request with a token asks this (when the token is not in `AccessCache`).
struct FindActiveToken: LookupByTokenHash {
    static let name = "find_active_token"
    static let sql = """
        SELECT t.id, t.app_key, t.last_used_at, t.expires_at, t.created_at, \(User.columns)
        FROM api_tokens t JOIN users u ON u.id = t.user_id
        WHERE t.token_hash = $1 AND t.revoked_at IS NULL AND t.expires_at > now() AND NOT u.disabled
        """
    let tokenHash: [UInt8]

    func decodeRow(_ row: PostgresRow) throws -> AuthenticatedToken {
        let columns = row.makeRandomAccess()
        return AuthenticatedToken(
            tokenID: try columns.column(0),
            user: try User(columns, from: 5),
            appKeyName: try columns.column(1),
            lastUsedAt: try columns.column(2),
            expiresAt: try columns.column(3),
            issuedAt: try columns.column(4)
        )
    }
}
