#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension SMTPConnection {
    /// EHLO, or HELO when the server doesn't know EHLO (then no extension is available).
    func hello(as name: String) async throws(SMTPError) -> ServerCapabilities {
        let reply = try await self.command("EHLO \(name)")
        if reply.isSuccess {
            return ServerCapabilities(ehloReply: reply)
        }
        // 500/502/504: command unknown or not implemented; anything else is a real refusal.
        guard [500, 502, 504].contains(reply.code) else {
            throw .reply(reply, to: "EHLO")
        }
        let fallback = try await self.command("HELO \(name)")
        guard fallback.isSuccess else {
            throw .reply(fallback, to: "HELO")
        }
        return ServerCapabilities()
    }

    /// AUTH with the first mechanism both sides know, PLAIN preferred (one round trip).
    /// Only ever called on a TLS connection; credentials never reach the log.
    func authenticate(_ credentials: SMTPConfiguration.Credentials, offered: Set<String>) async throws(SMTPError) {
        if offered.contains("PLAIN") {
            let token = Self.base64(Array("\0\(credentials.username)\0\(credentials.password)".utf8))
            let reply = try await self.command("AUTH PLAIN \(token)", logAs: "AUTH PLAIN (credentials hidden)")
            guard reply.code == 235 else {
                throw .reply(reply, to: "AUTH PLAIN", kind: .authenticationFailed)
            }
        } else if offered.contains("LOGIN") {
            let start = try await self.command("AUTH LOGIN", logAs: "AUTH LOGIN")
            guard start.code == 334 else {
                throw .reply(start, to: "AUTH LOGIN", kind: .authenticationFailed)
            }
            let afterUser = try await self.command(Self.base64(Array(credentials.username.utf8)), logAs: "(user name hidden)")
            guard afterUser.code == 334 else {
                throw .reply(afterUser, to: "AUTH LOGIN (user name)", kind: .authenticationFailed)
            }
            let afterPassword = try await self.command(Self.base64(Array(credentials.password.utf8)), logAs: "(password hidden)")
            guard afterPassword.code == 235 else {
                throw .reply(afterPassword, to: "AUTH LOGIN (password)", kind: .authenticationFailed)
            }
        } else if offered.isEmpty {
            throw SMTPError(.authenticationFailed, permanent: true, "Credentials are configured but the server offers no AUTH.")
        } else {
            throw SMTPError(
                .authenticationFailed,
                permanent: true,
                "The server offers only AUTH mechanisms this client does not speak (\(offered.sorted().joined(separator: " "))); PLAIN or LOGIN is needed."
            )
        }
    }

    /// MAIL FROM, RCPT TO for each recipient, DATA and the content. Any refusal aborts the message:
    /// a partly delivered message would leave the outbox unable to tell who got it.
    func transfer(from sender: String, to recipients: [String], content: [UInt8]) async throws(SMTPError) {
        let mail = try await self.command("MAIL FROM:<\(sender)>")
        guard mail.isSuccess else {
            throw .reply(mail, to: "MAIL FROM")
        }
        for recipient in recipients {
            let rcpt = try await self.command("RCPT TO:<\(recipient)>")
            guard rcpt.isSuccess else {
                throw .reply(rcpt, to: "RCPT TO:<\(recipient)>")
            }
        }
        let data = try await self.command("DATA")
        guard data.code == 354 else {
            throw .reply(data, to: "DATA")
        }
        let accepted = try await self.content(content)
        guard accepted.isSuccess else {
            throw .reply(accepted, to: "the message content")
        }
    }

    /// QUIT, ignoring whatever happens: by now the message is either delivered or already failed.
    func quitQuietly() async {
        _ = try? await self.command("QUIT")
        await self.close()
    }

    private static func base64(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString()
    }
}
