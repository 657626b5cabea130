#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A transactional email: one sender, one or more recipients, a plain-text body and optionally an
/// HTML alternative. Everything is checked at creation; ``rendered()`` can't fail afterwards.
public struct MailMessage: Sendable {
    public let from: MailAddress
    /// Header `To:` and the envelope recipients (RCPT TO), in this order.
    public let to: [MailAddress]
    public let replyTo: MailAddress?
    /// Control characters (CR, LF, tab, …) are replaced by spaces; surrounding spaces trimmed.
    public let subject: String
    public let text: String
    public let html: String?
    public let date: Date
    /// Without angle brackets: `random@domain-of-from`. Keep it across retries of the same message
    /// so receivers can recognise duplicates.
    public let messageID: String

    /// Throws an ``SMTPError`` of kind `.invalidMessage` when there is no recipient or
    /// `messageID` is not `left@right` in dot-atom form.
    public init(
        from: MailAddress,
        to: [MailAddress],
        replyTo: MailAddress? = nil,
        subject: String,
        text: String,
        html: String? = nil,
        date: Date = Date(),
        messageID: String? = nil
    ) throws(SMTPError) {
        guard !to.isEmpty else {
            throw .invalidMessage("The message has no recipient.")
        }
        let id = messageID ?? Self.makeMessageID(domain: from.domain)
        let idParts = id.split(separator: "@", omittingEmptySubsequences: false)
        guard idParts.count == 2, DotAtom.isValid(idParts[0]), DotAtom.isValid(idParts[1]), id.utf8.count <= 250 else {
            throw .invalidMessage("The Message-ID must look like 'random@domain' (dot-atoms, no brackets).")
        }
        self.from = from
        self.to = to
        self.replyTo = replyTo
        self.subject = HeaderText.sanitized(subject)
        self.text = text
        self.html = html
        self.date = date
        self.messageID = id
    }

    /// The message as sent after DATA: RFC 5322 headers and a MIME body, CRLF line endings,
    /// 7-bit clean, no line longer than 998 octets (and headers folded near 78).
    public func rendered() -> [UInt8] {
        MIMEWriter.render(self, boundary: MIMEWriter.makeBoundary())
    }

    private static func makeMessageID(domain: Substring) -> String {
        var generator = SystemRandomNumberGenerator()
        let random = (0..<2).map { _ in String(generator.next() as UInt64, radix: 36) }.joined(separator: ".")
        return "\(random)@\(domain)"
    }
}
