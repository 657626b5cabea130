import MultipartStream
import NIOCore
import Testing

/// RFC 2046 bodies that clients other than Selfie's own may send.
@Suite("well-formed variants")
struct WellFormedVariantsTests {
    static let part = "Content-Disposition: form-data; name=\"a\"\r\n\r\nvalue"
    static let events = Event.expected([([Header("Content-Disposition", "form-data; name=\"a\"")], Array("value".utf8))])

    @Test("a preamble and an epilogue are skipped")
    func preambleAndEpilogue() throws {
        let body = "This is a message with multiple parts in MIME format.\r\n--B\r\n\(Self.part)\r\n--B--\r\n"
            + "Epilogue --B\r\n garbage\r\n--B\r\nA: b\r\n\r\nnot a part"
        #expect(try parse(Array(body.utf8), boundary: "B") == Self.events)
    }

    @Test("spaces and tabs after a boundary (transport padding) are skipped")
    func transportPadding() throws {
        let body = "--B \t \r\n\(Self.part)\r\n--B\t\r\n\(Self.part)\r\n--B-- \t\r\n"
        #expect(try parse(Array(body.utf8), boundary: "B") == Self.events + Self.events)
    }

    @Test("a closing boundary without CRLF, or with text after it, ends the body")
    func closingBoundaryVariants() throws {
        #expect(try parse(Array("--B\r\n\(Self.part)\r\n--B--".utf8), boundary: "B") == Self.events)
        #expect(try parse(Array("--B\r\n\(Self.part)\r\n--B--trailing junk".utf8), boundary: "B") == Self.events)
    }

    @Test("a body with only the closing boundary (a form without fields) has no parts")
    func noParts() throws {
        #expect(try parse(Array("--B--\r\n".utf8), boundary: "B") == [])
    }

    @Test("a part without headers, and one with an empty body")
    func emptyHeadersAndBody() throws {
        let body = "--B\r\n\r\nplain text\r\n--B\r\nContent-Disposition: form-data; name=\"empty\"\r\n\r\n\r\n--B--"
        #expect(try parse(Array(body.utf8), boundary: "B") == Event.expected([
            ([], Array("plain text".utf8)),
            ([Header("Content-Disposition", "form-data; name=\"empty\"")], []),
        ]))
    }

    @Test("header values are trimmed, folded lines joined, names kept as sent")
    func headerLines() throws {
        let body = "--B\r\ncontent-disposition:\t form-data;\r\n \t name=\"a\"  \r\nX-Empty:\r\n\r\nvalue\r\n--B--"
        #expect(try parse(Array(body.utf8), boundary: "B") == Event.expected([
            ([Header("content-disposition", "form-data; name=\"a\""), Header("X-Empty", "")], Array("value".utf8)),
        ]))
    }

    @Test("the boundary without a CRLF before it is part data")
    func boundaryInsideData() throws {
        let data = "x--B\r\n-- B\n--B\r--B\r\n-B\r\n--"
        let body = "--B\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\n\(data)\r\n--B--"
        #expect(try parse(Array(body.utf8), boundary: "B") == Event.expected([
            ([Header("Content-Disposition", "form-data; name=\"a\"")], Array(data.utf8)),
        ]))
    }
}
