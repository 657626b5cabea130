import Base64URLCoding
import Foundation
import Logging
import NIOCore

/// The name of a stored photo: 32 random URL-safe characters and the extension of its sniffed
/// type (`Xy…9Q.jpg`). Always made by the server; never from a client's filename.
public struct BlobKey: Sendable, Hashable, CustomStringConvertible {
    public let value: String

    /// Image types Selfie stores, by the MIME type libmagic reports.
    static let extensions: [String: String] = [
        "image/jpeg": "jpg", "image/png": "png", "image/gif": "gif", "image/webp": "webp", "image/heic": "heic",
    ]

    /// A new random key for content of `contentType` (one of `extensions`).
    static func random(contentType: String) -> BlobKey? {
        guard let ext = extensions[contentType] else { return nil }
        return BlobKey(unchecked: "\(RandomToken.urlSafe(byteCount: 24)).\(ext)")
    }

    /// Accepts only the shape the server makes, so a key can never walk out of the store's folder:
    /// 32 base64url characters, a dot, one of `extensions`. Checked on the string's contiguous
    /// UTF-8 bytes: every photo row read carries up to four keys.
    public init?(_ value: String) {
        var value = value
        guard value.withUTF8(Self.isKey) else { return nil }
        self.value = value
    }

    private static func isKey(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard bytes.count > 33, bytes[32] == UInt8(ascii: ".") else { return false }
        for byte in bytes[..<32] where !Base64URL.isSymbol(byte) { return false }
        let ext = UnsafeBufferPointer(rebasing: bytes[33...])
        return extensionBytes.contains { $0.elementsEqual(ext) }
    }

    private static let extensionBytes = extensions.values.map { Array($0.utf8) }

    private init(unchecked value: String) { self.value = value }

    /// The MIME type its extension stands for.
    public var contentType: String {
        let bytes = value.utf8
        let ext = bytes.lastIndex(of: UInt8(ascii: ".")).map { bytes[bytes.index(after: $0)...] } ?? bytes[...]
        return Self.extensions.first { $0.value.utf8.elementsEqual(ext) }?.key ?? "application/octet-stream"
    }

    public var description: String { value }
}

/// One stored blob, as listed for the sweep and the integrity check.
public struct BlobListing: Sendable {
    public let key: BlobKey
    public let lastModified: Date
}

/// Part of a blob, as read back.
public struct BlobContent: Sendable {
    /// Size of the whole blob.
    public let totalSize: Int
    public let contentType: String
    /// The bytes served (all of them, or the requested range).
    public let range: ClosedRange<Int>
    public let body: BlobBody
}

/// A blob's bytes as they are read: `write` is called with each chunk, in order. Nothing is read
/// until the body is written somewhere (a response, an archive), and never all at once.
public struct BlobBody: Sendable {
    public let write: @Sendable (_ sink: (ByteBuffer) async throws -> Void) async throws -> Void

    public init(write: @escaping @Sendable (_ sink: (ByteBuffer) async throws -> Void) async throws -> Void) {
        self.write = write
    }

    /// The body of an async sequence of buffers (an HTTP client's response body).
    public init<Bytes: AsyncSequence & Sendable>(_ bytes: Bytes) where Bytes.Element == ByteBuffer {
        self.write = { sink in
            for try await chunk in bytes { try await sink(chunk) }
        }
    }
}

/// Failures of a blob store that are not the request's fault.
public enum BlobStoreError: Error {
    /// The store cannot be reached or refuses us (network, credentials, bucket): a 503.
    case unavailable(String)
    /// The disk is full or the folder is not writable: a 507.
    case insufficientStorage(String)
}

/// Where photo bytes live: the filesystem (default) or an S3-compatible object store. Bytes are
/// streamed in through a writer; nothing is visible under a key until the writer commits.
public protocol BlobStore: Sendable {
    func makeWriter(for key: BlobKey) async throws -> any BlobWriter
    /// Reads the blob (or `range` of it); nil when it does not exist. A range past the end throws
    /// `BlobRangeNotSatisfiable`.
    func read(_ key: BlobKey, range: ByteRangeRequest?) async throws -> BlobContent?
    func exists(_ key: BlobKey) async throws -> Bool
    /// Deletes the blob; deleting a missing blob is not an error.
    func delete(_ key: BlobKey) async throws
    /// An absolute URL anyone may GET until about `lifetime` from now.
    func signedURL(for key: BlobKey, lifetime: Duration) -> String
    /// The blobs whose names start with `prefix` (every blob for ""). A blob whose age cannot be
    /// read is listed as new, so the sweep never takes it for an old orphan.
    func list(namesStartingWith prefix: String) async throws -> [BlobListing]
    /// Removes uploads that were started before `cutoff` and never finished (a crash or a lost
    /// connection before commit or abort), and the parts of resumable uploads not in `keeping`
    /// (what unfinished uploads hold: their ids and their S3 multipart upload ids); returns how many.
    func removeIncompleteUploads(olderThan cutoff: Date, keeping: Set<String>) async throws -> Int
}

extension BlobStore {
    /// Every blob in the store.
    public func list() async throws -> [BlobListing] { try await list(namesStartingWith: "") }

    func removeIncompleteUploads(olderThan cutoff: Date) async throws -> Int {
        try await removeIncompleteUploads(olderThan: cutoff, keeping: [])
    }
}

/// Receives a blob's bytes in order. `commit` makes it visible; `abort` leaves nothing behind.
public protocol BlobWriter: AnyObject {
    func write(_ bytes: ByteBuffer) async throws
    func commit() async throws
    func abort() async
}

/// A `Range: bytes=…` request, before the blob's size is known.
public enum ByteRangeRequest: Sendable, Equatable {
    case from(Int, through: Int?)
    case suffix(Int)

    /// Parses a single range (`bytes=0-99`, `bytes=100-`, `bytes=-50`); multiple ranges and other
    /// units are ignored (the whole blob is served, as RFC 9110 allows).
    public init?(header: String) {
        guard header.hasPrefix("bytes="), !header.contains(",") else { return nil }
        let spec = header.dropFirst("bytes=".count).trimmingCharacters(in: .whitespaces)
        let parts = spec.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2 else { return nil }
        if parts[0].isEmpty {
            guard let count = Int(parts[1]), count > 0 else { return nil }
            self = .suffix(count)
        } else {
            guard let start = Int(parts[0]), start >= 0 else { return nil }
            if parts[1].isEmpty {
                self = .from(start, through: nil)
            } else {
                guard let end = Int(parts[1]), end >= start else { return nil }
                self = .from(start, through: end)
            }
        }
    }

    /// The bytes to serve of a blob of `size`, or nil when the range cannot be satisfied.
    func resolve(size: Int) -> ClosedRange<Int>? {
        guard size > 0 else { return nil }
        switch self {
        case .from(let start, let end):
            guard start < size else { return nil }
            return start...min(end ?? size - 1, size - 1)
        case .suffix(let count):
            return max(0, size - count)...(size - 1)
        }
    }
}

/// A range beyond the end of the blob (answered 416 with the blob's size).
public struct BlobRangeNotSatisfiable: Error {
    public let size: Int
}
