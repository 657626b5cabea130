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

/// Writes each message to the log: what a developer follows with `make run` (link included).
/// Behind a `PUBLIC_URL` other machines reach (not `localhost`) it is a real deployment whose mail
/// is not set up, and a link in its log would hand accounts to whoever reads the log: then only
/// recipient and subject.
struct LogTransport: MailTransport {
    let logger: Logger
    let withholdsLinks: Bool

    func send(_ message: MailMessage) async throws {
        let to = message.to.map(\.address).joined(separator: ", ")
        if withholdsLinks {
            logger.warning("mail not sent (MAIL_TRANSPORT=log): to \(to): \(message.subject)")
        } else {
            logger.notice("mail (MAIL_TRANSPORT=log): to \(to): \(message.subject)\n\(message.text)")
        }
    }
}

extension MailConfiguration {
    /// The transport this configuration names. Loading an SMTP client's trust roots blocks: done
    /// once, at start-up. `publicSite` keeps links out of the log transport's lines.
    func makeTransport(publicSite: Bool, logger: Logger) throws -> any MailTransport {
        switch transport {
        case .log:
            let notSending = isNotSending(publicSite: publicSite)
            if notSending {
                logger.warning("mail is not being sent: MAIL_TRANSPORT=log writes only recipients and subjects; set MAIL_TRANSPORT=smtp and SMTP_URL")
            }
            return LogTransport(logger: logger, withholdsLinks: notSending)
        case .smtp(let smtp):
            return try SMTPTransport(configuration: smtp, logger: logger)
        }
    }

    /// Whether people get no mail at all: the log transport on a site other machines reach.
    public func isNotSending(publicSite: Bool) -> Bool {
        if case .log = transport { return publicSite }
        return false
    }
}
