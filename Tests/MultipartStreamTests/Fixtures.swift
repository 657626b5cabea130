import MultipartStream
import NIOCore
import SeededRandom

/// A parser event with its body bytes copied out, comparable; consecutive body slices joined.
enum Event: Equatable, CustomStringConvertible {
    case headers([Header])
    case body([UInt8])
    case partEnd

    var description: String {
        switch self {
        case .headers(let headers): "headers(\(headers.map { "\($0.name): \($0.value)" }))"
        case .body(let bytes): "body(\(bytes.count) bytes)"
        case .partEnd: "partEnd"
        }
    }

    /// What a body of these parts parses to.
    static func expected(_ parts: [(headers: [Header], body: [UInt8])]) -> [Event] {
        parts.flatMap { part in [.headers(part.headers)] + (part.body.isEmpty ? [] : [.body(part.body)]) + [.partEnd] }
    }
}

struct Header: Equatable {
    let name: String
    let value: String

    init(_ name: String, _ value: String) {
        self.name = name
        self.value = value
    }
}

/// Collects events, joining consecutive body slices the way a consumer writing them out would.
struct EventLog {
    private(set) var events: [Event] = []

    mutating func record(_ event: MultipartEvent) {
        switch event {
        case .partHeaders(let headers): append(.headers(headers.map { Header($0.name, $0.value) }))
        case .body(let buffer): append(.body(Array(buffer.readableBytesView)))
        case .partEnd: append(.partEnd)
        }
    }

    mutating func append(_ event: Event) {
        if case .body(let more) = event, case .body(let earlier) = events.last {
            events[events.count - 1] = .body(earlier + more)
        } else {
            events.append(event)
        }
    }
}

/// `bytes` cut at `cuts` (ascending offsets), each piece in a buffer whose reader index is not
/// zero, as buffers from a channel can be.
func chunks(of bytes: [UInt8], cutAt cuts: [Int]) -> [ByteBuffer] {
    let bounds = [0] + cuts + [bytes.count]
    return zip(bounds, bounds.dropFirst()).map { start, end in
        var buffer = ByteBuffer()
        buffer.writeString("ignored")
        buffer.writeBytes(bytes[start..<end])
        buffer.moveReaderIndex(forwardBy: 7)
        return buffer
    }
}

/// `bytes` in pieces of random sizes up to `maxSize`.
func randomChunks(of bytes: [UInt8], maxSize: Int, using generator: inout SeededGenerator) -> [ByteBuffer] {
    var cuts: [Int] = []
    var position = 0
    while true {
        position += Int.random(in: 1...maxSize, using: &generator)
        guard position < bytes.count else { break }
        cuts.append(position)
    }
    return chunks(of: bytes, cutAt: cuts)
}

/// Feeds the chunks to a MultipartStreamParser, then finishes it.
func parse(_ chunks: [ByteBuffer], boundary: String) throws(MultipartError) -> [Event] {
    var parser = try MultipartStreamParser(boundary: boundary)
    var log = EventLog()
    for chunk in chunks {
        for event in try parser.feed(chunk) { log.record(event) }
    }
    try parser.finish()
    return log.events
}

func parse(_ body: [UInt8], boundary: String) throws(MultipartError) -> [Event] {
    try parse(chunks(of: body, cutAt: []), boundary: boundary)
}

/// Multipart bodies as Selfie's clients build them.
enum ClientBody {
    /// Exactly what the iOS app sends (HTTPHelper.uploadRequest): an `attachment` part named
    /// `image` with filename `photo`, then the `title` part.
    static let iOSBoundary = "---------------------------14737809831466499882746641449"

    static func iOS(image: [UInt8], title: String) -> [UInt8] {
        var body = "--\(iOSBoundary)\r\n"
        body += "Content-Disposition: attachment; name=\"image\"; filename=\"photo\"\r\n"
        body += "Content-Type: application/octet-stream\r\n\r\n"
        var bytes = Array(body.utf8) + image
        bytes += Array("\r\n--\(iOSBoundary)\r\nContent-Disposition: form-data; name=\"title\"\r\n\r\n".utf8)
        bytes += Array(title.utf8) + Array("\r\n--\(iOSBoundary)--\r\n".utf8)
        return bytes
    }

    static func iOSEvents(image: [UInt8], title: String) -> [Event] {
        Event.expected([
            (
                [
                    Header("Content-Disposition", "attachment; name=\"image\"; filename=\"photo\""),
                    Header("Content-Type", "application/octet-stream"),
                ], image
            ),
            ([Header("Content-Disposition", "form-data; name=\"title\"")], Array(title.utf8)),
        ])
    }

    static let browserBoundary = "----WebKitFormBoundary7MA4YWxkTrZu0gW"

    /// Chrome's body for the upload form: title first, then the file.
    static func browser(image: [UInt8], title: String) -> [UInt8] {
        var bytes = Array("--\(browserBoundary)\r\nContent-Disposition: form-data; name=\"title\"\r\n\r\n\(title)\r\n".utf8)
        bytes += Array("--\(browserBoundary)\r\nContent-Disposition: form-data; name=\"image\"; filename=\"selfie.jpg\"\r\n".utf8)
        bytes += Array("Content-Type: image/jpeg\r\n\r\n".utf8) + image
        bytes += Array("\r\n--\(browserBoundary)--\r\n".utf8)
        return bytes
    }

    static func browserEvents(image: [UInt8], title: String) -> [Event] {
        Event.expected([
            ([Header("Content-Disposition", "form-data; name=\"title\"")], Array(title.utf8)),
            (
                [
                    Header("Content-Disposition", "form-data; name=\"image\"; filename=\"selfie.jpg\""),
                    Header("Content-Type", "image/jpeg"),
                ], image
            ),
        ])
    }

    /// JPEG-looking noise laced with what a naive boundary search trips on: CRLFs, `--`, the
    /// boundary without its CRLF, and delimiter prefixes, ending in a CR.
    static func trickyImage(boundary: String, seed: UInt64, size: Int = 1500) -> [UInt8] {
        var generator = SeededGenerator(seed: seed)
        var image: [UInt8] = [0xFF, 0xD8, 0xFF, 0xE0] + generator.bytes(size)
        let traps = ["\r\n--", "--\(boundary)", "\n--\(boundary)", "\r--\(boundary)", "\r\n-\(boundary)",
                     "\r\n--\(boundary.dropLast())", "\r\r\n--\(boundary.prefix(10))", "\r\n\r\n"]
        for (index, trap) in traps.enumerated() {
            let at = (index + 1) * image.count / (traps.count + 2)
            image.insert(contentsOf: Array(trap.utf8), at: at)
        }
        return image + [0xFF, 0xD9, 0x0D]
    }
}
