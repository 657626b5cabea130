import NIOCore

/// Prepares message content for the DATA phase (RFC 5321 §4.5.2).
enum SMTPDataEncoding {
    /// Writes `content` with every line break made CRLF (bare CR and LF included), a dot doubled at
    /// the start of any line ("dot-stuffing"), a final CRLF if missing, then the `.` terminator line.
    static func encode(_ content: some Sequence<UInt8>, into buffer: inout ByteBuffer) {
        let cr = UInt8(ascii: "\r")
        let lf = UInt8(ascii: "\n")
        let dot = UInt8(ascii: ".")
        var atLineStart = true
        var previousWasCR = false
        for byte in content {
            if byte == lf, previousWasCR {
                // Second half of a CRLF already written when the CR was seen.
                previousWasCR = false
                continue
            }
            previousWasCR = byte == cr
            if byte == cr || byte == lf {
                buffer.writeBytes([cr, lf])
                atLineStart = true
                continue
            }
            if atLineStart, byte == dot {
                buffer.writeInteger(dot)
            }
            buffer.writeInteger(byte)
            atLineStart = false
        }
        if !atLineStart {
            buffer.writeBytes([cr, lf])
        }
        buffer.writeBytes([dot, cr, lf])
    }
}
