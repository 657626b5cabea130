import Logging
import NIOPosix
import SMTP

/// Where composed mail goes.
public protocol MailTransport: Sendable {
    /// Throws `MailDeliveryError` (permanent or not) when the message was not accepted.
    func send(_ message: MailMessage) async throws
}

/// Why a message was not delivered, and whether trying again could help.
public struct MailDeliveryError: Error, CustomStringConvertible {
    public let isPermanent: Bool
    public let description: String
}

/// Delivers through an SMTP server (STARTTLS or implicit TLS, AUTH PLAIN/LOGIN).
struct SMTPTransport: MailTransport {
    let client: SMTPClient

    init(configuration: SMTPConfiguration, logger: Logger) throws {
        client = try SMTPClient(configuration: configuration, logger: logger)
    }

    func send(_ message: MailMessage) async throws {
        do {
            try await client.send(message)
        } catch {
            throw MailDeliveryError(isPermanent: error.isPermanent, description: error.description)
        }
    }
}

/// Writes each message to the log (link included): what a developer follows with `make run`.
struct LogTransport: MailTransport {
    let logger: Logger

    func send(_ message: MailMessage) async throws {
        let to = message.to.map(\.address).joined(separator: ", ")
        logger.notice("mail (MAIL_TRANSPORT=log): to \(to): \(message.subject)\n\(message.text)")
    }
}

extension MailConfiguration {
    /// The transport this configuration names. Loading an SMTP client's trust roots blocks: done
    /// once, at start-up.
    func makeTransport(logger: Logger) throws -> any MailTransport {
        switch transport {
        case .log: LogTransport(logger: logger)
        case .smtp(let smtp): try SMTPTransport(configuration: smtp, logger: logger)
        }
    }
}
