import Foundation
import SMTP

/// How mail leaves Selfie, from the environment.
public struct MailConfiguration: Sendable {
    public enum Transport: Sendable {
        /// Each message (its link included) is written to the server log: for development.
        case log
        case smtp(SMTPConfiguration)
    }

    /// `MAIL_TRANSPORT` (`log`, the default, or `smtp` with `SMTP_URL`).
    public var transport: Transport = .log
    /// `MAIL_FROM`: `Selfie <selfie@example.com>` or a bare address.
    public var from: MailAddress
    /// `REQUIRE_VERIFIED_EMAIL`: sign-in with a password waits until the address is confirmed.
    public var requireVerifiedEmail = false

    public init(transport: Transport = .log, from: MailAddress, requireVerifiedEmail: Bool = false) {
        self.transport = transport
        self.from = from
        self.requireVerifiedEmail = requireVerifiedEmail
    }

    public static let defaultFrom = try! MailAddress("selfie@localhost", displayName: "Selfie")

    static func load(value: (String) -> String?, problems: inout [String]) -> MailConfiguration {
        var configuration = MailConfiguration(from: defaultFrom)
        if let raw = value("MAIL_FROM") {
            if let address = parseAddress(raw) {
                configuration.from = address
            } else {
                problems.append("MAIL_FROM must be an address like selfie@example.com or Selfie <selfie@example.com>, got \"\(raw)\"")
            }
        }
        switch value("MAIL_TRANSPORT")?.lowercased() ?? "log" {
        case "log":
            break
        case "smtp":
            guard let url = value("SMTP_URL") else {
                problems.append("SMTP_URL is missing (smtp://user:password@host:587 or smtps://…, needed with MAIL_TRANSPORT=smtp)")
                break
            }
            do {
                var smtp = try SMTPConfiguration(url: url)
                smtp.additionalTrustRootsFile = value("SMTP_CA_FILE")
                configuration.transport = .smtp(smtp)
            } catch {
                problems.append("SMTP_URL: \(error.message)")
            }
            if value("MAIL_FROM") == nil { problems.append("MAIL_FROM is missing (the sender of Selfie's mail, needed with MAIL_TRANSPORT=smtp)") }
        case let other:
            problems.append("MAIL_TRANSPORT must be log or smtp, got \"\(other)\"")
        }
        switch value("REQUIRE_VERIFIED_EMAIL")?.lowercased() {
        case nil, "false", "0", "no": break
        case "true", "1", "yes": configuration.requireVerifiedEmail = true
        case let other?: problems.append("REQUIRE_VERIFIED_EMAIL must be true or false, got \"\(other)\"")
        }
        return configuration
    }

    /// `Name <address>` or `address`.
    static func parseAddress(_ text: String) -> MailAddress? {
        if let open = text.lastIndex(of: "<"), text.hasSuffix(">") {
            let name = text[..<open].trimmingCharacters(in: .whitespaces).trimmingCharacters(in: CharacterSet(charactersIn: "\""))
            let address = String(text[text.index(after: open)..<text.index(before: text.endIndex)])
            return try? MailAddress(address, displayName: name.isEmpty ? nil : name)
        }
        return try? MailAddress(text)
    }
}
