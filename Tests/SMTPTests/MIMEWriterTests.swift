import Foundation
import Testing

@testable import SMTP

@Suite("MIME writer")
struct MIMEWriterTests {
    private func message(
        subject: String = "Hello",
        fromName: String? = "Selfie",
        text: String = "Plain text",
        html: String? = "<p>HTML</p>"
    ) throws -> MailMessage {
        try MailMessage(
            from: MailAddress("noreply@selfie.example", displayName: fromName),
            to: [MailAddress("alice@example.com", displayName: "Alice")],
            subject: subject,
            text: text,
            html: html,
            date: Date(timeIntervalSince1970: 1_057_056_757)
        )
    }

    private func lines(_ message: MailMessage) -> [String] {
        String(decoding: message.rendered(), as: UTF8.self).components(separatedBy: "\r\n")
    }

    /// The header section with folded lines joined, as a receiver unfolds it (RFC 5322 §2.2.3).
    private func unfoldedHeaders(_ message: MailMessage) -> [String] {
        let text = String(decoding: message.rendered(), as: UTF8.self)
        let head = text.components(separatedBy: "\r\n\r\n")[0]
        return head.replacingOccurrences(of: "\r\n ", with: " ").components(separatedBy: "\r\n")
    }

    @Test("headers: RFC 5322 date, Message-ID at the sender's domain, MIME-Version, multipart/alternative")
    func requiredHeaders() throws {
        let mail = try self.message()
        let headers = self.unfoldedHeaders(mail)
        #expect(headers.contains("Date: Tue, 1 Jul 2003 10:52:37 +0000"))
        #expect(headers.contains("From: Selfie <noreply@selfie.example>"))
        #expect(headers.contains("To: Alice <alice@example.com>"))
        #expect(headers.contains("Subject: Hello"))
        #expect(headers.contains("MIME-Version: 1.0"))
        #expect(headers.contains("Message-ID: <\(mail.messageID)>"))
        #expect(mail.messageID.hasSuffix("@selfie.example"))
        #expect(headers.contains { $0.hasPrefix("Content-Type: multipart/alternative; boundary=\"=_") })
    }

    @Test("each message gets its own Message-ID")
    func uniqueMessageIDs() throws {
        #expect(try self.message().messageID != self.message().messageID)
    }

    @Test("dates format in UTC for any day, including leap days and before 1970")
    func dates() {
        #expect(RFC5322Date.format(Date(timeIntervalSince1970: 0)) == "Thu, 1 Jan 1970 00:00:00 +0000")
        #expect(RFC5322Date.format(Date(timeIntervalSince1970: 1_709_210_096)) == "Thu, 29 Feb 2024 12:34:56 +0000")
        #expect(RFC5322Date.format(Date(timeIntervalSince1970: -1)) == "Wed, 31 Dec 1969 23:59:59 +0000")
        #expect(RFC5322Date.format(Date(timeIntervalSince1970: 4_102_444_799)) == "Thu, 31 Dec 2099 23:59:59 +0000")
    }

    @Test("non-ASCII subjects become encoded-words of at most 75 characters, on lines of at most 78")
    func encodedWordSubject() throws {
        let subject = String(repeating: "Réinitialisez votre mot de passe — ça presse! 🔐 ", count: 4)
            .trimmingCharacters(in: .whitespaces)
        let mail = try self.message(subject: subject)
        let rendered = self.lines(mail)
        let subjectStart = try #require(rendered.firstIndex { $0.hasPrefix("Subject:") })
        var subjectLines = [rendered[subjectStart]]
        for line in rendered[(subjectStart + 1)...] {
            guard line.hasPrefix(" ") else { break }
            subjectLines.append(line)
        }
        #expect(subjectLines.count > 1, "a long subject is folded")
        #expect(subjectLines.allSatisfy { $0.utf8.count <= 78 })
        let words = subjectLines.joined().dropFirst("Subject:".count).split(separator: " ")
        #expect(words.allSatisfy { $0.hasPrefix("=?UTF-8?B?") && $0.hasSuffix("?=") && $0.count <= 75 })
        // Each word decodes to whole UTF-8 characters on its own, and together to the subject.
        let decoded = try words.map { word in
            let payload = word.dropFirst("=?UTF-8?B?".count).dropLast(2)
            let bytes = try #require(Data(base64Encoded: String(payload)))
            return try #require(String(validating: bytes, as: UTF8.self))
        }
        #expect(decoded.joined() == subject)
    }

    @Test("ASCII subjects stay readable and fold at spaces, keeping the exact text")
    func asciiSubjectFolding() throws {
        let subject = "Your   Selfie export is ready: " + String(repeating: "photos and comments ", count: 8) + "end"
        let mail = try self.message(subject: subject)
        let rendered = self.lines(mail)
        let start = try #require(rendered.firstIndex { $0.hasPrefix("Subject:") })
        #expect(rendered[start + 1].hasPrefix(" "), "folded onto a continuation line")
        #expect(rendered.allSatisfy { $0.utf8.count <= 78 })
        #expect(self.unfoldedHeaders(mail).contains("Subject: \(subject)"))
    }

