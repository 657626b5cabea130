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
    /// still the user's (`UserAccess.requireSession`): a session ended (signed out everywhere,
    /// access revoked, the account disabled) after its request was checked and before this
    /// commits leaves no link behind, and `AccountError.confirmItsYou` is thrown.
    func create(
        _ purpose: EmailTokenPurpose,
        userID: Int64,
        email: String,
        token: String,
        mailing message: MailNotice,
        to recipient: MailRecipient,
        through outbox: MailOutboxRepository,
        as act: AdminAct? = nil,
        whileSession sessionID: Int64? = nil,
        alsoNotifying notice: PendingNotice? = nil
    ) async throws {
        let logger = self.logger
        try await client.transaction(as: act, logger: logger) { connection, _ in
            if let sessionID { try await UserAccess.requireSession(sessionID, of: userID, on: connection, logger: logger) }
            try await Self.insert(purpose, userID: userID, email: email, token: token, on: connection, logger: logger)
            try await outbox.enqueue(message, to: recipient, on: connection)
            try await notice?.queue(on: connection, logger: logger)
        }
    }

    /// Stores a new token that is not mailed (an admin hands the link over).
    func create(_ purpose: EmailTokenPurpose, userID: Int64, email: String, token: String, as act: AdminAct) async throws {
        let logger = self.logger
        try await client.transaction(as: act, logger: logger) { connection, _ in
            try await Self.insert(purpose, userID: userID, email: email, token: token, on: connection, logger: logger)
        }
    }

    private static func insert(
        _ purpose: EmailTokenPurpose, userID: Int64, email: String, token: String, on connection: PostgresConnection, logger: Logger
    ) async throws {
        try await connection.query(
            """
            INSERT INTO email_tokens (token_hash, purpose, user_id, email, expires_at)
            VALUES (\(ByteBuffer(bytes: RandomToken.hash(token))), \(purpose.rawValue), \(userID), \(email),
                    now() + make_interval(secs => \(purpose.lifetime)))
            """,
            logger: logger
        )
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
