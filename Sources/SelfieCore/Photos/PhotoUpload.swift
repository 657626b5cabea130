import Crypto
import Foundation
import MultipartStream
import NIOCore

/// A photo whose bytes are in the blob store (committed), with its caption, before its row exists.
struct ReceivedPhoto: Sendable {
    let blobKey: BlobKey
    let contentType: String
    let byteSize: Int64
    let title: String
    /// Of the bytes as stored.
    let sha256: [UInt8]
}

/// Reads an upload's `multipart/form-data` body as it streams in. The `image` part goes straight
/// into the blob store, after its first bytes were sniffed with libmagic; the `title` part is
/// collected. Both the iOS app's `Content-Disposition: attachment; name="image"` and browsers'
/// `form-data` parts are understood. Nothing is ever held whole in memory, and on any failure
/// nothing is left in the store.
struct PhotoUploadReader {
    let blobs: any BlobStore
    let maxImageBytes: Int
    /// The owner's quota and what was left of it when the upload began; nil when there is no limit.
    let quota: QuotaRoom?
    /// Room for the title part, part headers and boundaries on top of the image.
    static let envelopeBytes = 64 * 1024
    static let maxTitleCharacters = 500
    /// Part headers (and preamble) larger than this are refused.
    static let maxHeaderBytes = 16 * 1024
    /// libmagic identifies every accepted format from far fewer bytes than this.
    /// A photo's caption as given with any upload (the form's `title`, tus's metadata): trimmed,
    /// at most `maxTitleCharacters`, no control characters but line breaks and tabs.
    static func caption(_ raw: String) throws -> String {
        let caption = raw.trimmingCharacters(in: .whitespacesAndNewlines)
        guard caption.unicodeScalars.count <= maxTitleCharacters else { throw PhotoError.titleTooLong(maxCharacters: maxTitleCharacters) }
        guard !caption.unicodeScalars.contains(where: { ($0.value < 0x20 && $0 != "\n" && $0 != "\r" && $0 != "\t") || $0.value == 0x7F }),
            !caption.containsDirectionOverrides
        else { throw PhotoError.titleHasControlCharacters }
        return caption
    }

    static let sniffBytes = 4096

    var maxBodyBytes: Int { maxImageBytes + Self.envelopeBytes }

    /// The boundary of a `multipart/form-data` content type, if it is one.
    static func boundary(fromContentType contentType: String?) -> String? {
        guard let contentType, contentType.lowercased().hasPrefix("multipart/form-data") else { return nil }
        return MultipartHeaders.boundary(fromContentType: contentType)
    }

    func read<Body: AsyncSequence>(body: Body, boundary: String) async throws -> ReceivedPhoto where Body.Element == ByteBuffer {
        var state = UploadState(reader: self)
        do {
            var parser = try MultipartStreamParser(
                boundary: boundary,
                maxHeaderBytes: Self.maxHeaderBytes,
                maxPreambleBytes: Self.maxHeaderBytes
            )
            var received = 0
            for try await chunk in body {
                received += chunk.readableBytes
                guard received <= maxBodyBytes else { throw PhotoError.tooLarge(maxBytes: maxImageBytes) }
                for event in try parser.feed(chunk) { try await state.handle(event) }
            }
            try parser.finish()
            return try state.finish()
        } catch let error as MultipartError {
            await state.cleanUp()
            throw PhotoError(error)
        } catch {
            await state.cleanUp()
            throw error
        }
    }
}

extension PhotoError {
    /// Every way a multipart body can be broken is, to the person uploading, one: it could not be read.
    init(_ error: MultipartError) { self = .malformed }
}

/// What the reader knows so far; one per upload.
private struct UploadState {
    enum PartKind {
        case image
        case title
        case ignored
    }

    let reader: PhotoUploadReader
    var kind: PartKind?
    // image part
    var sniffBuffer = ByteBuffer()
    var writer: (any BlobWriter)?
    var pendingKey: BlobKey?
    var imageBytes = 0
    var hasher = SHA256()
    var stored: (key: BlobKey, size: Int, sha256: [UInt8])?
    // title part
    var titleBuffer = ByteBuffer()
    var title: String?

    init(reader: PhotoUploadReader) { self.reader = reader }

    mutating func handle(_ event: MultipartEvent) async throws {
        switch event {
        case .partHeaders(let headers):
            kind = try kind(of: headers)
        case .body(var bytes):
            switch kind {
            case .image:
                imageBytes += bytes.readableBytes
                guard imageBytes <= reader.maxImageBytes else {
                    throw PhotoError.tooLarge(maxBytes: reader.maxImageBytes)
                }
                if let quota = reader.quota, imageBytes > quota.availableBytes {
                    throw PhotoError.overQuota(quotaBytes: quota.quotaBytes, availableBytes: quota.availableBytes)
                }
                if let writer {
                    hasher.update(data: bytes.readableBytesView)
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
            case .ignored, nil:
                break
            }
        case .partEnd:
            switch kind {
            case .image:
                if writer == nil { try await startWriting() }
                try await writer!.commit()
                stored = (pendingKey!, imageBytes, Array(hasher.finalize()))
                writer = nil
            case .title:
                title = String(buffer: titleBuffer)
            case .ignored, nil:
                break
            }
            kind = nil
        }
    }

    /// What a part is, from its Content-Disposition `name` (`attachment` or `form-data` alike).
    func kind(of headers: [(name: String, value: String)]) throws -> PartKind {
        let disposition = MultipartHeaders.value(of: "Content-Disposition", in: headers) ?? ""
        switch MultipartHeaders.parameter("name", in: disposition) {
        case "image":
            guard stored == nil, writer == nil, sniffBuffer.readableBytes == 0 else { throw PhotoError.severalImages }
            return .image
        case "title":
            guard title == nil, titleBuffer.readableBytes == 0 else { throw PhotoError.severalTitles }
            return .title
        default:
            return .ignored
        }
    }

    /// Sniffs what has arrived, refuses anything but the accepted image types, opens the writer.
    mutating func startWriting() async throws {
        guard sniffBuffer.readableBytes > 0 else { throw PhotoError.missingImage }
        let sniffed = try await MediaSniffer.shared.mimeType(of: Array(sniffBuffer.readableBytesView))
        guard let key = BlobKey.random(contentType: sniffed) else { throw PhotoError.notAnImage }
        pendingKey = key
        let writer = try await reader.blobs.makeWriter(for: key)
        self.writer = writer
        hasher.update(data: sniffBuffer.readableBytesView)
        try await writer.write(sniffBuffer)
        sniffBuffer = ByteBuffer()
    }

    func finish() throws -> ReceivedPhoto {
        guard writer == nil else { throw PhotoError.malformed }  // the body ended inside the image
        guard let stored else { throw PhotoError.missingImage }
        let caption = try PhotoUploadReader.caption(title ?? "")
        return ReceivedPhoto(blobKey: stored.key, contentType: stored.key.contentType, byteSize: Int64(stored.size), title: caption, sha256: stored.sha256)
    }

    /// Leaves nothing behind: an open writer is aborted, a committed blob deleted.
    func cleanUp() async {
        await writer?.abort()
        if let stored {
            let (blobs, key) = (reader.blobs, stored.key)
            try? await evenIfCancelled { try await blobs.delete(key) }
        }
    }
}
