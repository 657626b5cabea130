@testable import App
@testable import SelfieCore
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Logging
import PostgresNIO
import SMTP
import Synchronization
import Testing

/// Mail as it leaves Selfie: composed from the templates, through the outbox, over SMTP (STARTTLS
/// and AUTH) to a real server, retried when refused for now, given up (and shown to admins) when
/// refused for good, and never sent twice by two senders.
@Suite("Mail delivery")
struct MailDeliveryTests {
    @Test("a message as received: both parts, the link in each, headers encoded (RFC 2047), names escaped in HTML, over STARTTLS with AUTH; an address not yet confirmed is not named")
    func messageAsReceived() async throws {
        try await withTestApp(configure: { try $0.useMailSink() }) { app in
            let email = uniqueEmail("zoe")
            _ = try await app.browser().submitSignUp(name: "Zoë <Ünal>", email: email)
            let mail = try await MailSink.waitForMessage(to: email, subject: "Confirm your email address for Selfie")
            #expect(mail.tls, "STARTTLS was in force")
            #expect(mail.authenticated_as == "selfie-test")
            #expect(mail.defects.isEmpty, "\(mail.defects)")
            #expect(mail.mail_from == "selfie@selfie.test")
            #expect(mail.from.first?.display_name == "Selfie")
            #expect(mail.messageID.hasPrefix("<") && mail.messageID.hasSuffix("@selfie.test>"))
            #expect(mail.headers["date"]?.isEmpty == false)
            #expect(mail.headers["content-type"]?.hasPrefix("multipart/alternative") == true)
            // Whoever signed up with the address chose the name: it does not go to the address.
            #expect(mail.text.contains("Hello there,") && !mail.text.contains("Zoë") && !mail.html.contains("Zoë"))
            #expect(try !mail.rawHeaders().lowercased().contains("to: =?utf-8?") && mail.headers["to"]?.contains("Zo") == false)
            let link = try mail.link(to: "/verify-email")
            #expect(mail.html.contains("http://localhost" + link.replacingOccurrences(of: "&", with: "&amp;")))
            #expect(try await app.browser().get(link).status == .ok, "the link works")

            // Confirmed, the account's mail greets it by name.
            try await app.confirmAddress(of: email)
            try await app.browser().submit("/password/forgot", from: "/password/forgot", [("email", email)])
            let named = try await MailSink.waitForMessage(to: email, subject: "Reset your Selfie password")
            #expect(named.headers["to"]?.contains("Zoë <Ünal>") == true || named.headers["to"]?.contains(#""Zoë <Ünal>""#) == true)
            #expect(try named.rawHeaders().lowercased().contains("to: =?utf-8?"), "the non-ASCII name is an encoded word")
            #expect(named.text.contains("Hello Zoë <Ünal>"), "plain text is not escaped")
            #expect(named.html.contains("Zoë &lt;Ünal&gt;"), "the HTML part escapes the name")
            #expect(!named.html.contains("<Ünal>"))
        }
    }

