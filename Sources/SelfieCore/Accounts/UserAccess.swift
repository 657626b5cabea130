import Logging
import PostgresNIO

/// Statements several repositories run on their own connection, inside the transaction of the
/// change that needs them: ending a user's ways in (every browser session but `keepingSession`,
/// every API token, remembered browser, sign-in still waiting for its code and address change
/// still waiting for its link), killing mailed links, and reading the ways in under the user's lock.
enum UserAccess {
    static func revokeAll(userID: Int64, keepingSession: Int64? = nil, on connection: PostgresConnection, logger: Logger)
        async throws
    {
        try await connection.query(
            "DELETE FROM web_sessions WHERE user_id = \(userID) AND id IS DISTINCT FROM \(keepingSession)",
            logger: logger
        )
        try await connection.query(
            "UPDATE api_tokens SET revoked_at = now() WHERE user_id = \(userID) AND revoked_at IS NULL",
            logger: logger
        )
        try await connection.query("DELETE FROM remembered_browsers WHERE user_id = \(userID)", logger: logger)
        try await connection.query("DELETE FROM pending_sign_ins WHERE user_id = \(userID)", logger: logger)
        // A two-step set-up key shown but not yet confirmed may have been seen by a session that
        // just ended: the owner's next set-up draws a new one.
        try await connection.query("DELETE FROM totp_factors WHERE user_id = \(userID) AND confirmed_at IS NULL", logger: logger)
        // An address change asked for by a session that just ended (a thief's, as likely as the
        // owner's) would otherwise still move the account, and its reset mail, to the new address.
        try await killLinks([.changeEmail], userID: userID, on: connection, logger: logger)
    }

    /// Kills the user's mailed links for `purposes` (a change that they would undo just happened).
    /// Throws `AccountError.confirmItsYou` unless the session asking for a change that adds a way in
    /// (a passkey, a first password) still exists. The account's row is locked first, in the order
    /// every remedy takes them (the user's row, then its sessions): a sign-out everywhere, a revoke
    /// or a disable under way commits first and the session is found gone; one that comes later
    /// waits for the change and ends what it made with the rest. Checked when the request began,
    /// the session could end while it ran and the new way in outlive the remedy.
    static func requireSession(_ sessionID: Int64, of userID: Int64, on connection: PostgresConnection, logger: Logger) async throws {
        try await require(
            "SELECT 1 FROM web_sessions WHERE id = \(sessionID) AND user_id = \(userID) AND expires_at > now() FOR SHARE",
            of: userID, on: connection, logger: logger
        )
    }

    /// `requireSession` for an app's API token: not revoked, not expired.
    static func requireToken(_ tokenID: Int64, of userID: Int64, on connection: PostgresConnection, logger: Logger) async throws {
        try await require(
            "SELECT 1 FROM api_tokens WHERE id = \(tokenID) AND user_id = \(userID) AND revoked_at IS NULL AND expires_at > now() FOR SHARE",
            of: userID, on: connection, logger: logger
        )
    }

    /// The user's row locked, then `live` must find the asking session or token.
    private static func require(_ live: PostgresQuery, of userID: Int64, on connection: PostgresConnection, logger: Logger) async throws {
        try await connection.query("SELECT 1 FROM users WHERE id = \(userID) FOR UPDATE", logger: logger)
        guard try await !connection.query(live, logger: logger).collect().isEmpty else { throw AccountError.confirmItsYou }
    }

    static func killLinks(_ purposes: [EmailTokenPurpose], userID: Int64, on connection: PostgresConnection, logger: Logger) async throws {
        try await connection.query(
            "DELETE FROM email_tokens WHERE user_id = \(userID) AND purpose = ANY(\(purposes.map(\.rawValue)))",
            logger: logger
        )
    }

    /// The account's ways in, read on `connection` (inside the transaction that changes them, after
    /// the user's row is locked in an earlier statement, so this statement's snapshot sees what a
    /// concurrent change committed).
    static func waysIn(userID: Int64, on connection: PostgresConnection, logger: Logger) async throws -> WaysIn? {
        try await firstWaysIn(in: connection.query(waysInQuery(userID: userID), logger: logger))
    }

        /// Locks the user's row (a statement of its own), so concurrent changes to the ways in wait
    /// for each other, then reads them afresh. Nil when there is no such user.
    static func lockWaysIn(userID: Int64, on connection: PostgresConnection, logger: Logger) async throws -> WaysIn? {
        _ = try await connection.query("SELECT id FROM users WHERE id = \(userID) FOR NO KEY UPDATE", logger: logger).collect()
        return try await waysIn(userID: userID, on: connection, logger: logger)
    }

    private static func waysInQuery(userID: Int64) -> PostgresQuery {
        """
        SELECT u.password_hash IS NOT NULL AND (u.email IS NOT NULL OR u.username IS NOT NULL),
               (SELECT count(*)::int FROM user_identities i WHERE i.user_id = u.id),
               (SELECT count(*)::int FROM passkeys p WHERE p.user_id = u.id),
               u.email IS NOT NULL
        FROM users u WHERE u.id = \(userID)
        """
    }

    private static func firstWaysIn(in rows: PostgresRowSequence) async throws -> WaysIn? {
        for try await (password, identities, passkeys, address) in rows.decode((Bool, Int, Int, Bool).self) {
            return WaysIn(password: password, identities: identities, passkeys: passkeys, address: address)
        }
        return nil
    }
}
