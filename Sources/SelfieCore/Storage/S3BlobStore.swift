import AsyncHTTPClient
import Foundation
import Logging
import NIOCore
import NIOHTTP1

/// Blobs as objects in an S3-compatible bucket (AWS, MinIO, Ceph RGW, Garage, …). Photos up to
/// `partSize` go up in one PutObject; larger ones as a multipart upload, `partSize` at a time, so
/// memory per upload stays bounded. Browsers load images straight from the store (presigned URLs).
public struct S3BlobStore: BlobStore {
    var client: S3Client
    /// 5 MiB, the least S3 accepts for a part but the last: bodies above it use multipart upload,
    /// and no upload ever holds more than this in memory.
    static let partSize = 5 * 1024 * 1024
    /// Blobs never change under their key: browsers may keep what a presigned URL loaded (the URL
    /// itself stays the same for a quarter of an hour), and no shared cache may keep it at all.
    static let cacheControl = "private, max-age=86400, immutable"

    public init(configuration: S3Configuration, http: HTTPClient = .shared, logger: Logger) {
        self.client = S3Client(configuration: configuration, http: http, logger: logger)
    }

    func objectKey(_ key: BlobKey) -> String { client.configuration.keyPrefix + key.value }

    public func makeWriter(for key: BlobKey) async throws -> any BlobWriter {
        S3BlobWriter(client: client, objectKey: objectKey(key), contentType: key.contentType)
    }

    public func read(_ key: BlobKey, range: ByteRangeRequest?) async throws -> BlobContent? {
        guard let size = try await size(of: key) else { return nil }
        var served = 0...max(size - 1, 0)
        var headers: [(String, String)] = []
        if let range {
            guard let resolved = range.resolve(size: size) else { throw BlobRangeNotSatisfiable(size: size) }
            served = resolved
            headers.append(("Range", "bytes=\(resolved.lowerBound)-\(resolved.upperBound)"))
        }
        let response = try await client.execute(.GET, objectKey: objectKey(key), headers: headers)
        guard response.status == .ok || response.status == .partialContent else {
            let body = (try? await response.body.collect(upTo: 64 * 1024)) ?? ByteBuffer()
            if response.status == .notFound { return nil }
            throw client.failure(.init(status: response.status, headers: response.headers, body: body), "GetObject")
        }
        let objectKey = objectKey(key)
        return BlobContent(
            totalSize: size,
            contentType: response.headers.first(name: "Content-Type") ?? key.contentType,
            range: served,
            body: BlobBody { sink in
                // A body that breaks off (a reset, the read timeout) is the store failing, like a
                // refused request: `unavailable`. What the sink throws (the reader gone) passes as is.
                var chunks = response.body.makeAsyncIterator()
                while true {
                    let chunk: ByteBuffer?
                    do {
                        chunk = try await chunks.next()
                    } catch {
                        throw BlobStoreError.unavailable("GetObject \(objectKey): the body broke off (\(error))")
                    }
                    guard let chunk else { return }
                    try await sink(chunk)
                }
            }
        )
    }

    /// HeadObject: the size, or nil when there is no such object.
    func size(of key: BlobKey) async throws -> Int? {
        let response = try await client.send(.HEAD, objectKey: objectKey(key))
        if response.status == .notFound { return nil }
        guard response.status == .ok else { throw client.failure(response, "HeadObject") }
        return response.headers.first(name: "Content-Length").flatMap(Int.init) ?? 0
    }

    public func exists(_ key: BlobKey) async throws -> Bool {
        try await size(of: key) != nil
    }

    /// Deleting an object that is not there is fine (S3 answers 204; some stores 404 NoSuchKey).
    /// A 404 for anything else — `NoSuchBucket`, a proxy's page for a wrong endpoint path — is a
    /// failure: the deletion queue would otherwise drop keys whose blobs stay in the real bucket.
    public func delete(_ key: BlobKey) async throws {
        let response = try await client.send(.DELETE, objectKey: objectKey(key))
        if response.status.code < 300 { return }
        if response.status == .notFound, XMLText.values(of: "Code", in: String(buffer: response.body)).first == "NoSuchKey" { return }
        throw client.failure(response, "DeleteObject")
    }

    public func signedURL(for key: BlobKey, lifetime: Duration) -> String {
        client.presignedGetURL(objectKey: objectKey(key), lifetime: lifetime)
    }

