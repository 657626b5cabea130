import Logging
import NIOCore
import NIOPosix
import NIOSSL

/// Delivers ``MailMessage``s to one SMTP relay, one TCP connection per message.
///
/// Logs at debug level only; credentials and AUTH exchanges are never logged.
public struct SMTPClient: Sendable {
    public let configuration: SMTPConfiguration
    private let eventLoopGroup: any EventLoopGroup
    private let logger: Logger
    /// Nil when the configuration never uses TLS.
    private let tlsContext: NIOSSLContext?

    /// Blocks: reads the system trust store and ``SMTPConfiguration/additionalTrustRootsFile``.
    /// Create the client once at start-up (or on a thread pool), not per message.
    public init(
        configuration: SMTPConfiguration,
        eventLoopGroup: any EventLoopGroup = MultiThreadedEventLoopGroup.singleton,
        logger: Logger
    ) throws(SMTPConfigurationError) {
        if configuration.credentials != nil, configuration.security == .none {
            throw SMTPConfigurationError("Credentials are configured with TLS turned off: a password is never sent without TLS.")
        }
        if let name = configuration.ehloName, !DomainName.isValid(name) {
            throw SMTPConfigurationError("The EHLO name must be a host name such as mail.example.com.")
        }
        self.configuration = configuration
        self.eventLoopGroup = eventLoopGroup
        self.logger = logger
        if configuration.security == .none {
            self.tlsContext = nil
            return
        }
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.minimumTLSVersion = .tlsv12
        if let file = configuration.additionalTrustRootsFile {
            do {
                tls.additionalTrustRoots = [.certificates(try NIOSSLCertificate.fromPEMFile(file))]
            } catch {
                throw SMTPConfigurationError("The extra trust roots file '\(file)' could not be read as PEM certificates (\(error)).")
            }
        }
        do {
            self.tlsContext = try NIOSSLContext(configuration: tls)
        } catch {
            throw SMTPConfigurationError("The TLS settings for SMTP could not be loaded (\(error)).")
        }
    }

    /// Delivers one message: connect, EHLO, STARTTLS, AUTH, MAIL/RCPT/DATA, QUIT.
    ///
    /// Returns once the server accepted the message (250 after the data). Throws ``SMTPError``;
    /// retry later only when `isPermanent` is false. A failure after acceptance (e.g. during QUIT)
    /// is ignored, so a returned message is never sent twice by a retry.
    public func send(_ message: MailMessage) async throws(SMTPError) {
        let configuration = self.configuration
        let requiresTLS = configuration.credentials != nil || configuration.security == .startTLSRequired
        let deadline = NIODeadline.now() + TimeAmount(configuration.timeouts.total)
        var logger = self.logger
        logger[metadataKey: "smtp.message_id"] = "\(message.messageID)"
        let content = message.rendered()

        let connection = try await SMTPConnection.connect(
            configuration: configuration,
            implicitTLS: configuration.security == .implicitTLS ? self.tlsUpgrade() : nil,
            group: self.eventLoopGroup,
            deadline: deadline,
            logger: logger
        )
        do {
            try await withTaskCancellationHandler {
                try await self.converse(over: connection, message: message, content: content, requiresTLS: requiresTLS)
            } onCancel: {
                connection.channel.close(promise: nil)
            }
        } catch {
            let failure: SMTPError
            if Task.isCancelled {
                failure = .transient(.connection, "The send was cancelled.")
            } else {
                failure = SMTPChannelHandler.smtpError(from: error)
            }
            logger.debug("SMTP send failed", metadata: ["smtp.error": "\(failure)"])
            if [.rejected, .authenticationFailed, .tlsUnavailable].contains(failure.kind) {
                await connection.quitQuietly()
            } else {
                await connection.close()
            }
            throw failure
        }
        logger.debug("SMTP message accepted")
        await connection.quitQuietly()
    }

    private func converse(over connection: SMTPConnection, message: MailMessage, content: [UInt8], requiresTLS: Bool) async throws(SMTPError) {
        let configuration = self.configuration
        let greeting = try await connection.greeting()
        guard greeting.code == 220 else {
            throw .reply(greeting, to: "the connection")
        }
        let name = configuration.ehloName ?? Self.addressLiteral(connection.channel.localAddress)
        var capabilities = try await connection.hello(as: name)
        var isTLS = configuration.security == .implicitTLS

        if !isTLS, configuration.security != .none {
            if capabilities.startTLS {
                let reply = try await connection.command("STARTTLS", startTLS: self.tlsUpgrade())
                if reply.code == 220 {
                    isTLS = true
                    // RFC 3207 §4.2: forget what the server said in plain text and ask again.
                    capabilities = try await connection.hello(as: name)
                } else if requiresTLS {
                    throw .reply(reply, to: "STARTTLS")
                }
            }
        }
        if requiresTLS, !isTLS {
            throw SMTPError(
                .tlsUnavailable,
                permanent: false,
                "The server does not offer STARTTLS, which is required here: credentials are never sent without TLS."
            )
        }
        if let credentials = configuration.credentials {
            try await connection.authenticate(credentials, offered: capabilities.authMechanisms)
        }
        try await connection.transfer(
            from: message.from.address,
            to: message.to.map(\.address),
            content: content
        )
    }

    private func tlsUpgrade() -> TLSUpgrade {
        let configuration = self.configuration
        let name = configuration.tlsServerName ?? configuration.host
        // SNI can't carry an IP address; without a name NIOSSL checks the certificate against the peer IP.
        let isIPAddress = (try? SocketAddress(ipAddress: name, port: 0)) != nil
        return TLSUpgrade(context: self.tlsContext!, serverHostname: isIPAddress ? nil : name)
    }

    /// RFC 5321 §4.1.4: without a real host name, EHLO names the client by its address literal.
    private static func addressLiteral(_ address: SocketAddress?) -> String {
        switch address {
        case .v4?:
            return "[\(address!.ipAddress!)]"
        case .v6?:
            return "[IPv6:\(address!.ipAddress!)]"
        default:
            return "localhost"
        }
    }
}
