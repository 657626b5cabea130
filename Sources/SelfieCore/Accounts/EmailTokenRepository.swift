import Foundation
import Logging
import NIOCore
import PostgresNIO

/// What a mailed link is for, and how long it works.
public enum EmailTokenPurpose: String, Sendable {
    case verifyEmail = "verify_email"
    case resetPassword = "reset_password"
    case changeEmail = "change_email"

    var lifetime: TimeInterval {
        switch self {
        case .verifyEmail: 48 * 3600
        case .resetPassword: 3600
        case .changeEmail: 24 * 3600
        }
    }
}

/// The account and the address a valid link is for.
struct EmailTokenTarget: Sendable {
    let userID: Int64
    let email: String
}

/// Single-use, expiring tokens for mailed links; only their SHA-256 is stored.
struct EmailTokenRepository: Sendable {
    let client: PostgresClient
    let scopedLogger: ScopedLogger
    var logger: Logger { scopedLogger.current }

    /// Stores a new token together with the message that carries it, in one transaction: both or
    /// neither. With `sessionID`, only while that browser session (the one that asked for it) is
    /// still the user's: a session ended (signed out everywhere, access revoked, the account
    /// disabled) after its request was checked and before this commits leaves no link behind. The
    /// session's row is share-locked, so an ending under way waits for this to commit and then
    /// kills the link with the rest (`UserAccess.revokeAll` deletes the sessions before the
    /// links). Returns whether the token was stored (and mailed).
    @discardableResult
    func create(
        _ purpose: EmailTokenPurpose,
        userID: Int64,
        email: String,
        token: String,
        mailing message: MailNotice,
        to recipient: MailRecipient,
        through outbox: MailOutboxRepository,
        as act: AdminAct? = nil,
        whileSession sessionID: Int64? = nil
    ) async throws -> Bool {
        let logger = self.logger
        return try await client.transaction(as: act, logger: logger) { connection, _ in
            guard try await Self.insert(purpose, userID: userID, email: email, token: token, whileSession: sessionID, on: connection, logger: logger)
            else { return false }
            try await outbox.enqueue(message, to: recipient, on: connection)
            return true
        }
    }

    /// Stores a new token that is not mailed (an admin hands the link over).
    func create(_ purpose: EmailTokenPurpose, userID: Int64, email: String, token: String, as act: AdminAct) async throws {
        let logger = self.logger
        try await client.transaction(as: act, logger: logger) { connection, _ in
            _ = try await Self.insert(purpose, userID: userID, email: email, token: token, whileSession: nil, on: connection, logger: logger)
        }
    }

    private static func insert(
        _ purpose: EmailTokenPurpose,
        userID: Int64,
        email: String,
        token: String,
        whileSession sessionID: Int64?,
        on connection: PostgresConnection,
        logger: Logger
    ) async throws -> Bool {
        let hash = ByteBuffer(bytes: RandomToken.hash(token))
        let rows: PostgresRowSequence
        if let sessionID {
            // The account's row before the session's, in the order every remedy takes them (the
            // user's row, then its sessions): taken the other way round, the insert's own key check
            // on the user would wait behind a remedy that waits on this session's lock.
            try await connection.query("SELECT 1 FROM users WHERE id = \(userID) FOR KEY SHARE", logger: logger)
            rows = try await connection.query(
                """
                INSERT INTO email_tokens (token_hash, purpose, user_id, email, expires_at)
                SELECT \(hash), \(purpose.rawValue), user_id, \(email), now() + make_interval(secs => \(purpose.lifetime))
                FROM web_sessions WHERE id = \(sessionID) AND user_id = \(userID) AND expires_at > now()
                FOR SHARE
                RETURNING 1
                """,
                logger: logger
            )
        } else {
            rows = try await connection.query(
                """
                INSERT INTO email_tokens (token_hash, purpose, user_id, email, expires_at)
                VALUES (\(hash), \(purpose.rawValue), \(userID), \(email), now() + make_interval(secs => \(purpose.lifetime)))
                RETURNING 1
                """,
                logger: logger
            )
        }
        return try await !rows.collect().isEmpty
    }

    /// What a token is for, if it still works (a page showing the form; nothing is used up).
    func peek(_ purpose: EmailTokenPurpose, token: String) async throws -> EmailTokenTarget? {
        try await target(
            """
            SELECT user_id, email FROM email_tokens
            WHERE token_hash = \(ByteBuffer(bytes: RandomToken.hash(token))) AND purpose = \(purpose.rawValue)
              AND used_at IS NULL AND expires_at > now()
            """
        )
    }

    /// Uses the token up: what it was for, or nil if it does not work (unknown, used, expired).
    func take(_ purpose: EmailTokenPurpose, token: String) async throws -> EmailTokenTarget? {
        try await target(
            """
            UPDATE email_tokens SET used_at = now()
            WHERE token_hash = \(ByteBuffer(bytes: RandomToken.hash(token))) AND purpose = \(purpose.rawValue)
              AND used_at IS NULL AND expires_at > now()
            RETURNING user_id, email
            """
        )
    }

    func deleteExpired() async throws {
        try await client.query("DELETE FROM email_tokens WHERE expires_at < now() - interval '1 day'", logger: logger)
    }

    private func target(_ query: PostgresQuery) async throws -> EmailTokenTarget? {
        for try await (userID, email) in try await client.query(query, logger: logger).decode((Int64, String).self) {
            return EmailTokenTarget(userID: userID, email: email)
        }
        return nil
    }
}