    @Test("with MAIL_TRANSPORT=log (the default) the message, link included, is written to the server log")
    func logTransport() async throws {
        let capture = LogCapture()
        try await withTestApp(logger: capture.logger(level: .info)) { app in
            let email = uniqueEmail("developer")
            _ = try await app.browser().submitSignUp(email: email)
            let deadline = ContinuousClock.now + .seconds(10)
            while !capture.all.contains(where: { $0.contains("mail (MAIL_TRANSPORT=log): to \(email)") }), ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(50))
            }
            let line = try #require(capture.all.first { $0.contains("mail (MAIL_TRANSPORT=log): to \(email)") })
            #expect(line.contains("Confirm your email address for Selfie"))
            #expect(line.contains("http://localhost/verify-email?token="))
        }
    }

    @Test("no secret in any log line: link tokens, passwords and the SMTP password stay out, even at trace level")
    func noSecretsInLogs() async throws {
        let capture = LogCapture()
        try await withTestApp(configure: { try $0.useMailSink() }, logger: capture.logger(level: .trace)) { app in
            let email = uniqueEmail("secrets")
            let browser = app.browser()
            try await browser.signUp(email: email, password: "first secret password")
            let verify = try await MailSink.waitForMessage(to: email, subject: "Confirm your email address")
            try await browser.submit("/password/forgot", from: "/password/forgot", [("email", email)])
            let reset = try await MailSink.waitForMessage(to: email, subject: "Reset your Selfie password")
            let token = try reset.token(in: "/password/reset")
            try await browser.get(try reset.link(to: "/password/reset"))
            try await browser.submit(
                "/password/reset", from: try reset.link(to: "/password/reset"),
                [("token", token), ("new_password", "second secret password"), ("new_password_confirmation", "second secret password")]
            )
            try await MailSink.waitForMessage(to: email, subject: "Your Selfie password was changed")
            let secrets = [try verify.token(in: "/verify-email"), token, "first secret password", "second secret password", "sink-password"]
            let lines = capture.all
            #expect(lines.count > 20, "the capture saw the traffic")
            for secret in secrets {
                #expect(!lines.contains { $0.contains(secret) }, "a log line contains \(secret.prefix(6))…")
            }
        }
    }

    @Test("a refusal whose text carries control characters (a NUL, which PostgreSQL's text refuses) is recorded like any other: given up once, not retried every two seconds")
    func garbledRefusal() async throws {
        try await withTestApp(configure: { try $0.useMailSink() }) { app in
            let recipient = "reject-garbled@\(UUID().uuidString.prefix(8).lowercased()).example"
            _ = try await app.api.signUp(email: recipient)
            try await waitUntil {
                try await app.scalar("SELECT count(*)::int FROM mail_outbox WHERE recipient = \(recipient) AND failed_at IS NOT NULL") == 1
            }
            let error: String = try await app.scalar("SELECT last_error FROM mail_outbox WHERE recipient = \(recipient)")
            #expect(error.contains("550") && error.contains("No such user here"), "\(error)")
            #expect(try await app.scalar("SELECT attempts FROM mail_outbox WHERE recipient = \(recipient)", as: Int.self) == 1)
        }
    }

    @Test("refused for now (450): retried later with backoff; refused for good (550): given up and shown on the admin mail page")
    func refusals() async throws {
        try await withTestApp(configure: { try $0.useMailSink() }) { app in
            let domain = "\(UUID().uuidString.prefix(8).lowercased()).example"
            _ = try await app.api.signUp(email: "reject-transient@\(domain)")
            _ = try await app.api.signUp(email: "reject-permanent@\(domain)")
            try await waitUntil {
                let settled: Int = try await app.scalar(
                    "SELECT count(*)::int FROM mail_outbox WHERE recipient LIKE \("%@" + domain) AND last_error IS NOT NULL"
                )
                return settled == 2
            }
            let (attempts, retryIn, failed): (Int, Double, Bool) = try await app.db { client in
                let rows = try await client.query(
                    """
                    SELECT attempts, extract(epoch FROM next_attempt_at - now())::float8, failed_at IS NOT NULL
                    FROM mail_outbox WHERE recipient = \("reject-transient@" + domain)
                    """
                )
                for try await row in rows.decode((Int, Double, Bool).self) { return row }
                throw TestSetupError("no row")
            }
            #expect(attempts == 1)
            #expect(retryIn > 20 && retryIn <= 30, "the first retry waits 30 s")
            #expect(!failed)
            let permanent: String = try await app.scalar(
                "SELECT last_error FROM mail_outbox WHERE recipient = \("reject-permanent@" + domain) AND failed_at IS NOT NULL"
            )
            #expect(permanent.contains("550"))

            let admin = try await app.signedInAdmin()
            let page = try await admin.get("/admin/mail")
            #expect(page.status == .ok)
            #expect(page.text.contains("reject-permanent@\(domain)"))
            #expect(page.text.contains("<code>verify_email</code>"))
            #expect(page.text.contains("550"))
            #expect(!page.text.contains("reject-transient@\(domain)"), "still being retried: counted as waiting, not failed")
            #expect(page.text.contains(#"<strong class="number">1</strong> message waiting to be delivered"#))
            #expect(try await app.browser().get("/admin/mail").status == .seeOther, "admins only")
            let params: String = try await app.scalar("SELECT params::text FROM mail_outbox WHERE recipient = \("reject-permanent@" + domain)")
            #expect(params == "{}", "a given-up message keeps no token")
        }
    }

    @Test("an idle sender waits between looks at the outbox: a few transactions in five seconds, not a busy loop")
    func idleSenderStaysIdle() async throws {
        try await withTestApp(configure: { try $0.useMailSink() }) { app in
            // One message through first: the sender has been through its wait at least once.
            let email = uniqueEmail("idle")
            _ = try await app.browser().submitSignUp(name: "Idle", email: email)
            _ = try await MailSink.waitForMessage(to: email, subject: "Confirm your email address")
            try await Task.sleep(for: .seconds(3))
            let commits = "SELECT xact_commit::int FROM pg_stat_database WHERE datname = current_database()" as PostgresQuery
            let before = try await app.scalar(commits, as: Int.self)
            try await Task.sleep(for: .seconds(5))
            let after = try await app.scalar(commits, as: Int.self)
            // Polling every 2 s is about three transactions (the statistics arrive within a second).
            #expect(after - before < 40, "\(after - before) transactions in 5 s while nothing was queued")
        }
    }

    @Test("a message being sent is skipped by other senders; when its sender dies mid-send the lock goes with it and another delivers it once")
    func senderDiesMidSend() async throws {
        try await withFreshDatabase { database in
            var config = try AppConfiguration.testing(database: database)
            try config.useMailSink()
            let email = uniqueEmail("orphan")
            let messageID = "orphan-\(UUID().uuidString.lowercased())@selfie.test"
            let dying = PostgresClient(configuration: config.database.clientConfiguration, backgroundLogger: testLogger)
            let surviving = PostgresClient(configuration: config.database.clientConfiguration, backgroundLogger: testLogger)
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask { await dying.run() }
                group.addTask { await surviving.run() }
                try await surviving.query(
                    "INSERT INTO mail_outbox (message_id, recipient, kind) VALUES (\(messageID), \(email), 'password_changed')"
                )
                // One instance's sender takes the message (its transaction holds the row) and then
                // hangs, as on a stuck SMTP server.
                let (held, holding) = AsyncStream.makeStream(of: Int32.self)
                group.addTask {
                    try await dying.withConnection { connection in
                        try await connection.query("BEGIN", logger: testLogger)
                        _ = try await connection.query("SELECT id FROM mail_outbox WHERE recipient = \(email) FOR UPDATE SKIP LOCKED", logger: testLogger).collect()
                        for try await pid in try await connection.query("SELECT pg_backend_pid()", logger: testLogger).decode(Int32.self) { holding.yield(pid) }
                        try await Task.sleep(for: .seconds(120))
                    }
                }
                var pids = held.makeAsyncIterator()
                let pid = try #require(await pids.next())

                let composer = try MailTemplates(directory: "\(repositoryRoot)/Templates/mail", translations: Translations(directory: "\(repositoryRoot)/Locales"), publicURL: config.publicURL)
                let sender = try MailSender(
                    outbox: MailOutboxRepository(client: surviving, messageIDDomain: "selfie.test", logger: testLogger),
                    configuration: config.mail,
                    publicSite: false,
                    composer: composer,
                    logger: testLogger
                )
                try await whileSending([sender]) {
                    try await Task.sleep(for: .seconds(3))
                    #expect(try MailSink.messages(to: email).isEmpty, "the other sender skips a message being sent")

                    // The first sender's process dies: its connection (and the row lock) goes with it.
                    try await surviving.query("SELECT pg_terminate_backend(\(pid))")
                    let delivered = try await MailSink.waitForMessage(to: email, subject: "password was changed")
                    #expect(delivered.messageID == "<\(messageID)>", "the same message, not a new one")
                    try await Task.sleep(for: .seconds(3))
                }
                #expect(try MailSink.messages(to: email).count == 1)
                var rows: [String] = []
                for try await (attempts, sent) in try await surviving.query("SELECT attempts, sent_at IS NOT NULL FROM mail_outbox WHERE recipient = \(email)").decode((Int, Bool).self) {
                    rows.append("\(attempts) \(sent)")
                }
                #expect(rows == ["1 true"], "one message, sent, at its first attempt (the attempt that died left no trace)")
                group.cancelAll()
            }
        }
    }

    @Test("a message of a kind this build does not know (queued by a newer instance in a rolling upgrade) is left for a sender that knows it: not given up, its link kept")
    func unknownKindLeftAlone() async throws {
        try await withTestApp { app in
            try await app.db {
                try await $0.query(
                    """
                    INSERT INTO mail_outbox (message_id, recipient, kind, params)
                    VALUES ('<future@selfie.test>', 'someone@example.com', 'future_kind', '{"token":"a link a newer build mails"}'::jsonb)
                    """
                )
            }
            let delivered = try await app.db { client in
                try await MailOutboxRepository(client: client, messageIDDomain: "selfie.test", logger: testLogger).deliverNext { _ in .sent }
            }
            #expect(!delivered, "nothing this sender can send is due")
            // The app's own sender has looked meanwhile too.
            try await Task.sleep(for: .seconds(3))
            let (failed, sent, attempts, params): (Bool, Bool, Int, String) = try await app.db { connection in
                let rows = try await connection.query("SELECT failed_at IS NOT NULL, sent_at IS NOT NULL, attempts, params::text FROM mail_outbox WHERE kind = 'future_kind'")
                for try await row in rows.decode((Bool, Bool, Int, String).self) { return row }
                throw TestSetupError("the message is gone")
            }
            #expect(!failed && !sent && attempts == 0)
            #expect(params.contains("a link a newer build mails"))
        }
    }

    @Test("a retry is counted from the attempt's end: an attempt slower than its retry delay is not due again the moment it is recorded (a slow server that did receive the message gets no instant second copy)")
    func retryCountedFromTheAttemptsEnd() async throws {
        try await withFreshDatabase { url in
            try await withDatabase(url) { client in
                try await client.query(
                    "INSERT INTO mail_outbox (message_id, recipient, kind, params) VALUES ('<slow@selfie.test>', 'someone@example.com', 'password_changed', '{}'::jsonb)"
                )
                let outbox = MailOutboxRepository(client: client, messageIDDomain: "selfie.test", logger: testLogger)
                let attempted = try await outbox.deliverNext { _ in
                    try? await Task.sleep(for: .seconds(2))
                    return .retry(after: .seconds(1), error: "451 try again later")
                }
                #expect(attempted)
                let rows = try await client.query("SELECT next_attempt_at > now(), attempts FROM mail_outbox WHERE message_id = '<slow@selfie.test>'").collect()
                let (notYetDue, attempts) = try #require(rows.first).decode((Bool, Int).self)
                #expect(notYetDue, "due 1 s after the attempt ended, not 1 s after it began 2 s ago")
                #expect(attempts == 1)
                #expect(try await outbox.deliverNext { _ in .sent } == false, "nothing is due right after the attempt")
            }
        }
    }

    @Test("a message whose link expired (or was used) while it waited for the mail server is not sent but given up, said so; one whose link works is sent")
    func deadLinkNotSent() async throws {
        try await withFreshDatabase { url in
            try await withDatabase(url) { client in
                try await client.query("INSERT INTO users (email, full_name, password_hash) VALUES ('waiting@example.com', 'W', 'x')")
                for (token, expiry) in [("expired-link-token", "now() - interval '1 minute'"), ("working-link-token", "now() + interval '1 hour'")] {
                    try await client.query(
                        """
                        INSERT INTO email_tokens (token_hash, purpose, user_id, email, expires_at)
                        SELECT sha256(convert_to(\(token), 'UTF8')), 'reset_password', id, email, \(unescaped: expiry) FROM users
                        """
                    )
                    try await client.query(
                        """
                        INSERT INTO mail_outbox (message_id, recipient, kind, params)
                        VALUES (\("<\(token)@selfie.test>"), 'waiting@example.com', 'password_reset', jsonb_build_object('token', \(token)))
                        """
                    )
                }
                let outbox = MailOutboxRepository(client: client, messageIDDomain: "selfie.test", logger: testLogger)
                let delivered = Mutex<[String]>([])
                while try await outbox.deliverNext({ message in
                    delivered.withLock { $0.append(message.messageID) }
                    return .sent
                }) {}
                #expect(delivered.withLock { $0 } == ["<working-link-token@selfie.test>"])
                let rows = try await client.query("SELECT message_id, failed_at IS NOT NULL, coalesce(last_error, '') FROM mail_outbox ORDER BY message_id").collect()
                let outcomes = try rows.map { try $0.decode((String, Bool, String).self) }
                #expect(outcomes.count == 2)
                #expect(outcomes.first { $0.0 == "<expired-link-token@selfie.test>" }.map { $0.1 && $0.2.contains("expired") } == true, "\(outcomes)")
                #expect(outcomes.first { $0.0 == "<working-link-token@selfie.test>" }?.1 == false)
            }
        }
    }

    @Test("two senders on one outbox (two instances): every message delivered exactly once")
    func twoSenders() async throws {
        try await withTestApp(configure: { try $0.useMailSink() }) { app in
            let composer = try MailTemplates(directory: "\(repositoryRoot)/Templates/mail", translations: Translations(directory: "\(repositoryRoot)/Locales"), publicURL: app.config.publicURL)
            let recipients = (0..<40).map { _ in uniqueEmail("many") }
            let clients = (0..<2).map { _ in PostgresClient(configuration: app.config.database.clientConfiguration, backgroundLogger: testLogger) }
            try await withThrowingTaskGroup(of: Void.self) { running in
                for client in clients { running.addTask { await client.run() } }
                let senders = try clients.map { client in
                    try MailSender(
                        outbox: MailOutboxRepository(client: client, messageIDDomain: "selfie.test", logger: testLogger),
                        configuration: app.config.mail,
                        publicSite: false,
                        composer: composer,
                        logger: testLogger
                    )
                }
                try await whileSending(senders) {
                    let queue = MailOutboxRepository(client: clients[0], messageIDDomain: "selfie.test", logger: testLogger)
                    for recipient in recipients {
                        try await queue.enqueue(.passwordChanged, to: MailRecipient(address: recipient, name: nil))
                    }
                    for recipient in recipients {
                        try await MailSink.waitForMessage(to: recipient, subject: "password was changed", timeout: .seconds(30))
                    }
                }
                running.cancelAll()
            }
            try await Task.sleep(for: .seconds(1))
            let received = try recipients.flatMap { try MailSink.messages(to: $0) }
            #expect(received.count == recipients.count, "one message each, none twice")
            #expect(Set(received.map(\.messageID)).count == recipients.count)
        }
    }
}

