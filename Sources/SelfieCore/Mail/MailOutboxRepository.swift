import Foundation
import Logging
import NIOCore
import PostgresNIO
import Synchronization

/// A message in the outbox, as a sender holds it.
public struct OutboxMessage: Sendable {
    public let id: Int64
    public let messageID: String
    public let recipient: MailRecipient
    public let notice: MailNotice
    /// Including this one.
    public let attempts: Int
}

/// What became of one attempt at a message.
public enum DeliveryOutcome: Sendable, Equatable {
    case sent
    /// Refused for now: try again after the delay.
    case retry(after: Duration, error: String)
    /// Refused for good, or too many attempts: admins see it.
    case failed(error: String)
}

/// An undelivered message, as the admin page lists it.
public struct UndeliveredMail: Sendable {
    public let recipient: String
    public let kind: String
    public let createdAt: Date
    public let attempts: Int
    public let failedAt: Date?
    public let lastError: String?
}

/// A notice to queue in the transaction of the change it tells about, so that the change and its
/// notice commit together or not at all (docs/ARCHITECTURE.md, "Mail: the outbox"): made by
/// `MailOutboxRepository.pending(_:to:)`, queued by the repository making the change
/// (`queue(on:logger:)`); the service nudges the sender once that has committed.
public struct PendingNotice: Sendable {
    let query: PostgresQuery

    func queue(on connection: PostgresConnection, logger: Logger) async throws {
        try await connection.query(query, logger: logger)
    }
}

extension MailNotice {
    /// The INSERT that queues the notice, for the transaction of the change it tells about.
    func insertQuery(to recipient: MailRecipient, domain: String) -> PostgresQuery {
        let params = (try? String(decoding: JSONEncoder().encode(self.params), as: UTF8.self)) ?? "{}"
        // Stable across retries, so that a receiver can recognise a message delivered twice.
        let messageID = "\(RandomToken.urlSafe(byteCount: 18))@\(domain)"
        return """
            INSERT INTO mail_outbox (message_id, recipient, recipient_name, language, kind, params)
            VALUES (\(messageID), \(recipient.address), \(recipient.name), \(recipient.language), \(kind.rawValue), \(params)::jsonb)
            """
    }
}

/// The transactional outbox: a message is written in the transaction of what it tells about (a
/// token, a changed address) and delivered afterwards by whichever instance's sender gets to it.
///
/// A sender holds the message's row lock (`FOR UPDATE SKIP LOCKED`) for the whole attempt and
/// records the outcome in the same transaction: another instance skips a message being sent, and
/// a sender that dies mid-attempt (its connection closes) releases it at once. A message can still
/// go twice if a sender dies after the SMTP server took it and before the commit (at least once,
/// as every outbox); its Message-ID stays the same, so a receiver can tell.
public final class MailOutboxRepository: Sendable {
    let client: PostgresClient
    /// Message-IDs are `random@domain` (the header adds the brackets), the From address's domain.
    let domain: String
    let scopedLogger: ScopedLogger
    var logger: Logger { scopedLogger.current }
    /// Set when this instance queues mail, so that its sender looks at once.
    private let nudged = Atomic<Bool>(false)

    public init(client: PostgresClient, messageIDDomain domain: String, logger: Logger) {
        self.client = client
        self.domain = domain
        self.scopedLogger = ScopedLogger(logger)
    }

    public func enqueue(_ notice: MailNotice, to recipient: MailRecipient) async throws {
        try await client.query(notice.insertQuery(to: recipient, domain: domain), logger: logger)
        nudge()
    }

    /// The notice to `user`'s address for a repository to queue with its change; nil for an account
    /// without an address.
    func pending(_ notice: MailNotice, to user: User) -> PendingNotice? {
        MailRecipient(user).map { PendingNotice(query: notice.insertQuery(to: $0, domain: domain)) }
    }

    /// Queues the notice on `connection`, inside the caller's transaction (call `nudge()` after it commits).
    func enqueue(_ notice: MailNotice, to recipient: MailRecipient, on connection: PostgresConnection) async throws {
        try await connection.query(notice.insertQuery(to: recipient, domain: domain), logger: logger)
    }

    /// The SHA-256 of the link token a queued message carries (`params.token`), as `email_tokens`
    /// keeps it: SQL over a `mail_outbox` row.
    static let linkTokenHash = "sha256(convert_to(params->>'token', 'UTF8'))"

    /// The kinds this build can write. A message of another kind was queued by a newer instance
    /// (a rolling upgrade): it is left for a sender that knows it, never given up here.
    static let knownKinds = MailNotice.Kind.allCases.map(\.rawValue)

