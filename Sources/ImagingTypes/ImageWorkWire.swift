import Foundation
import NIOCore

/// What the server asks an image worker (`selfie-image-worker`) to do with the bytes that follow.
public enum ImageWorkRequest: UInt8, Sendable {
    /// Probe, then make every rendition of the worker's set.
    case renditions = 1
    /// Read the header only.
    case probe = 2
}

/// An image worker's answer to one request.
public enum ImageWorkReply: Sendable {
    case processed(ProcessedImage)
    case probed(ImageProbe)
    /// The image was refused, or the pipeline failed on it.
    case refused(ImageError)
}

/// The byte format between the server and its image workers, over a pair of pipes.
///
/// A request is a 10-byte header — version, `ImageWorkRequest`, the image's length as a
/// little-endian UInt64 — followed by that many bytes of the image, which the server streams from
/// the blob store. A reply is its length (UInt64) followed by that many bytes: a kind, then the
/// probe, the renditions or the error. Integers are little-endian; strings are UTF-8 with a UInt16
/// length. One request at a time per worker; a worker that answers anything else is killed.
public enum ImageWorkWire {
    public static let version: UInt8 = 1
    public static let requestHeaderSize = 10
    public static let replyLengthSize = 8
    /// The largest reply the server reads (renditions of one photo are a few hundred kilobytes).
    public static let maxReplyBytes = 64 * 1024 * 1024

    /// The bytes the format does not allow.
    public struct Malformed: Error, Sendable, CustomStringConvertible {
        public let description: String
        init(_ description: String) { self.description = description }
    }

    // MARK: Requests

    public static func requestHeader(_ request: ImageWorkRequest, byteCount: Int) -> ByteBuffer {
        var header = ByteBuffer()
        header.writeInteger(version)
        header.writeInteger(request.rawValue)
        header.writeInteger(UInt64(byteCount), endianness: .little)
        return header
    }

    /// The request and the length of the image that follows, from exactly `requestHeaderSize` bytes.
    public static func readRequestHeader(_ bytes: inout ByteBuffer) throws(Malformed) -> (ImageWorkRequest, Int) {
        guard bytes.readableBytes == requestHeaderSize,
              bytes.readInteger(as: UInt8.self) == version,
              let request = bytes.readInteger(as: UInt8.self).flatMap(ImageWorkRequest.init(rawValue:)),
              let length = bytes.readInteger(endianness: .little, as: UInt64.self), length <= UInt64(Int.max)
        else { throw Malformed("not a request header") }
        return (request, Int(length))
    }

    // MARK: Replies

    private enum Kind: UInt8 {
        case processed = 0, probed = 1, refused = 2
    }

    /// The reply with its length in front, ready to write.
    public static func encode(_ reply: ImageWorkReply) -> ByteBuffer {
        var body = ByteBuffer()
        switch reply {
        case .processed(let image):
            body.writeInteger(Kind.processed.rawValue)
            writeProbe(image.probe, into: &body)
            body.writeInteger(UInt8(image.renditions.count))
            for rendition in image.renditions {
                writeString(rendition.name, into: &body)
                body.writeInteger(UInt32(rendition.width), endianness: .little)
                body.writeInteger(UInt32(rendition.height), endianness: .little)
                writeString(rendition.mimeType, into: &body)
                body.writeInteger(UInt32(rendition.bytes.readableBytes), endianness: .little)
                body.writeImmutableBuffer(rendition.bytes)
            }
        case .probed(let probe):
            body.writeInteger(Kind.probed.rawValue)
            writeProbe(probe, into: &body)
        case .refused(let error):
            body.writeInteger(Kind.refused.rawValue)
            writeError(error, into: &body)
        }
        var framed = ByteBuffer()
        framed.writeInteger(UInt64(body.readableBytes), endianness: .little)
        framed.writeImmutableBuffer(body)
        return framed
    }

    /// The length of the reply that follows, from exactly `replyLengthSize` bytes.
    public static func readReplyLength(_ bytes: inout ByteBuffer) throws(Malformed) -> Int {
        guard let length = bytes.readInteger(endianness: .little, as: UInt64.self), length <= UInt64(maxReplyBytes) else {
            throw Malformed("a reply longer than \(maxReplyBytes) bytes")
        }
        return Int(length)
    }

    /// A reply's body (without its length), which must be read to its last byte.
    public static func decodeReply(_ bytes: inout ByteBuffer) throws(Malformed) -> ImageWorkReply {
        guard let kind = bytes.readInteger(as: UInt8.self).flatMap(Kind.init(rawValue:)) else { throw Malformed("an unknown reply") }
        let reply: ImageWorkReply
        switch kind {
        case .processed:
            let probe = try readProbe(&bytes)
            guard let count = bytes.readInteger(as: UInt8.self) else { throw Malformed("no rendition count") }
            var renditions: [Rendition] = []
            for _ in 0..<count {
                guard let name = readString(&bytes),
                      let width = bytes.readInteger(endianness: .little, as: UInt32.self),
                      let height = bytes.readInteger(endianness: .little, as: UInt32.self),
                      let mimeType = readString(&bytes),
                      let length = bytes.readInteger(endianness: .little, as: UInt32.self),
                      let encoded = bytes.readSlice(length: Int(length))
                else { throw Malformed("a rendition cut short") }
                renditions.append(Rendition(name: name, bytes: encoded, width: Int(width), height: Int(height), mimeType: mimeType))
            }
            reply = .processed(ProcessedImage(probe: probe, renditions: renditions))
        case .probed:
            reply = .probed(try readProbe(&bytes))
        case .refused:
            reply = .refused(try readError(&bytes))
        }
        guard bytes.readableBytes == 0 else { throw Malformed("bytes after the reply") }
        return reply
    }

