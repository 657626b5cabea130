import Foundation
import Logging
import PostgresNIO

/// Storage of photo rows. Every read and delete is scoped to the owner: there is no way to ask
/// for another user's photo.
public protocol PhotoRepository: Sendable {
    func insert(
        userID: Int64,
        publicID: String,
        title: String,
        blobKey: BlobKey,
        contentType: String,
        byteSize: Int64
    ) async throws -> Photo
    /// Newest first, `limit` at most, older than the photo with id `before` if given (a keyset
    /// cursor: it keeps working when that photo has been deleted since).
    func page(userID: Int64, before: Int64?, limit: Int) async throws -> [Photo]
    /// Every photo of the user, oldest first (the API's order).
    func all(userID: Int64) async throws -> [Photo]
    func find(userID: Int64, publicID: String) async throws -> Photo?
    /// Deletes the row and returns it; nil when the user has no such photo.
    func delete(userID: Int64, publicID: String) async throws -> Photo?
    /// Which of `keys` have a row (the orphan sweep's question).
    func existingBlobKeys(among keys: [BlobKey]) async throws -> Set<BlobKey>
    /// Every blob key with a row (to find rows whose blob is missing).
    func allBlobKeys() async throws -> [(publicID: String, blobKey: BlobKey)]
}

public struct PostgresPhotoRepository: PhotoRepository {
    let client: PostgresClient
    let scopedLogger: ScopedLogger
    /// The request's logger while serving one (its id on every line), else the one given at start.
    var logger: Logger { scopedLogger.current }

    public init(client: PostgresClient, logger: Logger) {
        self.client = client
        self.scopedLogger = ScopedLogger(logger)
    }

    private typealias Row = (Int64, String, Int64, String, String, String, Int64, Date)
    private static let columns = "id, public_id, user_id, title, blob_key, content_type, byte_size, created_at"

    public func insert(
        userID: Int64,
        publicID: String,
        title: String,
        blobKey: BlobKey,
        contentType: String,
        byteSize: Int64
    ) async throws -> Photo {
        let photos = try await fetch(
            """
            INSERT INTO photos (public_id, user_id, title, blob_key, content_type, byte_size)
            VALUES (\(publicID), \(userID), \(title), \(blobKey.value), \(contentType), \(byteSize))
            RETURNING \(unescaped: Self.columns)
            """
        )
        guard let photo = photos.first else { throw PhotoRowMissing() }
        return photo
    }

    public func page(userID: Int64, before: Int64?, limit: Int) async throws -> [Photo] {
        try await fetch(
            """
            SELECT \(unescaped: Self.columns) FROM photos
            WHERE user_id = \(userID) AND (\(before)::bigint IS NULL OR id < \(before))
            ORDER BY id DESC LIMIT \(limit)
            """
        )
    }

    public func all(userID: Int64) async throws -> [Photo] {
        try await fetch("SELECT \(unescaped: Self.columns) FROM photos WHERE user_id = \(userID) ORDER BY id")
    }

    public func find(userID: Int64, publicID: String) async throws -> Photo? {
        try await fetch(
            "SELECT \(unescaped: Self.columns) FROM photos WHERE user_id = \(userID) AND public_id = \(publicID)"
        ).first
    }

    public func delete(userID: Int64, publicID: String) async throws -> Photo? {
        try await fetch(
            "DELETE FROM photos WHERE user_id = \(userID) AND public_id = \(publicID) RETURNING \(unescaped: Self.columns)"
        ).first
    }

    public func existingBlobKeys(among keys: [BlobKey]) async throws -> Set<BlobKey> {
        guard !keys.isEmpty else { return [] }
        var found: Set<BlobKey> = []
        let rows = try await client.query(
            "SELECT blob_key FROM photos WHERE blob_key = ANY(\(keys.map(\.value)))",
            logger: logger
        )
        for try await key in rows.decode(String.self) {
            if let key = BlobKey(key) { found.insert(key) }
        }
        return found
    }

    public func allBlobKeys() async throws -> [(publicID: String, blobKey: BlobKey)] {
        var keys: [(String, BlobKey)] = []
        for try await (publicID, key) in try await client.query("SELECT public_id, blob_key FROM photos", logger: logger)
            .decode((String, String).self)
        {
            if let key = BlobKey(key) { keys.append((publicID, key)) }
        }
        return keys
    }

    private func fetch(_ query: PostgresQuery) async throws -> [Photo] {
        var photos: [Photo] = []
        for try await (id, publicID, userID, title, key, contentType, size, created) in try await client.query(
            query,
            logger: logger
        ).decode(Row.self) {
            guard let blobKey = BlobKey(key) else { continue }
            photos.append(
                Photo(
                    id: id,
                    publicID: publicID,
                    userID: userID,
                    title: title,
                    blobKey: blobKey,
                    contentType: contentType,
                    byteSize: size,
                    createdAt: created
                )
            )
        }
        return photos
    }
}

struct PhotoRowMissing: Error {}
