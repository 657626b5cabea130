/// Why a message was not sent. ``isPermanent`` tells an outbox whether a retry can help:
/// 5xx replies and unusable messages are permanent; 4xx replies, network, timeout and TLS
/// failures are transient. Messages never contain credentials.
public struct SMTPError: Error, Sendable, CustomStringConvertible {
    /// What went wrong, coarse enough to branch on.
    public enum Kind: Sendable, Equatable {
        /// The server refused a command (see ``replyCode``).
        case rejected
        /// AUTH failed, or the server offers no mechanism this client speaks (PLAIN, LOGIN).
        case authenticationFailed
        /// Credentials are configured (or STARTTLS is required) but the server offers no STARTTLS,
        /// so nothing was sent: AUTH never goes out in clear text.
        case tlsUnavailable
        /// TLS handshake or certificate verification failed.
        case tls
        /// Could not connect, or the connection broke.
        case connection
        /// A connect, reply or whole-send time limit ran out.
        case timeout
        /// The server's replies are not valid SMTP (or arrived where none was expected).
        case protocolViolation
        /// The message or address can't be sent as given (bad address, no recipient, …).
        case invalidMessage
    }

    public let kind: Kind
    /// True when retrying the same message can't succeed.
    public let isPermanent: Bool
    /// The server's reply code, when a reply caused the error.
    public let replyCode: Int?
    /// One sentence for logs; may quote the server's reply text.
    public let message: String

    init(_ kind: Kind, permanent: Bool, replyCode: Int? = nil, _ message: String) {
        self.kind = kind
        self.isPermanent = permanent
        self.replyCode = replyCode
        self.message = message
    }

    public var description: String {
        let lifetime = self.isPermanent ? "permanent" : "transient"
        return "SMTP \(lifetime) error (\(self.kind)): \(self.message)"
    }
}

extension SMTPError {
    static func transient(_ kind: Kind, _ message: String) -> SMTPError {
        SMTPError(kind, permanent: false, message)
    }

    static func invalidMessage(_ message: String) -> SMTPError {
        SMTPError(.invalidMessage, permanent: true, message)
    }

    /// A refusal classified by its reply code: 5xx permanent, anything else transient.
    static func reply(_ reply: SMTPReply, to command: String, kind: Kind = .rejected) -> SMTPError {
        SMTPError(
            kind,
            permanent: reply.code >= 500,
            replyCode: reply.code,
            "The server answered \(command) with \(reply.code) \(reply.text)"
        )
    }
}
