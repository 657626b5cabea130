import MultipartStream
import NIOCore
import SeededRandom
import Testing

/// The same body gives the same events however the network cuts it into chunks.
@Suite("chunking")
struct ChunkingTests {
    enum Client: String, CaseIterable, CustomTestStringConvertible {
        case iOS, browser

        var testDescription: String { rawValue }
        var boundary: String { self == .iOS ? ClientBody.iOSBoundary : ClientBody.browserBoundary }
        var image: [UInt8] { ClientBody.trickyImage(boundary: boundary, seed: self == .iOS ? 1 : 2) }
        var title: String { "Ünïcode title -- with dashes\r\nand a line" }

        var body: [UInt8] {
            self == .iOS ? ClientBody.iOS(image: image, title: title) : ClientBody.browser(image: image, title: title)
        }

        var expectedEvents: [Event] {
            self == .iOS
                ? ClientBody.iOSEvents(image: image, title: title) : ClientBody.browserEvents(image: image, title: title)
        }
    }

    @Test("the body in one chunk", arguments: Client.allCases)
    func whole(client: Client) throws {
        #expect(try parse(client.body, boundary: client.boundary) == client.expectedEvents)
    }

    @Test("the body cut in two at every offset", arguments: Client.allCases)
    func everySplitPoint(client: Client) throws {
        let body = client.body
        let expected = client.expectedEvents
        var mismatches: [Int] = []
        for cut in 0...body.count where try parse(chunks(of: body, cutAt: [cut]), boundary: client.boundary) != expected {
            mismatches.append(cut)
        }
        #expect(mismatches.isEmpty, "wrong events when cut at \(mismatches.prefix(10))")
    }

    @Test("the body in 1-byte chunks and in random chunk sizes", arguments: Client.allCases)
    func randomSizes(client: Client) throws {
        let body = client.body
        #expect(try parse(chunks(of: body, cutAt: Array(1..<body.count)), boundary: client.boundary) == client.expectedEvents)
        var generator = SeededGenerator(seed: 7)
        for round in 0..<200 {
            let maxSize = [2, 7, 64, 300, 4096][round % 5]
            let pieces = randomChunks(of: body, maxSize: maxSize, using: &generator)
            #expect(try parse(pieces, boundary: client.boundary) == client.expectedEvents, "round \(round)")
        }
    }

    @Test("body bytes that may begin a split boundary are held back until the next chunk tells")
    func holdsBackDelimiterPrefix() throws {
        let image = ClientBody.trickyImage(boundary: ClientBody.iOSBoundary, seed: 3)
        let body = ClientBody.iOS(image: image, title: "t")
        let head = Array(("--\(ClientBody.iOSBoundary)\r\n"
            + "Content-Disposition: attachment; name=\"image\"; filename=\"photo\"\r\n"
            + "Content-Type: application/octet-stream\r\n\r\n").utf8)
        #expect(Array(body.prefix(head.count)) == head)
        let delimiterStart = head.count + image.count
        for cut in delimiterStart...(delimiterStart + 4 + ClientBody.iOSBoundary.utf8.count - 1) {
            var parser = try MultipartStreamParser(boundary: ClientBody.iOSBoundary)
            var log = EventLog()
            for event in try parser.feed(ByteBuffer(bytes: body[..<cut])) { log.record(event) }
            // Cut right after the image, its last byte (a CR) may start a delimiter: held back.
            // Cut inside the delimiter, that CR is known to be data, the delimiter's bytes are held back.
            let handedOut = cut == delimiterStart ? Array(image.dropLast()) : image
            #expect(log.events == [ClientBody.iOSEvents(image: image, title: "t")[0], .body(handedOut)], "cut at \(cut)")
            for event in try parser.feed(ByteBuffer(bytes: body[cut...])) { log.record(event) }
            try parser.finish()
            #expect(log.events == ClientBody.iOSEvents(image: image, title: "t"), "cut at \(cut)")
        }
    }

    @Test("a 64 KiB chunk of image data comes out as one view of that chunk, not a copy")
    func bodyIsAView() throws {
        var generator = SeededGenerator(seed: 4)
        let header = Array("--b\r\nContent-Disposition: form-data; name=\"image\"\r\n\r\n".utf8)
        var parser = try MultipartStreamParser(boundary: "b")
        _ = try parser.feed(ByteBuffer(bytes: header))
        var data = generator.bytes(64 * 1024)
        data[data.count - 1] = 0x41  // not a CR: nothing needs holding back
        let chunk = ByteBuffer(bytes: data)
        let events = try parser.feed(chunk)
        #expect(events.count == 1)
        guard case .body(let slice) = events.first else {
            Issue.record("expected a body event, got \(events)")
            return
        }
        let chunkStart = chunk.withUnsafeReadableBytes { UInt(bitPattern: $0.baseAddress) }
        let sliceStart = slice.withUnsafeReadableBytes { UInt(bitPattern: $0.baseAddress) }
        #expect(sliceStart == chunkStart)
        #expect(slice.readableBytes == data.count)
    }
}
