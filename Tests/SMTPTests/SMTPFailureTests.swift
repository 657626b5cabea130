import Foundation
import Logging
import NIOCore
import NIOPosix
import SMTP
import Testing

/// How failures are reported: permanent (don't retry) versus transient (retry later).
@Suite("SMTP failures")
struct SMTPFailureTests {
    private func send(_ configuration: SMTPConfiguration, _ message: MailMessage? = nil) async throws -> SMTPError? {
        let client = try SMTPClient(configuration: configuration, logger: Logger(label: "test"))
        let mail = try message ?? SMTPDeliveryTests.message()
        return await #expect(throws: SMTPError.self) { try await client.send(mail) }
    }

    @Test("wrong password: permanent authentication error, nothing delivered")
    func wrongPassword() async throws {
        try await SMTPSink.with(.init(tls: .startTLS, user: SMTPDeliveryTests.user)) { sink in
            let configuration = try SMTPDeliveryTests.configuration(
                "smtp://\(SMTPDeliveryTests.user.name):wrong-password@localhost:\(sink.port)",
                trusting: sink
            )
            let error = try await self.send(configuration)
            #expect(error?.kind == .authenticationFailed)
            #expect(error?.isPermanent == true)
            #expect(error?.replyCode == 535)
            #expect(error?.message.contains("wrong-password") == false)
            #expect(try sink.authAttempts().map(\.success) == [false])
            #expect(try sink.messages().isEmpty)
        }
    }

    @Test("credentials but no STARTTLS offered: AUTH is never sent, the send fails before MAIL")
    func noAuthWithoutTLS() async throws {
        // This server would accept AUTH in clear text; the client must not offer it the password.
        try await SMTPSink.with(.init(tls: .none, user: SMTPDeliveryTests.user, authWithoutTLS: true)) { sink in
            let configuration = try SMTPDeliveryTests.configuration(SMTPDeliveryTests.credentialsURL(scheme: "smtp", port: sink.port), trusting: sink)
            let error = try await self.send(configuration)
            #expect(error?.kind == .tlsUnavailable)
            #expect(error?.isPermanent == false)
            #expect(try sink.authAttempts().isEmpty)
            #expect(try sink.messages().isEmpty)
        }
    }

