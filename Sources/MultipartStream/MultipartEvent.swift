import NIOCore

/// One thing the parser found in a `multipart/*` body, in body order.
public enum MultipartEvent: Sendable {
    /// A part starts: its header lines, in order, names as sent, values trimmed of spaces and tabs.
    case partHeaders([(name: String, value: String)])
    /// Bytes of the current part's body: a view of the fed chunk (no copy); several may follow.
    case body(ByteBuffer)
    /// The current part's body is complete.
    case partEnd
}

/// Why a body is not acceptable `multipart/*` (RFC 2046 §5.1.1).
public enum MultipartError: Error, Equatable, Sendable {
    /// The boundary is not 1–70 characters of printable ASCII (not ending in a space).
    case invalidBoundary
    /// More than `limit` bytes came before the first boundary.
    case preambleTooLarge(limit: Int)
    /// A part's boundary line rest and header block went past `limit` bytes.
    case headerBlockTooLarge(limit: Int)
    /// A boundary was followed by something other than optional spaces/tabs and CRLF (or `--`
    /// closing the body): the body is not multipart, or its data contains the delimiter.
    case missingCRLFAfterBoundary
    /// A part header line is not `name: value` with a token name and a CRLF ending.
    case malformedHeaderLine
    /// The body ended before its closing boundary (`--boundary--`).
    case unexpectedEndOfBody
}
