/// RFC 2045 §6.7 quoted-printable for text bodies.
///
/// Why quoted-printable rather than base64: transactional mail is mostly ASCII (links, codes,
/// short sentences), which QP leaves readable in the raw message and in relay logs, barely larger
/// than the input; base64 would grow every body by a third and hide reset links from anyone
/// debugging delivery. QP also bounds lines at 76 characters, which keeps the 998-octet limit.
enum QuotedPrintable {
    static let maximumLineLength = 76

    /// Encodes UTF-8 text; any line break (CRLF, LF or CR) becomes a hard CRLF line break.
    /// The result has no trailing CRLF for the last line.
    static func encode(_ text: String) -> String {
        var output: [UInt8] = []
        output.reserveCapacity(text.utf8.count + text.utf8.count / 8)
        let lines = Self.lines(of: Array(text.utf8))
        for (lineIndex, line) in lines.enumerated() {
            if lineIndex > 0 {
                output += [UInt8(ascii: "\r"), UInt8(ascii: "\n")]
            }
            var lineLength = 0
            for (index, byte) in line.enumerated() {
                let isLast = index == line.count - 1
                let isWhitespace = byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t")
                let literal = (33...126).contains(byte) && byte != UInt8(ascii: "=") || (isWhitespace && !isLast)
                let encoded: [UInt8] = literal ? [byte] : Self.escape(byte)
                // Room for a soft break "=" unless this is the last piece of the line.
                let limit = isLast ? Self.maximumLineLength : Self.maximumLineLength - 1
                if lineLength + encoded.count > limit {
                    output += [UInt8(ascii: "="), UInt8(ascii: "\r"), UInt8(ascii: "\n")]
                    lineLength = 0
                }
                output += encoded
                lineLength += encoded.count
            }
        }
        return String(decoding: output, as: UTF8.self)
    }

    private static func escape(_ byte: UInt8) -> [UInt8] {
        let hex = Array("0123456789ABCDEF".utf8)
        return [UInt8(ascii: "="), hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]]
    }

    /// Splits on CRLF, LF or lone CR.
    private static func lines(of bytes: [UInt8]) -> [ArraySlice<UInt8>] {
        var lines: [ArraySlice<UInt8>] = []
        var start = 0
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\r") || byte == UInt8(ascii: "\n") {
                lines.append(bytes[start..<index])
                if byte == UInt8(ascii: "\r"), index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "\n") {
                    index += 1
                }
                start = index + 1
            }
            index += 1
        }
        lines.append(bytes[start..<bytes.count])
        return lines
    }
}
