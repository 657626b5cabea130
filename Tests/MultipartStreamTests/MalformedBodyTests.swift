import MultipartStream
import NIOCore
import Testing

/// Each kind of bad body is refused with its own error, however it is chunked.
@Suite("malformed bodies")
struct MalformedBodyTests {
    struct Case: CustomTestStringConvertible, Sendable {
        let testDescription: String
        let body: [UInt8]
        let error: MultipartError

        init(_ description: String, _ body: String, _ error: MultipartError) {
            self.init(description, Array(body.utf8), error)
        }

        init(_ description: String, _ body: [UInt8], _ error: MultipartError) {
            testDescription = description
            self.body = body
            self.error = error
        }
    }

    static let part = "Content-Disposition: form-data; name=\"a\"\r\n\r\nvalue"

    static let cases: [Case] = [
        Case("text right after the boundary", "--B\(part)\r\n--B--", .missingCRLFAfterBoundary),
        Case("text after transport padding", "--B  x\r\n\(part)\r\n--B--", .missingCRLFAfterBoundary),
        Case("CR without LF after the boundary", "--B\rX\(part)\r\n--B--", .missingCRLFAfterBoundary),
        Case("a single hyphen after the boundary", "--B-\r\n\(part)\r\n--B--", .missingCRLFAfterBoundary),
        Case("LF-only line ends", "--B\n\(part)\n--B--\n", .missingCRLFAfterBoundary),
        Case("the delimiter inside part data", "--B\r\n\(part)\r\n--Bogus\r\n--B--", .missingCRLFAfterBoundary),
        Case("a header line without colon", "--B\r\nContent-Disposition form-data\r\n\r\nx\r\n--B--", .malformedHeaderLine),
        Case("a header with an empty name", "--B\r\n: form-data\r\n\r\nx\r\n--B--", .malformedHeaderLine),
        Case("a header name with a space", "--B\r\nContent Disposition: form-data\r\n\r\nx\r\n--B--", .malformedHeaderLine),
        Case("a bare LF in the header block", "--B\r\nA: b\nC: d\r\n\r\nx\r\n--B--", .malformedHeaderLine),
        Case("a bare CR in a header value", "--B\r\nA: b\rc\r\n\r\nx\r\n--B--", .malformedHeaderLine),
        Case("a folded line with nothing to continue", "--B\r\n  folded\r\nA: b\r\n\r\nx\r\n--B--", .malformedHeaderLine),
        Case("a 17 KiB header", "--B\r\nX-Big: \(String(repeating: "a", count: 17 * 1024))\r\n\r\nx\r\n--B--", .headerBlockTooLarge(limit: 16 * 1024)),
        Case("hundreds of small headers", "--B\r\n\(String(repeating: "X-H: 1234567890\r\n", count: 1200))\r\nx\r\n--B--", .headerBlockTooLarge(limit: 16 * 1024)),
        Case("endless transport padding", "--B\(String(repeating: " ", count: 17 * 1024))\r\n\(part)\r\n--B--", .headerBlockTooLarge(limit: 16 * 1024)),
        Case("header lines that never end", "--B\r\n\(String(repeating: "X-H: 1\r\n", count: 600))", .unexpectedEndOfBody),
        Case("a 17 KiB preamble", "\(String(repeating: "p", count: 17 * 1024))\r\n--B\r\n\(part)\r\n--B--", .preambleTooLarge(limit: 16 * 1024)),
        Case("an empty body", "", .unexpectedEndOfBody),
        Case("no boundary at all", "just some text\r\n", .unexpectedEndOfBody),
        Case("the boundary without CRLF before it", "text--B\r\n\(part)\r\n", .unexpectedEndOfBody),
        Case("the end inside the first boundary line", "--B  ", .unexpectedEndOfBody),
        Case("the end inside a header block", "--B\r\nContent-Disposition: form", .unexpectedEndOfBody),
        Case("the end inside part data", "--B\r\n\(part)", .unexpectedEndOfBody),
        Case("the end inside the delimiter", "--B\r\n\(part)\r\n-", .unexpectedEndOfBody),
        Case("the end before the closing hyphens", "--B\r\n\(part)\r\n--B\r\n", .unexpectedEndOfBody),
    ]

    @Test("refused with its error, in one chunk", arguments: cases)
    func wholeBody(_ sample: Case) {
        #expect(throws: sample.error) { try parse(sample.body, boundary: "B") }
    }

    @Test("refused with its error, in 1-byte chunks", arguments: cases)
    func byteChunks(_ sample: Case) {
        let pieces = chunks(of: sample.body, cutAt: sample.body.isEmpty ? [] : Array(1..<sample.body.count))
        #expect(throws: sample.error) { try parse(pieces, boundary: "B") }
    }

    @Test("after an error every call throws it again")
    func staysFailed() throws {
        var parser = try MultipartStreamParser(boundary: "B")
        #expect(throws: MultipartError.missingCRLFAfterBoundary) { try parser.feed(ByteBuffer(string: "--Bx")) }
        #expect(throws: MultipartError.missingCRLFAfterBoundary) { try parser.feed(ByteBuffer(string: "\r\n\r\nok\r\n--B--")) }
        #expect(throws: MultipartError.missingCRLFAfterBoundary) { try parser.finish() }
    }

    @Test("limits are parameters")
    func customLimits() throws {
        let body = "--B\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\nx\r\n--B--"
        let headerBlock = body.utf8.count - "--B".utf8.count - "x\r\n--B--".utf8.count
        var exact = try MultipartStreamParser(boundary: "B", maxHeaderBytes: headerBlock)
        #expect(try exact.feed(ByteBuffer(string: body)).count == 3)
        var tight = try MultipartStreamParser(boundary: "B", maxHeaderBytes: headerBlock - 1)
        #expect(throws: MultipartError.headerBlockTooLarge(limit: headerBlock - 1)) { try tight.feed(ByteBuffer(string: body)) }

        var noPreamble = try MultipartStreamParser(boundary: "B", maxPreambleBytes: 0)
        #expect(try noPreamble.feed(ByteBuffer(string: body)).count == 3)
        var shortPreamble = try MultipartStreamParser(boundary: "B", maxPreambleBytes: 3)
        #expect(throws: MultipartError.preambleTooLarge(limit: 3)) { try shortPreamble.feed(ByteBuffer(string: "pre!\r\n" + body)) }
    }

    @Test("boundaries outside RFC 2046's 1–70 printable characters are refused",
          arguments: ["", String(repeating: "b", count: 71), "a\r\nb", "trailing ", "caf\u{E9}", "tab\there"])
    func invalidBoundary(_ boundary: String) {
        #expect(throws: MultipartError.invalidBoundary) { try MultipartStreamParser(boundary: boundary) }
    }

    @Test("70 characters, spaces and RFC 2046 punctuation make a valid boundary",
          arguments: [String(repeating: "b", count: 70), "simple boundary", "'()+_,-./:=?"])
    func validBoundary(_ boundary: String) throws {
        let body = "--\(boundary)\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\nx\r\n--\(boundary)--\r\n"
        #expect(try parse(Array(body.utf8), boundary: boundary).count == 3)
    }
}