    @Test("a subject that looks like an encoded-word is itself encoded, so it reads back literally")
    func encodedWordLookalike() throws {
        let mail = try self.message(subject: "=?UTF-8?B?SGk=?=")
        #expect(!self.unfoldedHeaders(mail).contains("Subject: =?UTF-8?B?SGk=?="))
    }

    @Test("display names: atoms as is, specials quoted, non-ASCII encoded")
    func displayNames() throws {
        func fromHeader(_ name: String) throws -> String {
            let headers = self.unfoldedHeaders(try self.message(fromName: name))
            return try #require(headers.first { $0.hasPrefix("From:") })
        }
        #expect(try fromHeader("Selfie Team") == "From: Selfie Team <noreply@selfie.example>")
        #expect(try fromHeader("Selfie, Inc. \"HQ\"") == #"From: "Selfie, Inc. \"HQ\"" <noreply@selfie.example>"#)
        #expect(try fromHeader("Zoë") == "From: =?UTF-8?B?Wm/Dqw==?= <noreply@selfie.example>")
    }

    @Test("CR and LF in subject and display names can't start a new header")
    func headerInjectionIsNeutralised() throws {
        let mail = try MailMessage(
            from: MailAddress("noreply@selfie.example", displayName: "Selfie\r\nBcc: victim@example.com"),
            to: [MailAddress("alice@example.com", displayName: "Alice\nX-Evil: 1")],
            subject: "Hi\r\nBcc: victim@example.com\r\n\r\nInjected body",
            text: "Body"
        )
        let headers = self.unfoldedHeaders(mail)
        #expect(!headers.contains { $0.hasPrefix("Bcc:") || $0.hasPrefix("X-Evil:") })
        #expect(headers.contains("Subject: Hi Bcc: victim@example.com Injected body"))
        #expect(mail.from.displayName == "Selfie Bcc: victim@example.com")
    }

    @Test(
        "addresses that could break a command or header are refused",
        arguments: [
            "alice@example.com\r\nRCPT TO:<victim@example.com>",
            "alice@example.com>",
            "<alice@example.com",
            "alice example@example.com",
            "alice",
            "alice@@example.com",
            "alice@",
            "@example.com",
            ".alice@example.com",
            "alice@-example.com",
            "zoë@example.com",
        ]
    )
    func invalidAddresses(address: String) {
        let error = #expect(throws: SMTPError.self) { try MailAddress(address) }
        #expect(error?.kind == .invalidMessage)
        #expect(error?.isPermanent == true)
        #expect(error?.message.contains("\r\n") == false, "the error quotes the address with escapes")
    }

    @Test("a message needs a recipient and a well-formed Message-ID")
    func messageValidation() throws {
        let from = try MailAddress("noreply@selfie.example")
        #expect(throws: SMTPError.self) { try MailMessage(from: from, to: [], subject: "x", text: "x") }
        #expect(throws: SMTPError.self) {
            try MailMessage(from: from, to: [from], subject: "x", text: "x", messageID: "abc@def>\r\nBcc: x")
        }
        let kept = try MailMessage(from: from, to: [from], subject: "x", text: "x", messageID: "retry-42@selfie.example")
        #expect(kept.messageID == "retry-42@selfie.example")
    }

    @Test("bodies are quoted-printable: 7-bit, lines of at most 76, trailing spaces and '=' escaped")
    func quotedPrintable() {
        #expect(QuotedPrintable.encode("Grüße = 100%") == "Gr=C3=BC=C3=9Fe =3D 100%")
        #expect(QuotedPrintable.encode("trailing space \nnext") == "trailing space=20\r\nnext")
        #expect(QuotedPrintable.encode("a\r\nb\rc\nd") == "a\r\nb\r\nc\r\nd")
        let long = String(repeating: "é", count: 100) + String(repeating: "x", count: 200)
        let encoded = QuotedPrintable.encode(long)
        let lines = encoded.components(separatedBy: "\r\n")
        #expect(lines.allSatisfy { $0.utf8.count <= 76 })
        #expect(lines.dropLast().allSatisfy { $0.hasSuffix("=") }, "soft breaks only")
        #expect(encoded.utf8.allSatisfy { $0 < 128 })
        // No "=XX" escape is cut by a soft line break.
        #expect(lines.allSatisfy { line in
            let body = line.hasSuffix("=") ? line.dropLast() : Substring(line)
            guard let lastEquals = body.lastIndex(of: "=") else { return true }
            return body.distance(from: lastEquals, to: body.endIndex) == 3
        })
    }

    @Test("no line of the rendered message exceeds 998 octets, even for a huge unbroken word")
    func lineLengthLimit() throws {
        let giant = String(repeating: "a", count: 5000)
        let mail = try self.message(subject: giant, fromName: String(repeating: "N", count: 2000), text: giant, html: giant)
        let rendered = self.lines(mail)
        #expect(rendered.allSatisfy { $0.utf8.count <= 998 })
        #expect(mail.rendered().allSatisfy { $0 < 128 }, "the message is 7-bit clean")
    }

    @Test("without HTML the message is a single text/plain part")
    func textOnly() throws {
        let headers = self.unfoldedHeaders(try self.message(html: nil))
        #expect(headers.contains("Content-Type: text/plain; charset=utf-8"))
        #expect(headers.contains("Content-Transfer-Encoding: quoted-printable"))
    }
}
