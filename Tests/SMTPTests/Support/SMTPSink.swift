import Foundation

/// The Python aiosmtpd sink (Resources/smtp_sink.py) running on a free loopback port.
struct SMTPSink: Sendable {
    enum TLSMode: String, Sendable {
        case none
        case startTLS = "starttls"
        case implicit
    }

    struct Options: Sendable {
        var tls: TLSMode = .none
        /// The one user the sink's authenticator accepts; nil: no AUTH offered.
        var user: (name: String, password: String)?
        var mechanisms = ["PLAIN", "LOGIN"]
        var authWithoutTLS = false
        var silent = false
        /// Listen with a full backlog and never accept: connects hang.
        var unreachable = false
        /// Answer EHLO with 502, like a pre-ESMTP server.
        var heloOnly = false
    }

    let port: Int
    let directory: URL
    /// The sink's self-signed certificate (PEM), when it speaks TLS: what a client must trust.
    let certificatePath: String?
    private let process: ChildProcess

    /// Starts a sink, runs `body`, and stops the sink whatever happens.
    static func with<T: Sendable>(_ options: Options = Options(), _ body: (SMTPSink) async throws -> T) async throws -> T {
        let sink = try await SMTPSink.start(options)
        do {
            let result = try await body(sink)
            await sink.stop()
            return result
        } catch {
            await sink.stop()
            throw error
        }
    }

    private static func start(_ options: Options) async throws -> SMTPSink {
        let directory = try makeTemporaryDirectory("smtp-sink")
        // scripts/smtp_sink.py, found from this file's path (Tests/SMTPTests/Support/…).
        let script = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("scripts/smtp_sink.py").path
        var arguments = ["python3", script, "--out", directory.path, "--tls", options.tls.rawValue]
        var certificatePath: String?
        if options.tls != .none {
            let certificate = try await TestCertificate.make(in: directory)
            arguments += ["--cert", certificate.certificatePath, "--key", certificate.keyPath]
            certificatePath = certificate.certificatePath
        }
        if let user = options.user {
            arguments += ["--user", user.name, "--password", user.password, "--mechanisms", options.mechanisms.joined(separator: ",")]
        }
        if options.authWithoutTLS {
            arguments.append("--auth-without-tls")
        }
        if options.silent {
            arguments.append("--silent")
        }
        if options.unreachable {
            arguments.append("--unreachable")
        }
        if options.heloOnly {
            arguments.append("--helo-only")
        }
        let log = directory.appendingPathComponent("sink.log")
        let process = try ChildProcess(arguments: arguments, log: log)
        let ready = directory.appendingPathComponent("ready.json")
        let clock = ContinuousClock()
        // Generous: Python starting under a full parallel test run on two cores can take a while.
        let giveUp = clock.now + .seconds(60)
        while clock.now < giveUp {
            if let data = try? Data(contentsOf: ready),
                let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
                let port = object["port"] as? Int
            {
                return SMTPSink(port: port, directory: directory, certificatePath: certificatePath, process: process)
            }
            guard process.isRunning else { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        let state = process.isRunning ? "not ready after 60 s" : "exited"
        await process.stop()
        let output = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        try? FileManager.default.removeItem(at: directory)
        throw TestSetupError("The SMTP sink did not start (\(state), status \(await process.waitForExit())): \(output)")
    }

    private func stop() async {
        await self.process.stop()
        try? FileManager.default.removeItem(at: self.directory)
    }

    /// Messages the sink accepted, in order.
    func messages() throws -> [ReceivedMessage] {
        var messages: [ReceivedMessage] = []
        var number = 1
        while true {
            let url = self.directory.appendingPathComponent("message-\(number).json")
            guard FileManager.default.fileExists(atPath: url.path) else { return messages }
            var message = try JSONDecoder().decode(ReceivedMessage.self, from: Data(contentsOf: url))
            message.raw = try Data(contentsOf: self.directory.appendingPathComponent("message-\(number).eml"))
            messages.append(message)
            number += 1
        }
    }

    /// AUTH attempts the sink saw (mechanism, success, whether TLS was on).
    func authAttempts() throws -> [AuthAttempt] {
        let url = self.directory.appendingPathComponent("auth.jsonl")
        guard let text = try? String(contentsOf: url, encoding: .utf8) else { return [] }
        return try text.split(separator: "\n").map { line in
            try JSONDecoder().decode(AuthAttempt.self, from: Data(line.utf8))
        }
    }
}

/// One message as the sink received and Python's `email` package parsed it.
struct ReceivedMessage: Decodable, Sendable {
    struct Mailbox: Decodable, Sendable, Equatable {
        var display_name: String
        var addr_spec: String
    }

    struct Part: Decodable, Sendable {
        var content_type: String
        var charset: String?
        var transfer_encoding: String
        var text: String

        /// The decoded text with CRLF turned back into LF, as the sender wrote it.
        var normalizedText: String { self.text.replacingOccurrences(of: "\r\n", with: "\n") }
    }

    var mail_from: String
    var rcpt_tos: [String]
    var tls: Bool
    var authenticated_as: String?
    var headers: [String: String]
    var header_names: [String]
    var from: [Mailbox]
    var to: [Mailbox]
    var content_type: String
    var parts: [Part]
    var defects: [String]
    var longest_line: Int
    var bare_line_feeds: Int
    var raw = Data()

    enum CodingKeys: String, CodingKey {
        case mail_from, rcpt_tos, tls, authenticated_as, headers, header_names, from, to, content_type, parts, defects, longest_line, bare_line_feeds
    }
}

struct AuthAttempt: Decodable, Sendable {
    var mechanism: String
    var success: Bool
    var tls: Bool
}
