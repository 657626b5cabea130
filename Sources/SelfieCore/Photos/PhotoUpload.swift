import Foundation
import MultipartKit
import NIOCore

/// A photo whose bytes are in the blob store (committed), with its caption, before its row exists.
struct ReceivedPhoto: Sendable {
    let blobKey: BlobKey
    let contentType: String
    let byteSize: Int64
    let title: String
}

/// Reads an upload's `multipart/form-data` body as it streams in. The `image` part goes straight
/// into the blob store, after its first bytes were sniffed with libmagic; the `title` part is
/// collected. Both the iOS app's `Content-Disposition: attachment; name="image"` and browsers'
/// `form-data` parts are understood. Nothing is ever held whole in memory, and on any failure
/// nothing is left in the store.
struct PhotoUploadReader {
    let blobs: any BlobStore
    let maxImageBytes: Int
    /// Room for the title part, part headers and boundaries on top of the image.
    static let envelopeBytes = 64 * 1024
    static let maxTitleCharacters = 500
    /// Part headers (and preamble) larger than this are refused.
    static let maxHeaderBytes = 16 * 1024
    /// libmagic identifies every accepted format from far fewer bytes than this.
    static let sniffBytes = 4096

    var maxBodyBytes: Int { maxImageBytes + Self.envelopeBytes }

    static func boundary(fromContentType contentType: String?) -> String? {
        guard let contentType, contentType.lowercased().hasPrefix("multipart/form-data") else { return nil }
        for parameter in contentType.split(separator: ";").dropFirst() {
            let pair = parameter.split(separator: "=", maxSplits: 1)
            guard pair.count == 2, pair[0].trimmingCharacters(in: .whitespaces).lowercased() == "boundary" else { continue }
            let value = pair[1].trimmingCharacters(in: .whitespaces).trimmingCharacters(in: CharacterSet(charactersIn: "\""))
            return (1...70).contains(value.utf8.count) ? value : nil
        }
        return nil
    }

    func read<Body: AsyncSequence>(body: Body, boundary: String) async throws -> ReceivedPhoto where Body.Element == ByteBuffer {
        var state = UploadState(reader: self)
        do {
            let parser = MultipartParser(boundary: boundary)
            let events = PartEvents()
            parser.onHeader = { events.append(.header($0, $1)) }
            parser.onBody = { events.appendBody(&$0) }
            parser.onPartComplete = { events.append(.partComplete) }

            var received = 0
            var bytesWithoutEvent = 0
            for try await chunk in body {
                received += chunk.readableBytes
                guard received <= maxBodyBytes else { throw PhotoError.tooLarge(maxBytes: maxImageBytes) }
                do {
                    try parser.execute(chunk)
                } catch {
                    throw PhotoError.malformed
                }
                let batch = events.drain()
                // The parser buffers a part's header lines whole: bytes that yield no event are
                // header (or preamble) bytes, and no honest upload has kilobytes of those.
                bytesWithoutEvent = batch.isEmpty ? bytesWithoutEvent + chunk.readableBytes : 0
                guard bytesWithoutEvent <= Self.maxHeaderBytes else { throw PhotoError.malformed }
                for event in batch { try await state.handle(event) }
            }
            return try state.finish()
        } catch {
            await state.cleanUp()
            throw error
        }
    }

    /// What the push parser reported for one chunk. The parser hands body bytes over in small
    /// slices (it stops at every CR); consecutive slices are joined into one buffer, so the store
    /// gets one write per network chunk rather than hundreds.
    private final class PartEvents {
        private var items: [PartEvent] = []
        private var body = ByteBuffer()

        func appendBody(_ bytes: inout ByteBuffer) { body.writeBuffer(&bytes) }

        func append(_ event: PartEvent) {
            flushBody()
            items.append(event)
        }

        func drain() -> [PartEvent] {
            flushBody()
            defer { items.removeAll(keepingCapacity: true) }
            return items
        }

        private func flushBody() {
            guard body.readableBytes > 0 else { return }
            items.append(.body(body))
            body = ByteBuffer()
        }
    }
}

enum PartEvent {
    case header(String, String)
    case body(ByteBuffer)
    case partComplete
}

/// What the reader knows so far; one per upload.
private struct UploadState {
    enum PartKind {
        case image
        case title
        case ignored
    }

    let reader: PhotoUploadReader
    var headers: [(String, String)] = []
    var kind: PartKind?
    // image part
    var sniffBuffer = ByteBuffer()
    var writer: (any BlobWriter)?
    var pendingKey: BlobKey?
    var imageBytes = 0
    var stored: (key: BlobKey, size: Int)?
    // title part
    var titleBuffer = ByteBuffer()
    var title: String?

