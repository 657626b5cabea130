import Foundation
import Logging
import NIOCore
import PostgresNIO
import Synchronization

/// A message in the outbox, as a sender claims it.
public struct OutboxMessage: Sendable {
    public let id: Int64
    public let messageID: String
    public let recipient: MailRecipient
    public let notice: MailNotice
    /// Including this one.
    public let attempts: Int
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

/// The transactional outbox: messages are written with what they tell about and delivered later,
/// by whichever instance claims them first.
public protocol MailOutbox: Sendable {
    /// Queues a message on its own.
    func enqueue(_ notice: MailNotice, to recipient: MailRecipient) async throws
    /// The next message due, leased for `lease` so that no other sender takes it meanwhile.
    func claimNext(lease: Duration) async throws -> OutboxMessage?
    func markSent(_ id: Int64) async throws
    func retry(_ id: Int64, after delay: Duration, error: String) async throws
    func markFailed(_ id: Int64, error: String) async throws
    /// Messages that gave up (and how many still wait), newest first.
    func undelivered(limit: Int) async throws -> (failed: [UndeliveredMail], pending: Int)
    /// Tells this instance's sender that mail is waiting (after a transaction that queued some).
    func nudge()
    /// Wakes up at a nudge, or after `timeout`.
    func waitForNudge(timeout: Duration) async
}

extension MailNotice {
    /// The INSERT that queues the notice, for the transaction of the change it tells about.
    func insertQuery(to recipient: MailRecipient, domain: String) -> PostgresQuery {
        let params = (try? String(decoding: JSONEncoder().encode(self.params), as: UTF8.self)) ?? "{}"
        // Stable across retries, so that a receiver can recognise a message delivered twice.
        let messageID = "\(RandomToken.urlSafe(byteCount: 18))@\(domain)"
        return """
            INSERT INTO mail_outbox (message_id, recipient, recipient_name, kind, params)
            VALUES (\(messageID), \(recipient.address), \(recipient.name), \(kind.rawValue), \(params)::jsonb)
            """
    }
}

public final class PostgresMailOutbox: MailOutbox {
    let client: PostgresClient
    /// Message-IDs are `random@domain` (the header adds the brackets), the From address's domain.
    let domain: String
    let scopedLogger: ScopedLogger
    var logger: Logger { scopedLogger.current }
    private let nudges: AsyncStream<Void>
    private let nudger: AsyncStream<Void>.Continuation
    private let waiting = Mutex(false)

    public init(client: PostgresClient, messageIDDomain domain: String, logger: Logger) {
        self.client = client
        self.domain = domain
        self.scopedLogger = ScopedLogger(logger)
        (nudges, nudger) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    public func enqueue(_ notice: MailNotice, to recipient: MailRecipient) async throws {
        try await client.query(notice.insertQuery(to: recipient, domain: domain), logger: logger)
        nudge()
    }

    /// Queues the notice on `connection`, inside the caller's transaction (call `nudge()` after it commits).
    func enqueue(_ notice: MailNotice, to recipient: MailRecipient, on connection: PostgresConnection) async throws {
        try await connection.query(notice.insertQuery(to: recipient, domain: domain), logger: logger)
    }

    public func claimNext(lease: Duration) async throws -> OutboxMessage? {
        let seconds = Int(lease.components.seconds)
        let rows = try await client.query(
            """
            UPDATE mail_outbox SET leased_until = now() + make_interval(secs => \(seconds)), attempts = attempts + 1
            WHERE id = (
                SELECT id FROM mail_outbox
                WHERE sent_at IS NULL AND failed_at IS NULL AND next_attempt_at <= now()
                  AND (leased_until IS NULL OR leased_until < now())
                ORDER BY next_attempt_at, id
                FOR UPDATE SKIP LOCKED
                LIMIT 1
            )
            RETURNING id, message_id, recipient, recipient_name, kind, params::text, attempts
            """,
            logger: logger
        )
        for try await (id, messageID, recipient, name, kind, params, attempts) in rows.decode(
            (Int64, String, String, String?, String, String, Int).self
        ) {
            let values = (try? JSONDecoder().decode([String: String].self, from: Data(params.utf8))) ?? [:]
            guard let kind = MailNotice.Kind(rawValue: kind) else {
                try await markFailed(id, error: "unknown kind of mail \(kind)")
                return try await claimNext(lease: lease)
            }
            return OutboxMessage(
                id: id,
                messageID: messageID,
                recipient: MailRecipient(address: recipient, name: name),
                notice: MailNotice(kind, values),
                attempts: attempts
            )
        }
        return nil
    }

    public func markSent(_ id: Int64) async throws {
        // The parameters (a token, say) are not kept once they have been delivered.
        try await client.query(
            "UPDATE mail_outbox SET sent_at = now(), leased_until = NULL, params = '{}' WHERE id = \(id)",
            logger: logger
        )
    }

    public func retry(_ id: Int64, after delay: Duration, error: String) async throws {
        try await client.query(
            """
            UPDATE mail_outbox SET leased_until = NULL, last_error = \(String(error.prefix(500))),
                next_attempt_at = now() + make_interval(secs => \(Int(delay.components.seconds)))
            WHERE id = \(id)
            """,
            logger: logger
        )
    }

    public func markFailed(_ id: Int64, error: String) async throws {
        try await client.query(
            """
            UPDATE mail_outbox SET failed_at = now(), leased_until = NULL, last_error = \(String(error.prefix(500))), params = '{}'
            WHERE id = \(id)
            """,
            logger: logger
        )
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

    public func nudge() { nudger.yield() }

    public func waitForNudge(timeout: Duration) async {
        let nudges = self.nudges
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                for await _ in nudges { return }
            }
            group.addTask { try? await Task.sleep(for: timeout) }
            await group.next()
            group.cancelAll()
        }
    }
}
