/// Turns a ``MailMessage`` into RFC 5322 / MIME text.
///
/// Structure: a single `text/plain` part, or `multipart/alternative` with `text/plain` first and
/// `text/html` last (the last alternative is the preferred one, RFC 2046 §5.1.4). Bodies are UTF-8
/// in quoted-printable, so the whole message is 7-bit and needs no 8BITMIME.
enum MIMEWriter {
    static func render(_ message: MailMessage, boundary: String) -> [UInt8] {
        var head = ""
        head += HeaderEncoding.line(name: "Date", words: [RFC5322Date.format(message.date)])
        head += HeaderEncoding.line(name: "From", words: HeaderEncoding.mailboxWords(message.from, trailingComma: false))
        head += HeaderEncoding.line(name: "To", words: Self.addressListWords(message.to))
        if let replyTo = message.replyTo {
            head += HeaderEncoding.line(name: "Reply-To", words: HeaderEncoding.mailboxWords(replyTo, trailingComma: false))
        }
        head += HeaderEncoding.line(name: "Subject", words: HeaderEncoding.unstructuredWords(message.subject))
        head += HeaderEncoding.line(name: "Message-ID", words: ["<\(message.messageID)>"])
        // RFC 3834: tells auto-responders (vacation replies) not to answer machine-sent mail.
        head += HeaderEncoding.line(name: "Auto-Submitted", words: ["auto-generated"])
        head += HeaderEncoding.line(name: "MIME-Version", words: ["1.0"])

        var body = ""
        if let html = message.html {
            head += HeaderEncoding.line(name: "Content-Type", words: ["multipart/alternative;", " boundary=\"\(boundary)\""])
            body += "This is a multipart message in MIME format.\r\n"
            body += "\r\n--\(boundary)\r\n" + Self.textPart(subtype: "plain", message.text)
            body += "\r\n--\(boundary)\r\n" + Self.textPart(subtype: "html", html)
            body += "\r\n--\(boundary)--\r\n"
        } else {
            head += Self.textPartHeaders(subtype: "plain")
            body += QuotedPrintable.encode(message.text) + "\r\n"
        }
        return Array((head + "\r\n" + body).utf8)
    }

    /// A boundary that can't occur in quoted-printable output ("=_" is never a valid QP escape)
    /// nor in any header this writer produces.
    static func makeBoundary() -> String {
        var generator = SystemRandomNumberGenerator()
        return "=_" + (0..<2).map { _ in String(generator.next() as UInt64, radix: 36) }.joined(separator: "_")
    }

    private static func addressListWords(_ addresses: [MailAddress]) -> [String] {
        addresses.enumerated().flatMap { index, address in
            HeaderEncoding.mailboxWords(address, trailingComma: index < addresses.count - 1)
        }
    }

    private static func textPartHeaders(subtype: String) -> String {
        HeaderEncoding.line(name: "Content-Type", words: ["text/\(subtype);", " charset=utf-8"])
            + HeaderEncoding.line(name: "Content-Transfer-Encoding", words: ["quoted-printable"])
    }

    private static func textPart(subtype: String, _ text: String) -> String {
        Self.textPartHeaders(subtype: subtype) + "\r\n" + QuotedPrintable.encode(text)
    }
}
