import Logging
import ServiceLifecycle
import SMTP

/// Delivers the outbox: takes a due message (no other instance can meanwhile), composes it, hands
/// it to the transport, and records it sent — or schedules a retry with backoff, or gives up (a
/// permanent refusal, or too many attempts), where admins see it.
public struct MailSender: Service {
    let outbox: MailOutboxRepository
    let transport: any MailTransport
    let composer: any MailComposer
    let from: MailAddress
    let logger: Logger

    /// How long a quiet sender waits before looking again (another instance may have queued mail).
    static let poll: Duration = .seconds(2)
    /// The wait before each retry; after the last one the message is marked failed.
    static let backoff: [Duration] = [.seconds(30), .seconds(120), .seconds(600), .seconds(1800), .seconds(7200), .seconds(21600)]

    /// - Parameter publicSite: whether `PUBLIC_URL` is reached from other machines (a real site:
    ///   the log transport then writes no link).
    public init(outbox: MailOutboxRepository, configuration: MailConfiguration, publicSite: Bool, composer: any MailComposer, logger: Logger) throws {
        self.outbox = outbox
        self.transport = try configuration.makeTransport(publicSite: publicSite, logger: logger)
        self.composer = composer
        self.from = configuration.from
        self.logger = logger
    }

    init(outbox: MailOutboxRepository, transport: any MailTransport, composer: any MailComposer, from: MailAddress, logger: Logger) {
        self.outbox = outbox
        self.transport = transport
        self.composer = composer
        self.from = from
        self.logger = logger
    }

    public func run() async throws {
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            do {
                while !Task.isShuttingDownGracefully, !Task.isCancelled, try await outbox.deliverNext(deliver) {}
            } catch {
                if Task.isCancelled { break }
                logger.warning("the mail outbox could not be read: \(String(reflecting: error))")
            }
            await cancelWhenGracefulShutdown { await outbox.waitForNudge(timeout: Self.poll) }
        }
    }

    /// One attempt at one message: what became of it, for the outbox to record.
    func deliver(_ message: OutboxMessage) async -> DeliveryOutcome {
        let metadata: Logger.Metadata = ["mail": "\(message.id)", "kind": "\(message.notice.kind.rawValue)", "attempt": "\(message.attempts)"]
        do {
            let composed = try composer.compose(message.notice, to: message.recipient)
            let mail = try MailMessage(
                from: from,
                to: [try MailAddress(message.recipient.address, displayName: message.recipient.name)],
                subject: composed.subject,
                text: composed.text,
                html: composed.html,
                messageID: message.messageID
            )
            try await transport.send(mail)
            logger.info("mail delivered", metadata: metadata)
            return .sent
        } catch let error as MailDeliveryError where !error.isPermanent && message.attempts <= Self.backoff.count {
            let delay = Self.backoff[message.attempts - 1]
            logger.warning("mail not delivered, will retry in \(delay)", metadata: metadata.merging(["error": "\(error)"]) { $1 })
            return .retry(after: delay, error: error.description)
        } catch {
            logger.error("mail not delivered, giving up", metadata: metadata.merging(["error": "\(error)"]) { $1 })
            return .failed(error: "\(error)")
        }
    }
}