    // MARK: Parts

    private static func writeString(_ text: String, into bytes: inout ByteBuffer) {
        let utf8 = Array(text.utf8.prefix(Int(UInt16.max)))
        bytes.writeInteger(UInt16(utf8.count), endianness: .little)
        bytes.writeBytes(utf8)
    }

    private static func readString(_ bytes: inout ByteBuffer) -> String? {
        guard let length = bytes.readInteger(endianness: .little, as: UInt16.self) else { return nil }
        return bytes.readString(length: Int(length))
    }

    private static func writeProbe(_ probe: ImageProbe, into bytes: inout ByteBuffer) {
        writeString(probe.format.rawValue, into: &bytes)
        bytes.writeInteger(UInt32(probe.width), endianness: .little)
        bytes.writeInteger(UInt32(probe.height), endianness: .little)
        bytes.writeInteger(UInt32(clamping: probe.frameCount), endianness: .little)
        // 0: no capture time; 1: a moment (the camera wrote its offset); 2: a local time.
        if let takenAt = probe.takenAt {
            bytes.writeInteger(UInt8(probe.takenAtIsLocalTime ? 2 : 1))
            bytes.writeInteger(takenAt.timeIntervalSince1970.bitPattern, endianness: .little)
        } else {
            bytes.writeInteger(UInt8(0))
        }
    }

    private static func readProbe(_ bytes: inout ByteBuffer) throws(Malformed) -> ImageProbe {
        guard let format = readString(&bytes).flatMap(SourceFormat.init(rawValue:)),
              let width = bytes.readInteger(endianness: .little, as: UInt32.self),
              let height = bytes.readInteger(endianness: .little, as: UInt32.self),
              let frames = bytes.readInteger(endianness: .little, as: UInt32.self),
              let hasTakenAt = bytes.readInteger(as: UInt8.self)
        else { throw Malformed("a probe cut short") }
        var takenAt: Date?
        if hasTakenAt == 1 || hasTakenAt == 2 {
            guard let bits = bytes.readInteger(endianness: .little, as: UInt64.self) else { throw Malformed("a capture time cut short") }
            takenAt = Date(timeIntervalSince1970: Double(bitPattern: bits))
        }
        return ImageProbe(
            format: format, width: Int(width), height: Int(height), frameCount: Int(frames), takenAt: takenAt, takenAtIsLocalTime: hasTakenAt == 2
        )
    }

    private enum ErrorCode: UInt8 {
        case empty = 0, unsupportedFormat, unreadable, truncated, tooManyPixels, absurdAspectRatio, processingFailed
    }

    private static func writeError(_ error: ImageError, into bytes: inout ByteBuffer) {
        switch error {
        case .empty: bytes.writeInteger(ErrorCode.empty.rawValue)
        case .unsupportedFormat: bytes.writeInteger(ErrorCode.unsupportedFormat.rawValue)
        case .unreadable: bytes.writeInteger(ErrorCode.unreadable.rawValue)
        case .truncated: bytes.writeInteger(ErrorCode.truncated.rawValue)
        case .tooManyPixels(let max):
            bytes.writeInteger(ErrorCode.tooManyPixels.rawValue)
            bytes.writeInteger(UInt64(max), endianness: .little)
        case .absurdAspectRatio: bytes.writeInteger(ErrorCode.absurdAspectRatio.rawValue)
        case .processingFailed(let reason):
            bytes.writeInteger(ErrorCode.processingFailed.rawValue)
            writeString(reason, into: &bytes)
        }
    }

    private static func readError(_ bytes: inout ByteBuffer) throws(Malformed) -> ImageError {
        guard let code = bytes.readInteger(as: UInt8.self).flatMap(ErrorCode.init(rawValue:)) else { throw Malformed("an unknown error") }
        switch code {
        case .empty: return .empty
        case .unsupportedFormat: return .unsupportedFormat
        case .unreadable: return .unreadable
        case .truncated: return .truncated
        case .tooManyPixels:
            guard let max = bytes.readInteger(endianness: .little, as: UInt64.self) else { throw Malformed("a limit cut short") }
            return .tooManyPixels(max: Int(clamping: max))
        case .absurdAspectRatio: return .absurdAspectRatio
        case .processingFailed:
            guard let reason = readString(&bytes) else { throw Malformed("a reason cut short") }
            return .processingFailed(reason: reason)
        }
    }
}
