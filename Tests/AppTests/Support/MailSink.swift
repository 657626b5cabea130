@testable import App
@testable import SelfieCore
import Foundation
import SMTP

/// The SMTP server `make test` starts on loopback (aiosmtpd with STARTTLS and AUTH, from
/// scripts/test-peers.sh): what it received, as scripts/smtp_sink.py writes it down, one JSON file
/// per message. Tests find their messages by recipient (every test uses unique addresses).
enum MailSink {
    /// One message as the sink received it.
    struct Message: Decodable, Sendable {
        struct Part: Decodable, Sendable {
            let content_type: String
            let text: String
        }

        struct Address: Decodable, Sendable {
            let display_name: String
            let addr_spec: String
        }

        let mail_from: String
        let rcpt_tos: [String]
        let tls: Bool
        let authenticated_as: String?
        let headers: [String: String]
        let from: [Address]
        let parts: [Part]
        let defects: [String]
        /// The `.eml` file the sink wrote beside the JSON (the message as it came over the wire).
        var rawFile = ""

        enum CodingKeys: String, CodingKey {
            case mail_from, rcpt_tos, tls, authenticated_as, headers, from, parts, defects
        }

        /// The header section, exactly as sent.
        func rawHeaders() throws -> String {
            let raw = try String(contentsOfFile: rawFile, encoding: .utf8)
            return raw.components(separatedBy: "\r\n\r\n").first ?? raw
        }

        var subject: String { headers["subject"] ?? "" }
        var messageID: String { headers["message-id"] ?? "" }
        var text: String { parts.first { $0.content_type == "text/plain" }?.text ?? "" }
        var html: String { parts.first { $0.content_type == "text/html" }?.text ?? "" }

        /// The first link in the text part to `path` (`/password/reset`, …), as a path and query
        /// on the test server (the mail's links start with PUBLIC_URL).
        func link(to path: String) throws -> String {
            guard let url = text.firstCapture(of: #"(https?://[^\s]+\#(path)[^\s]*)"#), let components = URLComponents(string: url) else {
                throw TestSetupError("no link to \(path) in the mail \"\(subject)\":\n\(text)")
            }
            return components.percentEncodedPath + (components.percentEncodedQuery.map { "?\($0)" } ?? "")
        }

        /// The `token` of a link to `path`.
        func token(in path: String) throws -> String {
            let link = try link(to: path)
            guard let token = URLComponents(string: link)?.queryItems?.first(where: { $0.name == "token" })?.value else {
                throw TestSetupError("no token in \(link)")
            }
            return token
        }
    }

    static func setting(_ name: String) throws -> String {
        guard let value = TestPeerSettings.values[name] else {
            throw TestSetupError("\(name) is not set: run the tests with `make test`, which starts an SMTP server on loopback")
        }
        return value
    }

    /// Mail through the sink: SMTP with STARTTLS (trusting the sink's certificate) and AUTH.
    static func transport() throws -> MailConfiguration.Transport {
        var smtp = try SMTPConfiguration(url: try setting("TEST_SMTP_URL"))
        smtp.additionalTrustRootsFile = try setting("TEST_SMTP_CA_FILE")
        return .smtp(smtp)
    }

    static let from = try! MailAddress("selfie@selfie.test", displayName: "Selfie")

    /// Every message received for `address` so far, oldest first.
    static func messages(to address: String) throws -> [Message] {
        let directory = try setting("TEST_SMTP_MESSAGES")
        let names = try FileManager.default.contentsOfDirectory(atPath: directory)
            .filter { $0.hasPrefix("message-") && $0.hasSuffix(".json") }
            .sorted { number(in: $0) < number(in: $1) }
        return try names.compactMap { name in
            let data = try Data(contentsOf: URL(fileURLWithPath: "\(directory)/\(name)"))
            var message = try JSONDecoder().decode(Message.self, from: data)
            message.rawFile = "\(directory)/\(name.dropLast(".json".count)).eml"
            return message.rcpt_tos.contains { $0.lowercased() == address.lowercased() } ? message : nil
        }
    }

    /// Waits (up to `timeout`) until `address` has received `count` messages whose subject
    /// contains `subject`, and returns the newest.
    @discardableResult
    static func waitForMessage(to address: String, subject: String, count: Int = 1, timeout: Duration = .seconds(15)) async throws -> Message {
        let deadline = ContinuousClock.now + timeout
        while true {
            let matching = try messages(to: address).filter { $0.subject.contains(subject) }
            if matching.count >= count, let newest = matching.last { return newest }
            guard ContinuousClock.now < deadline else {
                let seen = try messages(to: address).map(\.subject)
                throw TestSetupError("no mail \"\(subject)\" (×\(count)) reached \(address) within \(timeout); it has \(seen)")
            }
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    private static func number(in name: String) -> Int {
        Int(name.dropFirst("message-".count).dropLast(".json".count)) ?? 0
    }
}

extension AppConfiguration {
    /// Mail goes to the test SMTP server (instead of the log).
    mutating func useMailSink() throws {
        mail.transport = try MailSink.transport()
        mail.from = MailSink.from
    }
}