    /// Delivers the next message due with `deliver`, holding its row lock meanwhile, and records
    /// what `deliver` says became of it. Returns false when nothing is due.
    public func deliverNext(_ deliver: (OutboxMessage) async -> DeliveryOutcome) async throws -> Bool {
        let logger = self.logger
        return try await client.transaction(logger: logger) { connection in
            let rows = try await connection.query(
                """
                SELECT id, message_id, recipient, recipient_name, language, kind, params::text, attempts + 1,
                    params ? 'token' AND NOT EXISTS (
                        SELECT 1 FROM email_tokens t
                        WHERE t.token_hash = \(unescaped: Self.linkTokenHash) AND t.used_at IS NULL AND t.expires_at > now()
                    )
                FROM mail_outbox
                WHERE sent_at IS NULL AND failed_at IS NULL AND next_attempt_at <= now() AND kind = ANY(\(Self.knownKinds))
                ORDER BY next_attempt_at, id
                LIMIT 1
                FOR UPDATE SKIP LOCKED
                """,
                logger: logger
            )
            var row: (Int64, String, String, String?, String?, String, String, Int, Bool)?
            for try await next in rows.decode((Int64, String, String, String?, String?, String, String, Int, Bool).self) { row = next }
            guard let (id, messageID, recipient, name, language, kindName, params, attempts, linkDead) = row else { return false }
            guard let kind = MailNotice.Kind(rawValue: kindName) else { return false }  // as selected: a known kind
            // A link that expired (or was used, or ended with a password change) while its message
            // waited for the mail server is not sent: it would only lead to "this link no longer works".
            if linkDead {
                try await connection.query(Self.record(.failed(error: "not sent: its link had expired or been used"), of: id), logger: logger)
                return true
            }
            let values = (try? JSONDecoder().decode([String: String].self, from: Data(params.utf8))) ?? [:]
            let message = OutboxMessage(
                id: id,
                messageID: messageID,
                recipient: MailRecipient(address: recipient, name: name, language: language),
                notice: MailNotice(kind, values),
                attempts: attempts
            )
            let outcome = await deliver(message)
            try await connection.query(Self.record(outcome, of: id), logger: logger)
            return true
        }
    }

    /// The UPDATE that records an attempt. The parameters (a token, say) are not kept once the
    /// message is delivered or given up. Times are the attempt's end (`clock_timestamp()`): the
    /// transaction began before the attempt, which can last up to the SMTP deadlines, and a retry
    /// counted from its start could be due again before it is recorded (sent at once, twice).
    static func record(_ outcome: DeliveryOutcome, of id: Int64) -> PostgresQuery {
        switch outcome {
        case .sent:
            "UPDATE mail_outbox SET sent_at = clock_timestamp(), attempts = attempts + 1, params = '{}' WHERE id = \(id)"
        case .retry(let delay, let error):
            """
            UPDATE mail_outbox SET attempts = attempts + 1, last_error = \(RecordedError.text(error)),
                next_attempt_at = clock_timestamp() + make_interval(secs => \(Int(delay.components.seconds)))
            WHERE id = \(id)
            """
        case .failed(let error):
            """
            UPDATE mail_outbox SET attempts = attempts + 1, failed_at = clock_timestamp(), last_error = \(RecordedError.text(error)), params = '{}'
            WHERE id = \(id)
            """
        }
    }

    public func undelivered(limit: Int) async throws -> (failed: [UndeliveredMail], pending: Int) {
        var failed: [UndeliveredMail] = []
        for try await (recipient, kind, created, attempts, failedAt, error) in try await client.query(
            """
            SELECT recipient, kind, created_at, attempts, failed_at, last_error FROM mail_outbox
            WHERE failed_at IS NOT NULL ORDER BY id DESC LIMIT \(limit)
            """,
            logger: logger
        ).decode((String, String, Date, Int, Date?, String?).self) {
            failed.append(UndeliveredMail(recipient: recipient, kind: kind, createdAt: created, attempts: attempts, failedAt: failedAt, lastError: error))
        }
        let pending = try await client.query(
            "SELECT count(*)::int FROM mail_outbox WHERE sent_at IS NULL AND failed_at IS NULL",
            logger: logger
        ).collect().first?.decode(Int.self) ?? 0
        return (failed, pending)
    }

    /// Forgets delivered and failed messages after a while (their parameters are already gone).
    func deleteDelivered(olderThanDays days: Int) async throws {
        try await client.query(
            """
            DELETE FROM mail_outbox
            WHERE coalesce(sent_at, failed_at) < now() - make_interval(days => \(days))
            """,
            logger: logger
        )
    }

    public func nudge() { nudged.store(true, ordering: .releasing) }

    /// Returns when this instance has queued mail since the last call, after `timeout`, or when the
    /// task is cancelled. (A flag looked at every 100 ms: nothing here can end early for good, as a
    /// finished stream would, and turn the sender's wait into a busy loop.)
    public func waitForNudge(timeout: Duration) async {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if nudged.exchange(false, ordering: .acquiringAndReleasing) { return }
            do { try await Task.sleep(for: .milliseconds(100)) } catch { return }
        }
    }
}
