import Hummingbird
import NIOCore
import SelfieCore

/// JSON written straight into a `ByteBuffer`, byte for byte as `JSONEncoder` with `.sortedKeys`
/// writes it: `"`, `\` and `/` escaped (`\/`), `\b \t \n \f \r`, other control characters as
/// `\u00xx` (lower-case hex), everything else as its UTF-8. For the lists the API answers on every
/// refresh (get_photos): the encoder's boxing of each value into a tree cost more than the query;
/// and for the page scripts' words (`Translations`). Callers write each object's keys in sorted
/// order themselves.
struct JSONBytes {
    private(set) var buffer: ByteBuffer

    init(capacity: Int) {
        buffer = ByteBufferAllocator().buffer(capacity: capacity)
    }

    /// Punctuation and keys: written as they are.
    mutating func raw(_ text: StaticString) {
        buffer.writeStaticString(text)
    }

    mutating func string(_ text: String) {
        var text = text
        buffer.writeInteger(UInt8(ascii: "\""))
        // Runs of bytes that need no escape are copied whole (a URL is mostly such runs between `/`s).
        text.withUTF8 { bytes in
            var runStart = 0
            for index in bytes.indices where Self.needsEscape(bytes[index]) {
                if runStart < index { buffer.writeBytes(UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes[runStart..<index]))) }
                escaped(bytes[index])
                runStart = index + 1
            }
            if runStart < bytes.count { buffer.writeBytes(UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes[runStart...]))) }
        }
        buffer.writeInteger(UInt8(ascii: "\""))
    }

    private static func needsEscape(_ byte: UInt8) -> Bool {
        byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") || byte == UInt8(ascii: "/")
    }

    private mutating func escaped(_ byte: UInt8) {
        switch byte {
        case UInt8(ascii: "\""): buffer.writeStaticString(#"\""#)
        case UInt8(ascii: "\\"): buffer.writeStaticString(#"\\"#)
        case UInt8(ascii: "/"): buffer.writeStaticString(#"\/"#)
        case 0x08: buffer.writeStaticString(#"\b"#)
        case 0x09: buffer.writeStaticString(#"\t"#)
        case 0x0A: buffer.writeStaticString(#"\n"#)
        case 0x0C: buffer.writeStaticString(#"\f"#)
        case 0x0D: buffer.writeStaticString(#"\r"#)
        case ..<0x20:
            buffer.writeStaticString(#"\u00"#)
            buffer.writeString(CollectionOfOne(byte).hexString)
        default: buffer.writeInteger(byte)
        }
    }
}

/// A value that writes itself as JSON (see `JSONBytes`), identical to its `Encodable` form.
protocol JSONBytesWritable {
    func write(to json: inout JSONBytes)
    /// About how many bytes it takes, to size the buffer once.
    var estimatedJSONBytes: Int { get }
}

extension Array: JSONBytesWritable where Element: JSONBytesWritable {
    func write(to json: inout JSONBytes) {
        json.raw("[")
        for (index, element) in enumerated() {
            if index > 0 { json.raw(",") }
            element.write(to: &json)
        }
        json.raw("]")
    }

    var estimatedJSONBytes: Int { reduce(2) { $0 + $1.estimatedJSONBytes + 1 } }
}

extension Response {
    /// `value` as the API's JSON answer, written by `JSONBytes`.
    static func json(_ value: some JSONBytesWritable, status: HTTPResponse.Status = .ok) -> Response {
        var json = JSONBytes(capacity: value.estimatedJSONBytes)
        value.write(to: &json)
        return Self.json(body: json.buffer, status: status)
    }

    /// The API's JSON answer: its headers, for `JSONBytes` and `JSONResponse` alike.
    static func json(body: ByteBuffer, status: HTTPResponse.Status) -> Response {
        Response(
            status: status,
            headers: [.contentType: "application/json; charset=utf-8", .contentLength: String(body.readableBytes), .cacheControl: "no-store"],
            body: .init(byteBuffer: body)
        )
    }
}
