import Foundation
import Logging
import SMTP
import Testing

/// Delivery to a real SMTP server (aiosmtpd), read back and parsed by Python's `email` package.
@Suite("SMTP delivery to aiosmtpd")
struct SMTPDeliveryTests {
    static let user = (name: "mailer@selfie.example", password: "correct horse:battery@staple")

    static let text = """
        Hello Zoë,

        Reset your password: https://selfie.example/reset?token=abc123&next=%2Fhome
        .this line starts with a dot
        .
        Trailing spaces stay   
        Ünïcödé — 日本語 — 🔐
        """
    static let html = """
        <p>Hello Zoë,</p>
        .<p><a href="https://selfie.example/reset?token=abc123">Reset</a> — 日本語 🔐</p>
        """
    static let subject = "Réinitialisation du mot de passe — Selfie 🔐 (ça expire dans 30 minutes, ne tardez pas)"

    static func message(to recipients: [MailAddress]? = nil) throws -> MailMessage {
        try MailMessage(
            from: MailAddress("noreply@selfie.example", displayName: "Selfie Sécurité"),
            to: recipients ?? [MailAddress("zoe@example.com", displayName: "Zoë Dupré"), MailAddress("bob@example.org")],
            subject: Self.subject,
            text: Self.text,
            html: Self.html
        )
    }

    /// A configuration with short timeouts, trusting the sink's certificate when one is given.
    static func configuration(_ url: String, trusting sink: SMTPSink?) throws -> SMTPConfiguration {
        var configuration = try SMTPConfiguration(url: url)
        configuration.additionalTrustRootsFile = sink?.certificatePath
        configuration.timeouts = .init(connect: .seconds(5), reply: .seconds(10), total: .seconds(30))
        return configuration
    }

    /// TLS tests name the server `localhost`, the name in the test certificate (the sink listens on 127.0.0.1).
    static func credentialsURL(scheme: String, port: Int, host: String = "localhost") -> String {
        let user = Self.user.name.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        let password = Self.user.password.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
        return "\(scheme)://\(user):\(password)@\(host):\(port)"
    }

    /// Everything a reader would check on the received copy of ``message(to:)``.
    static func expectDelivered(_ received: ReceivedMessage, sent: MailMessage) {
        #expect(received.mail_from == "noreply@selfie.example")
        #expect(received.rcpt_tos == sent.to.map(\.address))
        #expect(received.defects.isEmpty, "parser defects: \(received.defects)")
        #expect(received.headers["subject"] == Self.subject)
        #expect(received.from == [.init(display_name: "Selfie Sécurité", addr_spec: "noreply@selfie.example")])
        #expect(received.to == sent.to.map { .init(display_name: $0.displayName ?? "", addr_spec: $0.address) })
        #expect(received.headers["message-id"] == "<\(sent.messageID)>")
        #expect(received.headers["mime-version"] == "1.0")
        #expect(received.headers["date"]?.hasSuffix("+0000") == true)
        #expect(received.content_type == "multipart/alternative")
        #expect(received.parts.map(\.content_type) == ["text/plain", "text/html"])
        #expect(received.parts.allSatisfy { $0.charset == "utf-8" && $0.transfer_encoding == "quoted-printable" })
        #expect(received.parts.first?.normalizedText == Self.text)
        #expect(received.parts.last?.normalizedText == Self.html)
        #expect(received.longest_line <= 78)
        #expect(received.bare_line_feeds == 0)
    }

    @Test("plain: multipart message with non-ASCII and dot lines arrives intact to two recipients")
    func plainDelivery() async throws {
        try await SMTPSink.with { sink in
            let configuration = try Self.configuration("smtp://127.0.0.1:\(sink.port)?starttls=off", trusting: sink)
            let client = try SMTPClient(configuration: configuration, logger: Logger(label: "test"))
            let message = try Self.message()
            try await client.send(message)
            let received = try sink.messages()
            try #require(received.count == 1)
            Self.expectDelivered(received[0], sent: message)
            #expect(received[0].tls == false)
        }
    }

    @Test("a server that doesn't know EHLO gets HELO and still receives the message")
    func heloFallback() async throws {
        try await SMTPSink.with(.init(heloOnly: true)) { sink in
            let configuration = try Self.configuration("smtp://127.0.0.1:\(sink.port)", trusting: sink)
            let logs = LogCapture()
            let message = try Self.message()
            try await SMTPClient(configuration: configuration, logger: logs.logger()).send(message)
            #expect(logs.all.contains { $0.contains(">>> HELO [127.0.0.1]") })
            let received = try sink.messages()
            try #require(received.count == 1)
            Self.expectDelivered(received[0], sent: message)
        }
    }