/// Runs `senders` while `body` runs, then stops them and waits until they have: before their
/// PostgreSQL clients stop (a sender asking a stopped client for a connection would wait forever,
/// which is why an instance's service group stops the sender first too).
func whileSending(_ senders: [MailSender], _ body: () async throws -> Void) async throws {
    try await withThrowingTaskGroup(of: Void.self) { group in
        for sender in senders { group.addTask { try await sender.run() } }
        do {
            try await body()
        } catch {
            group.cancelAll()
            throw error
        }
        group.cancelAll()
        try await group.waitForAll()
    }
}

/// Polls `condition` every 50 ms until it holds (or fails after `timeout`).
func waitUntil(timeout: Duration = .seconds(15), _ condition: () async throws -> Bool) async throws {
    let deadline = ContinuousClock.now + timeout
    while try await !condition() {
        guard ContinuousClock.now < deadline else { throw TestSetupError("the condition did not hold within \(timeout)") }
        try await Task.sleep(for: .milliseconds(50))
    }
}

@Suite("Mail to the log")
struct LogTransportTests {
    @Test(
        "attack: with a PUBLIC_URL other machines reach (https, or http on a name that is not this machine's), MAIL_TRANSPORT=log writes subject and recipient only, never a link or token, and warns at start-up",
        arguments: ["https://selfie.example", "http://photos.example.com:8080"]
    )
    func noLinksInTheLog(publicURL: String) async throws {
        let capture = LogCapture()
        try await withTestApp(configure: { $0.publicURL = URL(string: publicURL)! }, logger: capture.logger(level: .info)) { app in
            let email = uniqueEmail("logged")
            _ = try await app.api.signUp(email: email)
            let asked = try await app.api.send(.post, "/api/forgot_password", body: #"{"email":"\#(email)"}"#, authorization: app.api.basicAuthorization)
            #expect(asked.status == .ok)
            var sent = 0
            for _ in 0..<100 where sent < 2 {
                try await Task.sleep(for: .milliseconds(100))
                sent = try await app.scalar("SELECT count(*)::int FROM mail_outbox WHERE sent_at IS NOT NULL")
            }
            #expect(sent == 2, "the confirmation and the reset mail went to the log")
            let lines = capture.all
            #expect(lines.contains { $0.contains("Reset your Selfie password") && $0.contains(email) }, "subject and recipient are logged")
            #expect(!lines.contains { $0.contains("token=") || $0.contains("/password/reset") || $0.contains("/verify-email") }, "no link, no token")
            #expect(lines.contains { $0.contains("mail is not being sent") }, "a warning at start-up")
        }
    }
}

