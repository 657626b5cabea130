import Logging
import PostgresNIO

/// Ending a user's ways in: every browser session (but `keepingSession`) and every API token.
/// Runs on the caller's connection, inside the transaction of the change that requires it
/// (a password change, a disable, an admin's "sign out everywhere").
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
    }
}