    @Test("smtp:// without credentials upgrades to TLS when the server offers STARTTLS")
    func opportunisticStartTLS() async throws {
        try await SMTPSink.with(.init(tls: .startTLS)) { sink in
            let configuration = try Self.configuration("smtp://localhost:\(sink.port)", trusting: sink)
            let client = try SMTPClient(configuration: configuration, logger: Logger(label: "test"))
            try await client.send(try Self.message())
            #expect(try sink.messages().map(\.tls) == [true])
        }
    }

    @Test("STARTTLS + AUTH PLAIN: authenticated over TLS, password never logged", arguments: ["PLAIN", "LOGIN"])
    func startTLSWithAuth(mechanism: String) async throws {
        let options = SMTPSink.Options(tls: .startTLS, user: Self.user, mechanisms: [mechanism])
        try await SMTPSink.with(options) { sink in
            let configuration = try Self.configuration(Self.credentialsURL(scheme: "smtp", port: sink.port), trusting: sink)
            #expect(configuration.security == .startTLSRequired)
            let logs = LogCapture()
            let client = try SMTPClient(configuration: configuration, logger: logs.logger())
            let message = try Self.message()
            try await client.send(message)

            let received = try sink.messages()
            try #require(received.count == 1)
            Self.expectDelivered(received[0], sent: message)
            #expect(received[0].tls)
            #expect(received[0].authenticated_as == Self.user.name)
            let attempts = try sink.authAttempts()
            #expect(attempts.map(\.mechanism) == [mechanism])
            #expect(attempts.allSatisfy { $0.success && $0.tls })

            let logged = logs.all.joined(separator: "\n")
            #expect(logs.all.contains { $0.contains("STARTTLS") }, "the dialogue is logged at debug")
            #expect(logs.all.allSatisfy { $0.hasPrefix("debug ") })
            let secrets = [
                Self.user.password,
                Data(Self.user.password.utf8).base64EncodedString(),
                Data(Self.user.name.utf8).base64EncodedString(),
                Data("\0\(Self.user.name)\0\(Self.user.password)".utf8).base64EncodedString(),
            ]
            for secret in secrets {
                #expect(!logged.contains(secret))
            }
        }
    }

    @Test("implicit TLS (smtps://) with AUTH")
    func implicitTLS() async throws {
        try await SMTPSink.with(.init(tls: .implicit, user: Self.user)) { sink in
            let configuration = try Self.configuration(Self.credentialsURL(scheme: "smtps", port: sink.port), trusting: sink)
            let client = try SMTPClient(configuration: configuration, logger: Logger(label: "test"))
            let message = try Self.message()
            try await client.send(message)
            let received = try sink.messages()
            try #require(received.count == 1)
            Self.expectDelivered(received[0], sent: message)
            #expect(received[0].authenticated_as == Self.user.name)
        }
    }

    @Test("the certificate is checked against the TLS server name override, else against the host")
    func serverNameOverride() async throws {
        try await SMTPSink.with(.init(tls: .implicit)) { sink in
            var configuration = try Self.configuration("smtps://127.0.0.1:\(sink.port)", trusting: sink)
            func send() async -> SMTPError? {
                await #expect(throws: SMTPError.self) {
                    try await SMTPClient(configuration: configuration, logger: Logger(label: "test")).send(try Self.message())
                }
            }
            // The certificate names localhost, not 127.0.0.1.
            let byAddress = await send()
            #expect(byAddress?.kind == .tls)
            #expect(byAddress?.isPermanent == false)

            configuration.tlsServerName = "mail.other.example"
            #expect(await send()?.kind == .tls)
            #expect(try sink.messages().isEmpty)

            configuration.tlsServerName = "localhost"
            try await SMTPClient(configuration: configuration, logger: Logger(label: "test")).send(try Self.message())
            #expect(try sink.messages().count == 1)
        }
    }

    @Test("CR/LF smuggled into subject and display name arrive as plain text, not as headers")
    func headerInjectionOverTheWire() async throws {
        try await SMTPSink.with { sink in
            let configuration = try Self.configuration("smtp://127.0.0.1:\(sink.port)?starttls=off", trusting: sink)
            let message = try MailMessage(
                from: MailAddress("noreply@selfie.example", displayName: "Selfie\r\nBcc: victim@example.com"),
                to: [MailAddress("zoe@example.com")],
                subject: "Welcome\r\nBcc: victim@example.com",
                text: "Hi"
            )
            try await SMTPClient(configuration: configuration, logger: Logger(label: "test")).send(message)
            let received = try #require(try sink.messages().first)
            #expect(received.rcpt_tos == ["zoe@example.com"])
            #expect(!received.header_names.contains { $0.lowercased() == "bcc" })
            #expect(received.headers["subject"] == "Welcome Bcc: victim@example.com")
            #expect(received.from.first?.display_name == "Selfie Bcc: victim@example.com")
            // A single-part body always ends with a line break (DATA content ends in CRLF).
            #expect(received.parts.map(\.normalizedText) == ["Hi\n"])
        }
    }
}