    init(reader: PhotoUploadReader) { self.reader = reader }

    mutating func handle(_ event: PartEvent) async throws {
        switch event {
        case .header(let name, let value):
            headers.append((name, value))
        case .body(var bytes):
            let kind = try currentKind()
            switch kind {
            case .image:
                imageBytes += bytes.readableBytes
                guard imageBytes <= reader.maxImageBytes else {
                    throw PhotoError.tooLarge(maxBytes: reader.maxImageBytes)
                }
                if let writer {
                    try await writer.write(bytes)
                } else {
                    sniffBuffer.writeBuffer(&bytes)
                    if sniffBuffer.readableBytes >= PhotoUploadReader.sniffBytes { try await startWriting() }
                }
            case .title:
                titleBuffer.writeBuffer(&bytes)
                // UTF-8 needs at most 4 bytes a character; anything longer cannot be a valid caption.
                guard titleBuffer.readableBytes <= PhotoUploadReader.maxTitleCharacters * 4 else {
                    throw PhotoError.titleTooLong(maxCharacters: PhotoUploadReader.maxTitleCharacters)
                }
            case .ignored:
                break
            }
        case .partComplete:
            switch try currentKind() {
            case .image:
                if writer == nil { try await startWriting() }
                try await writer!.commit()
                stored = (pendingKey!, imageBytes)
                writer = nil
            case .title:
                title = String(buffer: titleBuffer)
            case .ignored:
                break
            }
            headers = []
            kind = nil
        }
    }

    /// What the current part is, from its Content-Disposition `name` (decided once per part).
    mutating func currentKind() throws -> PartKind {
        if let kind { return kind }
        let disposition = headers.first { $0.0.lowercased() == "content-disposition" }?.1 ?? ""
        let resolved: PartKind
        switch Self.parameter("name", in: disposition) {
        case "image":
            guard stored == nil, writer == nil, sniffBuffer.readableBytes == 0 else { throw PhotoError.severalImages }
            resolved = .image
        case "title":
            resolved = .title
        default:
            resolved = .ignored
        }
        kind = resolved
        return resolved
    }

    /// Sniffs what has arrived, refuses anything but the accepted image types, opens the writer.
    mutating func startWriting() async throws {
        guard sniffBuffer.readableBytes > 0 else { throw PhotoError.missingImage }
        let sniffed = try await MediaSniffer.shared.mimeType(of: Array(sniffBuffer.readableBytesView))
        guard let key = BlobKey.random(contentType: sniffed) else { throw PhotoError.notAnImage }
        pendingKey = key
        let writer = try await reader.blobs.makeWriter(for: key)
        self.writer = writer
        try await writer.write(sniffBuffer)
        sniffBuffer = ByteBuffer()
    }

    func finish() throws -> ReceivedPhoto {
        guard writer == nil else { throw PhotoError.malformed }  // the body ended inside the image
        guard let stored else { throw PhotoError.missingImage }
        let caption = (title ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        guard caption.unicodeScalars.count <= PhotoUploadReader.maxTitleCharacters else { throw PhotoError.titleTooLong(maxCharacters: PhotoUploadReader.maxTitleCharacters) }
        guard !caption.unicodeScalars.contains(where: { ($0.value < 0x20 && $0 != "\n" && $0 != "\r" && $0 != "\t") || $0.value == 0x7F })
        else { throw PhotoError.titleHasControlCharacters }
        return ReceivedPhoto(blobKey: stored.key, contentType: stored.key.contentType, byteSize: Int64(stored.size), title: caption)
    }

    /// Leaves nothing behind: an open writer is aborted, a committed blob deleted.
    func cleanUp() async {
        await writer?.abort()
        if let stored { try? await reader.blobs.delete(stored.key) }
    }

    /// A parameter of a header value like `attachment; name="image"; filename="photo"`.
    static func parameter(_ name: String, in header: String) -> String? {
        for piece in header.split(separator: ";").dropFirst() {
            let pair = piece.split(separator: "=", maxSplits: 1)
            guard pair.count == 2, pair[0].trimmingCharacters(in: .whitespaces).lowercased() == name else { continue }
            var value = pair[1].trimmingCharacters(in: .whitespaces)
            if value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") { value = String(value.dropFirst().dropLast()) }
            return value
        }
        return nil
    }
}
