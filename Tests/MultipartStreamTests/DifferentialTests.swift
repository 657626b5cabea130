import MultipartKit
import MultipartStream
import NIOCore
import SeededRandom
import Testing

/// MultipartStreamParser against the parser it replaces, MultipartKit 4.7.1's, on random bodies.
@Suite("differential against MultipartKit")
struct DifferentialTests {
    @Test("hundreds of random bodies with delimiter look-alikes in binary data: same parts as MultipartKit")
    func randomBodies() throws {
        var disagreements: [UInt64] = []
        for seed in UInt64(1)...400 {
            var generator = SeededGenerator(seed: seed)
            let sample = RandomBody(using: &generator)
            let maxChunk = [1, 3, 50, 1000, 70_000].randomElement(using: &generator)!
            let pieces = randomChunks(of: sample.bytes, maxSize: maxChunk, using: &generator)
            let ours = try parse(pieces, boundary: sample.boundary)
            let theirs = try parseWithMultipartKit(pieces, boundary: sample.boundary)
            if ours != theirs || ours != sample.expectedEvents { disagreements.append(seed) }
        }
        #expect(disagreements.isEmpty, "seeds where the parsers or the expected parts differ: \(disagreements)")
    }

    /// MultipartKit's callbacks as events: it reports headers one by one, so a part's headers are
    /// gathered until its first body byte or its end.
    private func parseWithMultipartKit(_ chunks: [ByteBuffer], boundary: String) throws -> [Event] {
        final class Collector {
            var log = EventLog()
            var headers: [Header]?

            func flushHeaders() {
                if let headers { log.append(.headers(headers)) }
                headers = nil
            }
        }
        let collector = Collector()
        let parser = MultipartParser(boundary: boundary)
        var partStarted = false
        parser.onHeader = { name, value in
            if !partStarted { collector.headers = [] }
            partStarted = true
            collector.headers!.append(Header(name, value))
        }
        parser.onBody = { buffer in
            if !partStarted { collector.log.append(.headers([])) }
            partStarted = true
            collector.flushHeaders()
            collector.log.append(.body(Array(buffer.readableBytesView)))
        }
        parser.onPartComplete = {
            if !partStarted { collector.log.append(.headers([])) }
            collector.flushHeaders()
            collector.log.append(.partEnd)
            partStarted = false
        }
        for chunk in chunks { try parser.execute(chunk) }
        return collector.log.events
    }
}

/// A random valid `multipart/form-data` body whose part data is binary noise laced with CRLFs,
/// `--`, boundary look-alikes not preceded by CRLF and delimiter prefixes cut short. It stays
/// within what both parsers accept: no transport padding, no preamble containing `--boundary`.
struct RandomBody {
    let boundary: String
    let bytes: [UInt8]
    let expectedEvents: [Event]

    init(using generator: inout SeededGenerator) {
        let boundary = Self.randomBoundary(using: &generator)
        let delimiter = Array("\r\n--\(boundary)".utf8)
        var parts: [(headers: [Header], body: [UInt8])] = []
        for index in 0..<Int.random(in: 1...4, using: &generator) {
            var body: [UInt8]
            repeat {
                body = Self.randomData(boundary: boundary, using: &generator)
            } while body.firstRange(of: delimiter) != nil
            parts.append((Self.randomHeaders(index: index, using: &generator), body))
        }

        var bytes: [UInt8] = []
        if Bool.random(using: &generator) {
            bytes += Array("This is the preamble. It is to be ignored.\r\nSecond line\r\n".utf8)
        }
        for part in parts {
            bytes += Array("--\(boundary)\r\n".utf8)
            for header in part.headers {
                let gap = [":", ": ", ":\t", ":  \t "].randomElement(using: &generator)!
                bytes += Array("\(header.name)\(gap)\(header.value)\r\n".utf8)
            }
            bytes += Array("\r\n".utf8) + part.body + Array("\r\n".utf8)
        }
        bytes += Array("--\(boundary)--".utf8)
        if Bool.random(using: &generator) {
            bytes += Array("\r\nThis is the epilogue, also ignored.\r\n--\(boundary)\r\n".utf8)
        } else {
            bytes += Array("\r\n".utf8)
        }
        self.boundary = boundary
        self.bytes = bytes
        self.expectedEvents = Event.expected(parts)
    }

    private static func randomBoundary(using generator: inout SeededGenerator) -> String {
        let characters = Array("0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ'()+_,-./:=?")
        switch Int.random(in: 0..<4, using: &generator) {
        case 0: return ClientBody.iOSBoundary
        case 1: return "----WebKitFormBoundary" + String((0..<16).map { _ in characters.randomElement(using: &generator)! })
        case 2: return String((0..<Int.random(in: 1...3, using: &generator)).map { _ in characters.randomElement(using: &generator)! })
        default: return String((0..<Int.random(in: 1...70, using: &generator)).map { _ in characters.randomElement(using: &generator)! })
        }
    }

    private static func randomHeaders(index: Int, using generator: inout SeededGenerator) -> [Header] {
        guard Int.random(in: 0..<10, using: &generator) > 0 else { return [] }  // a part without headers
        var headers = [Header("Content-Disposition", "form-data; name=\"field\(index)\"")]
        if Bool.random(using: &generator) {
            headers = [
                Header("Content-Disposition", "form-data; name=\"file\(index)\"; filename=\"photo \(index).jpg\""),
                Header("Content-Type", ["image/jpeg", "application/octet-stream", "image/png"].randomElement(using: &generator)!),
            ]
        }
        if Bool.random(using: &generator) {
            headers.append(Header("X-Extra_Header.\(index)", "some value\twith inner  space"))
        }
        return headers
    }

    /// Noise with traps spliced in, often right at the end, next to the real delimiter.
    private static func randomData(boundary: String, using generator: inout SeededGenerator) -> [UInt8] {
        let length = [0, 1, 2, Int.random(in: 0...300, using: &generator), Int.random(in: 0...5000, using: &generator)]
            .randomElement(using: &generator)!
        var data = generator.bytes(length)
        let boundaryBytes = Array(boundary.utf8)
        let traps: [[UInt8]] = [
            Array("\r\n--".utf8), Array("\r\n-".utf8), [0x0D], [0x0D, 0x0A], [0x0D, 0x0D, 0x0A],
            Array("--".utf8) + boundaryBytes, Array("\n--".utf8) + boundaryBytes, Array("\r--".utf8) + boundaryBytes,
            Array("\r\n--".utf8) + boundaryBytes.prefix(Int.random(in: 0..<boundaryBytes.count, using: &generator)),
            Array("\r\n--".utf8) + boundaryBytes.dropLast() + [0x0D],
        ]
        for _ in 0..<Int.random(in: 0...6, using: &generator) {
            let trap = traps.randomElement(using: &generator)!
            let at = Bool.random(using: &generator) ? data.count : Int.random(in: 0...data.count, using: &generator)
            data.insert(contentsOf: trap, at: at)
        }
        return data
    }
}