    public func list(namesStartingWith namePrefix: String) async throws -> [BlobListing] {
        var listings: [BlobListing] = []
        var continuation: String?
        let prefix = client.configuration.keyPrefix
        repeat {
            var query = [("list-type", "2"), ("prefix", prefix + namePrefix)]
            if let continuation { query.append(("continuation-token", continuation)) }
            let response = try await client.send(.GET, objectKey: nil, query: query)
            guard response.status == .ok else { throw client.failure(response, "ListObjectsV2") }
            let xml = String(buffer: response.body)
            for entry in XMLText.elements("Contents", in: xml) {
                guard let name = XMLText.values(of: "Key", in: entry).first, name.hasPrefix(prefix),
                    let key = BlobKey(String(name.dropFirst(prefix.count)))
                else { continue }
                let modified = XMLText.values(of: "LastModified", in: entry).first.flatMap(Self.parseDate) ?? .now
                listings.append(BlobListing(key: key, lastModified: modified))
            }
            let truncated = XMLText.values(of: "IsTruncated", in: xml).first == "true"
            continuation = truncated ? XMLText.values(of: "NextContinuationToken", in: xml).first : nil
        } while continuation != nil
        return listings
    }

    /// ListMultipartUploads under our prefix, page after page, aborting those initiated before
    /// `cutoff`. (An abort does not move the next page's markers: they name an upload, not a count.)
    public func removeIncompleteUploads(olderThan cutoff: Date, keeping: Set<String>) async throws -> Int {
        var removed = 0
        var next: MultipartUploadListing.Next?
        repeat {
            var query = [("uploads", ""), ("prefix", client.configuration.keyPrefix)]
            if let next { query += [("key-marker", next.keyMarker), ("upload-id-marker", next.uploadIDMarker)] }
            let response = try await client.send(.GET, objectKey: nil, query: query)
            guard response.status == .ok else { throw client.failure(response, "ListMultipartUploads") }
            let page = MultipartUploadListing(xml: String(buffer: response.body))
            for upload in page.uploads {
                guard let initiated = upload.initiated, initiated < cutoff, !keeping.contains(upload.id) else { continue }
                let aborted = try await client.send(.DELETE, objectKey: upload.key, query: [("uploadId", upload.id)])
                if aborted.status.code < 300 || aborted.status == .notFound { removed += 1 }
            }
            // A page that would start where this one did is the store's mistake, not a loop of ours.
            guard page.next != next else { break }
            next = page.next
        } while next != nil
        return removed
    }

    static func parseDate(_ text: String) -> Date? {
        (try? Date.ISO8601FormatStyle(includingFractionalSeconds: true).parse(text))
            ?? (try? Date.ISO8601FormatStyle().parse(text))
    }
}

/// Collects up to one part in a spool file; sends it as one PutObject at commit, or switches to a
/// multipart upload as soon as the photo outgrows one part.
final class S3BlobWriter: BlobWriter {
    private let client: S3Client
    private let objectKey: String
    private let contentType: String
    /// At most one part, on local disk (opened with the first bytes).
    private var spool: S3PartSpool?
    private var uploadID: String?
    private var parts: [(number: Int, etag: String)] = []

    init(client: S3Client, objectKey: String, contentType: String) {
        self.client = client
        self.objectKey = objectKey
        self.contentType = contentType
    }

    func write(_ bytes: ByteBuffer) async throws {
        let spool = try await openSpool()
        var bytes = bytes
        while bytes.readableBytes > 0 {
            let room = S3BlobStore.partSize - spool.count
            try await spool.append(bytes.readSlice(length: min(room, bytes.readableBytes))!)
            if spool.count == S3BlobStore.partSize {
                try await upload(part: spool)
                try await spool.reset()
            }
        }
    }

    func commit() async throws {
        let spool = try await openSpool()
        guard let uploadID else {
            return try await client.putObject(objectKey: objectKey, contentType: contentType, body: .spooled(spool))
        }
        if spool.count > 0 || parts.isEmpty {
            try await upload(part: spool)
        }
        do {
            try await client.completeMultipartUpload(objectKey: objectKey, uploadID: uploadID, parts: parts)
        } catch {
            await abort()
            throw error
        }
        self.uploadID = nil
    }

    func abort() async {
        spool = nil
        guard let uploadID else { return }
        self.uploadID = nil
        let (client, objectKey) = (self.client, self.objectKey)
        _ = try? await evenIfCancelled { try await client.send(.DELETE, objectKey: objectKey, query: [("uploadId", uploadID)]) }
    }

    private func openSpool() async throws -> S3PartSpool {
        if let spool { return spool }
        let opened = try await S3PartSpool.make()
        spool = opened
        return opened
    }

    private func upload(part: S3PartSpool) async throws {
        if uploadID == nil { uploadID = try await client.createMultipartUpload(objectKey: objectKey, contentType: contentType) }
        let number = parts.count + 1
        let etag = try await client.uploadPart(objectKey: objectKey, uploadID: uploadID!, number: number, body: .spooled(part))
        parts.append((number, etag))
    }
}
