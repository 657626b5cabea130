import Foundation
import NIOCore

/// Resumable uploads on S3: an S3 multipart upload. Bytes gather in a spool file on local disk
/// (after what the row keeps as the tail) until a part of `S3BlobStore.partSize` is full; each full
/// part goes up at once, streamed from the file, numbered after the recorded ones — so a part sent
/// by a PATCH whose offset was never recorded is sent again under the same number and replaces
/// itself. The PATCH that brings the last byte sends what remains as the last part (smaller parts
/// are allowed last), so a remainder waits in the row (and in memory) only between PATCHes that end
/// mid-part. The multipart upload begins with its first part, under a key of the type the first
/// bytes show; an empty file goes up in one PutObject at completion.
public struct S3PartStorage: PartStorage {
    let store: S3BlobStore
    var client: S3Client { store.client }

    public init(store: S3BlobStore) { self.store = store }

    public func append<Bytes: AsyncSequence & Sendable>(_ bytes: Bytes, to upload: ResumableUpload, limit: Int64) async throws -> PartProgress
    where Bytes.Element == ByteBuffer {
        var state = upload.partState
        var offset = upload.storedOffset
        let spool = try await S3PartSpool.make()
        do {
            if state.tail.readableBytes > 0 { try await spool.append(state.tail) }
            for try await var chunk in bytes {
                guard offset + Int64(chunk.readableBytes) <= limit else { throw PartLimitExceeded() }
                if state.head.count < PhotoUploadReader.sniffBytes {
                    state.head.append(contentsOf: chunk.readableBytesView.prefix(PhotoUploadReader.sniffBytes - state.head.count))
                }
                while chunk.readableBytes > 0 {
                    let piece = chunk.readSlice(length: min(S3BlobStore.partSize - spool.count, chunk.readableBytes))!
                    try await spool.append(piece)
                    offset += Int64(piece.readableBytes)
                    if spool.count == S3BlobStore.partSize {
                        try await send(spool, state: &state)
                        try await spool.reset()
                    }
                }
            }
            if offset == limit && spool.count > 0 {
                // The last bytes: they go up as the last part (which may be smaller than the
                // others), straight from the spool, rather than into the row and back out at
                // completion. A failure here keeps them as the tail, like any other.
                try await send(spool, state: &state)
                try await spool.reset()
            }
            state.tail = try await spool.contents()
        } catch {
            // What arrived is kept: the bytes of a part not yet sent become the row's tail (read
            // even when the PATCH was cancelled: its deadline cancels it).
            state.tail = (try? await evenIfCancelled { try await spool.contents() }) ?? ByteBuffer()
            let kept = Int64(state.parts.reduce(0) { $0 + $1.bytes }) + Int64(state.tail.readableBytes)
            throw PartialAppend(progress: PartProgress(offset: kept, state: state), underlying: error)
        }
        return PartProgress(offset: offset, state: state)
    }

    /// Sends the next part, beginning the multipart upload with the first.
    private func send(_ part: S3PartSpool, state: inout PartState) async throws {
        if state.s3UploadID == nil {
            let key = try await Self.key(for: state.head)
            state.s3UploadID = try await client.createMultipartUpload(objectKey: store.objectKey(key), contentType: key.contentType)
            state.blobKey = key.value
        }
        guard let uploadID = state.s3UploadID, let key = state.blobKey.flatMap(BlobKey.init) else { throw PhotoError.notAnImage }
        let number = state.parts.count + 1
        let etag = try await client.uploadPart(objectKey: store.objectKey(key), uploadID: uploadID, number: number, body: .spooled(part))
        state.parts.append(PartState.Part(number: number, etag: etag, bytes: Int64(part.count)))
    }

    /// A key for what the first bytes show; `PhotoError.notAnImage` for anything else.
    static func key(for head: Data) async throws -> BlobKey {
        let sniffed = try await MediaSniffer.shared.mimeType(of: Array(head))
        guard let key = BlobKey.random(contentType: sniffed) else { throw PhotoError.notAnImage }
        return key
    }

    public func head(of upload: ResumableUpload, count: Int) async throws -> ByteBuffer {
        ByteBuffer(bytes: upload.partState.head.prefix(count))
    }

    public func complete(_ upload: ResumableUpload, contentType: String) async throws -> BlobKey {
        let state = upload.partState
        guard let uploadID = state.s3UploadID, let key = state.blobKey.flatMap(BlobKey.init) else {
            guard let key = BlobKey.random(contentType: contentType) else { throw PhotoError.notAnImage }
            try await client.putObject(objectKey: store.objectKey(key), contentType: contentType, body: .bytes(state.tail))
            return key
        }
        guard key.contentType == contentType else { throw PhotoError.notAnImage }
        var parts = state.parts.map { (number: $0.number, etag: $0.etag) }
        if state.tail.readableBytes > 0 {
            let number = parts.count + 1
            parts.append((number, try await client.uploadPart(objectKey: store.objectKey(key), uploadID: uploadID, number: number, body: .bytes(state.tail))))
        }
        try await client.completeMultipartUpload(objectKey: store.objectKey(key), uploadID: uploadID, parts: parts)
        return key
    }

    public func discard(_ upload: ResumableUpload) async throws {
        guard let uploadID = upload.partState.s3UploadID, let key = upload.partState.blobKey.flatMap(BlobKey.init) else { return }
        try await client.abortMultipartUpload(objectKey: store.objectKey(key), uploadID: uploadID)
    }
}