    @Test("credentials with TLS turned off are refused before connecting")
    func credentialsWithoutTLSRefused() throws {
        var configuration = try SMTPConfiguration(url: "smtp://u:p@127.0.0.1:25")
        configuration.security = .none
        #expect(throws: SMTPConfigurationError.self) {
            try SMTPClient(configuration: configuration, logger: Logger(label: "test"))
        }
    }

    @Test("an unreadable trust roots file or a bad EHLO name is a configuration error naming it")
    func badClientSettings() throws {
        var configuration = try SMTPConfiguration(url: "smtp://127.0.0.1:25")
        configuration.additionalTrustRootsFile = "/nonexistent/relay-ca.pem"
        let missingFile = #expect(throws: SMTPConfigurationError.self) {
            try SMTPClient(configuration: configuration, logger: Logger(label: "test"))
        }
        #expect(missingFile?.message.contains("/nonexistent/relay-ca.pem") == true)

        configuration.additionalTrustRootsFile = nil
        configuration.ehloName = "selfie.example\r\nRSET"
        #expect(throws: SMTPConfigurationError.self) {
            try SMTPClient(configuration: configuration, logger: Logger(label: "test"))
        }
    }

    @Test("a certificate the client does not trust: transient TLS error")
    func untrustedCertificate() async throws {
        try await SMTPSink.with(.init(tls: .startTLS)) { sink in
            var configuration = try SMTPDeliveryTests.configuration("smtp://localhost:\(sink.port)", trusting: nil)
            configuration.security = .startTLSRequired
            let error = try await self.send(configuration)
            #expect(error?.kind == .tls)
            #expect(error?.isPermanent == false)
            #expect(try sink.messages().isEmpty)
        }
    }

    @Test("refused recipients: 550 is permanent, 450 transient, and nothing is delivered")
    func refusedRecipients() async throws {
        try await SMTPSink.with { sink in
            let configuration = try SMTPDeliveryTests.configuration("smtp://127.0.0.1:\(sink.port)?starttls=off", trusting: sink)
            let permanent = try await self.send(configuration, SMTPDeliveryTests.message(to: [
                MailAddress("zoe@example.com"), MailAddress("reject-permanent@example.com"),
            ]))
            #expect(permanent?.kind == .rejected)
            #expect(permanent?.replyCode == 550)
            #expect(permanent?.isPermanent == true)
            #expect(permanent?.message.contains("No such user") == true)

            let transient = try await self.send(configuration, SMTPDeliveryTests.message(to: [MailAddress("reject-transient@example.com")]))
            #expect(transient?.replyCode == 450)
            #expect(transient?.isPermanent == false)
            #expect(try sink.messages().isEmpty)
        }
    }

    @Test("server down (connection refused): transient connection error")
    func serverDown() async throws {
        // Take a free port and release it, so nothing listens there.
        let listener = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .bind(host: "127.0.0.1", port: 0).get()
        let port = try #require(listener.localAddress?.port)
        try await listener.close()

        let configuration = try SMTPDeliveryTests.configuration("smtp://127.0.0.1:\(port)?starttls=off", trusting: nil)
        let error = try await self.send(configuration)
        #expect(error?.kind == .connection)
        #expect(error?.isPermanent == false)
    }

    @Test("a server that never accepts the connection: connect timeout within the configured time")
    func connectTimeout() async throws {
        try await SMTPSink.with(.init(unreachable: true)) { sink in
            var configuration = try SMTPDeliveryTests.configuration("smtp://127.0.0.1:\(sink.port)?starttls=off", trusting: sink)
            configuration.timeouts = .init(connect: .milliseconds(600), reply: .seconds(120), total: .seconds(120))
            let clock = ContinuousClock()
            let start = clock.now
            let error = try await self.send(configuration)
            let elapsed = clock.now - start
            #expect(error?.kind == .timeout, "\(String(describing: error))")
            #expect(error?.isPermanent == false)
            #expect(elapsed >= .milliseconds(600))
            #expect(elapsed < .seconds(60), "well before the 120 s the other limits allow (a loaded machine is slow to start a send)")
        }
    }

    @Test("a server that never answers: reply timeout within the configured time")
    func replyTimeout() async throws {
        try await SMTPSink.with(.init(silent: true)) { sink in
            var configuration = try SMTPDeliveryTests.configuration("smtp://127.0.0.1:\(sink.port)?starttls=off", trusting: sink)
            configuration.timeouts = .init(connect: .seconds(120), reply: .milliseconds(800), total: .seconds(120))
            let clock = ContinuousClock()
            let start = clock.now
            let error = try await self.send(configuration)
            let elapsed = clock.now - start
            #expect(error?.kind == .timeout)
            #expect(error?.isPermanent == false)
            #expect(elapsed >= .milliseconds(800))
            #expect(elapsed < .seconds(60), "well before the 120 s the other limits allow (a loaded machine is slow to start a send)")
        }
    }

    @Test("the whole-send limit applies even when each reply limit is longer")
    func totalTimeout() async throws {
        try await SMTPSink.with(.init(silent: true)) { sink in
            var configuration = try SMTPDeliveryTests.configuration("smtp://127.0.0.1:\(sink.port)?starttls=off", trusting: sink)
            configuration.timeouts = .init(connect: .seconds(120), reply: .seconds(120), total: .milliseconds(700))
            let clock = ContinuousClock()
            let start = clock.now
            let error = try await self.send(configuration)
            let elapsed = clock.now - start
            #expect(error?.kind == .timeout)
            #expect(elapsed >= .milliseconds(700))
            #expect(elapsed < .seconds(60), "well before the 120 s the other limits allow (a loaded machine is slow to start a send)")
        }
    }

    @Test("cancelling the sending task ends the send promptly with a transient error")
    func cancellation() async throws {
        try await SMTPSink.with(.init(silent: true)) { sink in
            let configuration = try SMTPDeliveryTests.configuration("smtp://127.0.0.1:\(sink.port)?starttls=off", trusting: sink)
            let client = try SMTPClient(configuration: configuration, logger: Logger(label: "test"))
            let message = try SMTPDeliveryTests.message()
            let task = Task { () -> SMTPError? in
                do throws(SMTPError) {
                    try await client.send(message)
                    return nil
                } catch {
                    return error
                }
            }
            try await Task.sleep(for: .milliseconds(300))
            let clock = ContinuousClock()
            let start = clock.now
            task.cancel()
            let error = await task.value
            // Well before the 30 s reply limit that would otherwise end it (a loaded machine is slow).
            #expect(clock.now - start < .seconds(15))
            #expect(error?.isPermanent == false)
        }
    }
}
