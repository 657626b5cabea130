import Foundation
import NIOCore

/// What a store keeps in an upload's row between requests: for S3 its multipart upload (the key
/// chosen when it began, the parts sent, and the bytes after the last part, fewer than a part);
/// nothing for the filesystem, whose part file is its own state.
public struct PartState: Sendable, Equatable, Codable {
    public struct Part: Sendable, Equatable, Codable {
        public let number: Int
        public let etag: String
        public let bytes: Int64
    }

    public var s3UploadID: String?
    public var blobKey: String?
    public var parts: [Part] = []
    /// The upload's first bytes (to sniff what it is before it is complete).
    public var head = Data()
    /// The bytes after the last part (kept in their own `bytea` column, not in the JSON).
    public var tail = ByteBuffer()

    enum CodingKeys: String, CodingKey { case s3UploadID, blobKey, parts, head }

    public init() {}
}

/// How far an append got, and the state to record with that offset.
public struct PartProgress: Sendable {
    public let offset: Int64
    public let state: PartState
}

/// Where a resumable upload's bytes wait until the last one arrives, in the blob store's own
/// terms: a part file beside the blobs, or an S3 multipart upload. Every call starts from what the
/// row records (`storedOffset`, `partState`): bytes a failed PATCH stored beyond it are dropped or
/// sent again under the same part number, never counted twice. Nothing an append returns counts
/// until the service records it with its offset.
public protocol PartStorage: Sendable {
    /// Stores `bytes` after the upload's recorded offset, never past `limit`.
    func append<Bytes: AsyncSequence & Sendable>(_ bytes: Bytes, to upload: ResumableUpload, limit: Int64) async throws -> PartProgress
    where Bytes.Element == ByteBuffer
    /// The upload's first `count` bytes.
    func head(of upload: ResumableUpload, count: Int) async throws -> ByteBuffer
    /// Every byte is stored: they become a blob of `contentType`; its key.
    func complete(_ upload: ResumableUpload, contentType: String) async throws -> BlobKey
    /// Drops what is stored (terminated or expired); nothing stored is not an error.
    func discard(_ upload: ResumableUpload) async throws
}

/// The bytes of a PATCH went past `Upload-Length`.
public struct PartLimitExceeded: Error {}

/// The bytes recorded before an append are no longer where they were kept (a part file removed or
/// cut short): the upload cannot go on from its offset.
public struct PartMissing: Error {}

/// An append that failed after some bytes were stored: what to record if they count, and why.
public struct PartialAppend: Error {
    public let progress: PartProgress
    public let underlying: any Error
}
