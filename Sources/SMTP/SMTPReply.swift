/// One (possibly multi-line) server reply: a three-digit code and the text of each line.
struct SMTPReply: Sendable, Equatable {
    var code: Int
    var lines: [String]

    /// The reply text on one line, capped so a chatty server can't flood logs and errors.
    var text: String {
        let joined = self.lines.joined(separator: " / ")
        return joined.count > 300 ? String(joined.prefix(300)) + "…" : joined
    }

    var isSuccess: Bool { (200..<300).contains(self.code) }
}

/// Assembles reply lines (`250-first`, `250-…`, `250 last`) into replies (RFC 5321 §4.2).
struct SMTPReplyParser {
    /// RFC 5321 caps reply lines at 512 octets; allow slack for servers that don't care, but bound it.
    static let maximumLineLength = 4096
    static let maximumLinesPerReply = 200

    private var pendingCode: Int?
    private var pendingLines: [String] = []

    /// True when no reply is half received.
    var isIdle: Bool { self.pendingCode == nil }

    /// Feeds one line (without its CRLF); returns the reply it completes, if any.
    mutating func consume(line: some Collection<UInt8>) throws(SMTPError) -> SMTPReply? {
        let bytes = Array(line)
        guard bytes.count >= 3,
            bytes[0..<3].allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }),
            (UInt8(ascii: "2")...UInt8(ascii: "5")).contains(bytes[0])
        else {
            throw .transient(.protocolViolation, "The server sent a line that is not an SMTP reply: \(Self.quote(bytes))")
        }
        let code = bytes[0..<3].reduce(0) { $0 * 10 + Int($1 - UInt8(ascii: "0")) }
        let separator = bytes.count > 3 ? bytes[3] : UInt8(ascii: " ")
        guard separator == UInt8(ascii: " ") || separator == UInt8(ascii: "-") else {
            throw .transient(.protocolViolation, "The server sent a reply line with a bad separator: \(Self.quote(bytes))")
        }
        if let pendingCode = self.pendingCode, pendingCode != code {
            throw .transient(.protocolViolation, "The server changed the reply code inside a multi-line reply (\(pendingCode), then \(code)).")
        }
        self.pendingCode = code
        self.pendingLines.append(String(decoding: bytes.dropFirst(4), as: UTF8.self))
        guard self.pendingLines.count <= Self.maximumLinesPerReply else {
            throw .transient(.protocolViolation, "The server sent a reply of more than \(Self.maximumLinesPerReply) lines.")
        }
        guard separator == UInt8(ascii: " ") else {
            return nil
        }
        let reply = SMTPReply(code: code, lines: self.pendingLines)
        self.pendingCode = nil
        self.pendingLines = []
        return reply
    }

    private static func quote(_ bytes: [UInt8]) -> String {
        String(reflecting: String(decoding: bytes.prefix(80), as: UTF8.self))
    }
}
