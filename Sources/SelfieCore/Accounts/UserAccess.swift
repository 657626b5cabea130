import Logging
import PostgresNIO

/// Ending a user's ways in: every browser session (but `keepingSession`), every API token, every
/// remembered browser and every sign-in still waiting for its code. Runs on the caller's
/// connection, inside the transaction of the change that requires it (a password change or
/// reset, a disable, "sign out everywhere").
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
    }

    /// Kills the user's mailed links for `purposes` (a change that they would undo just happened).
    static func killLinks(_ purposes: [EmailTokenPurpose], userID: Int64, on connection: PostgresConnection, logger: Logger) async throws {
        try await connection.query(
            "DELETE FROM email_tokens WHERE user_id = \(userID) AND purpose = ANY(\(purposes.map(\.rawValue)))",
            logger: logger
        )
    }
}
