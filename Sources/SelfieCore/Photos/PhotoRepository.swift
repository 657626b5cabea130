import Foundation
import Logging
import PostgresNIO

/// A photo to insert: its original in the blob store and the renditions made from it.
public struct NewPhoto: Sendable {
    public var userID: Int64
    public var publicID: String
    public var title: String
    public var blobKey: BlobKey
    public var contentType: String
    public var byteSize: Int64
    public var width: Int
    public var height: Int
    public var takenAt: Date?
    /// See `Photo.takenAtIsLocalTime`.
    public var takenAtIsLocalTime = false
    public var renditions: [PhotoRendition]
    /// Of the original's bytes as stored.
    public var sha256: [UInt8]? = nil

    /// What it takes in the store: the original and every rendition.
    var totalBytes: Int64 { byteSize + renditions.reduce(0) { $0 + $1.byteSize } }
}

/// Storage of photo rows and their renditions. Every read and delete a person can cause is scoped to
/// the owner: there is no way to ask for another user's photo.
public struct PhotoRepository: Sendable {
    let client: PostgresClient
    let scopedLogger: ScopedLogger
    /// The request's logger while serving one (its id on every line), else the one given at start.
    var logger: Logger { scopedLogger.current }

    let statements: HotStatements

    /// - Parameter preparedStatements: whether the gallery's and the API's pages are prepared
    ///   (`DATABASE_PREPARED_STATEMENTS`; the command line's tools send neither).
    public init(client: PostgresClient, preparedStatements: Bool = true, loopConnections: LoopConnections? = nil, logger: Logger) {
        self.client = client
        self.scopedLogger = ScopedLogger(logger)
        self.statements = HotStatements(client: client, prepared: preparedStatements, loopConnections: loopConnections)
    }

    /// The photo's columns from `photos` aliased `p`, then its renditions packed one per text
    /// (fields separated by tabs, which none of them can contain), in one round trip.
    private static let columns = """
        p.id, p.public_id, p.user_id, p.title, p.blob_key, p.content_type, p.byte_size, p.created_at, p.width, p.height, p.taken_at, p.taken_at_local, p.trashed_at,
        coalesce((SELECT array_agg(r.name || E'\\t' || r.blob_key || E'\\t' || r.content_type || E'\\t' || r.width || E'\\t'
            || r.height || E'\\t' || r.byte_size ORDER BY r.name) FROM photo_renditions r WHERE r.photo_id = p.id), '{}')
        """
    private typealias Row = (Int64, String, Int64, String, String, String, Int64, Date, Int?, Int?, Date?, Bool, Date?, [String])

    /// Inserts the photo and its renditions in one transaction, if they fit under the owner's quota
    /// (`defaultQuota` for those who follow the default; 0 is no limit): the owner's row is locked
    /// first, so uploads of one user are counted one after another and two at once never pass the
    /// quota together. `PhotoError.overQuota` when it does not fit and `RowRefused` when PostgreSQL
    /// refused the row (no row exists after either); any other error may have committed.
    /// With `finishing`, the resumable upload it came from is recorded as this photo in the same
    /// transaction.
    func insert(_ photo: NewPhoto, defaultQuota: Int64, finishing upload: FinishingUpload? = nil) async throws -> Photo {
        let logger = self.logger
        do {
            return try await client.transaction(logger: logger) { connection in
                let owner = try await connection.query(
                    "SELECT quota_bytes FROM users WHERE id = \(photo.userID) FOR UPDATE",
                    logger: logger
                ).collect()
                if let row = owner.first, let quota = QuotaSetting(column: try row.decode(Int64?.self)).effectiveBytes(default: defaultQuota) {
                    // A statement after the lock: its snapshot sees every upload committed before it.
                    let used = try await Self.usedBytes(userID: photo.userID, on: connection, logger: logger)
                    if used + photo.totalBytes > quota {
                        throw PhotoError.overQuota(quotaBytes: quota, availableBytes: max(0, quota - used))
                    }
                }
                let stored = try await Self.insertRows(photo, on: connection, logger: logger)
                if let upload {
                    try await ResumableUploadRepository.complete(upload, photoPublicID: photo.publicID, on: connection, logger: logger)
                }
                return stored
            }
        } catch let error as TransactionError {
            if let refusal = error.closureError as? PhotoError { throw refusal }
            if let server = error.closureError as? PSQLError, server.code == .server, !server.isUnavailable, error.rollbackError == nil {
                throw RowRefused(isRejectedValue: server.isRejectedValue, reason: String(reflecting: server))
            }
            throw error
        }
    }

    /// Whether the user's photo `publicID` exists, asked once no transaction inserting it is under
    /// way: the user's row is locked first (an insert holds that lock until it commits or rolls
    /// back), then a statement of its own looks. What an insert came to when its connection broke
    /// before its answer arrived.
    func isStored(publicID: String, userID: Int64) async throws -> Bool {
        let logger = self.logger
        return try await afterALostAnswer(locking: "SELECT 1 FROM users WHERE id = \(userID) FOR KEY SHARE") { connection in
            let rows = try await connection.query(
                "SELECT count(*)::int FROM photos WHERE public_id = \(publicID) AND user_id = \(userID)", logger: logger
            )
            for try await count in rows.decode(Int.self) { return count == 1 }
            return false
        }
    }

    /// Which of `keys` are the photo's renditions, asked once no remake of them is under way (it
    /// holds the photo's row until it commits or rolls back): what a remake came to when its
    /// connection broke before its answer arrived.
    func recordedRenditions(of photoID: Int64, among keys: [BlobKey]) async throws -> Set<BlobKey> {
        let logger = self.logger
        return try await afterALostAnswer(locking: "SELECT 1 FROM photos WHERE id = \(photoID) FOR SHARE") { connection in
            var recorded: Set<BlobKey> = []
            let rows = try await connection.query(
                "SELECT blob_key FROM photo_renditions WHERE photo_id = \(photoID) AND blob_key = ANY(\(keys.map(\.value)))", logger: logger
            )
            for try await key in rows.decode(String.self) { if let key = BlobKey(key) { recorded.insert(key) } }
            return recorded
        }
    }

    /// `look` in a transaction that first takes `locking`, a lock the transaction whose answer was
    /// lost held until it ended. Not for ever: a backend that has not noticed its client is gone
    /// may hold that lock until TCP gives up (15 s, then the caller knows nothing). Tried three
    /// times when a connection cannot even begin (nothing ran): the pool may hand out one that
    /// closed with the break, before it notices.
    private func afterALostAnswer<T: Sendable>(locking: PostgresQuery, _ look: @escaping @Sendable (PostgresConnection) async throws -> T) async throws -> T {
        let logger = self.logger
        var attempt = 1
        while true {
            do {
                return try await client.transaction(logger: logger) { connection in
                    try await connection.query("SET LOCAL lock_timeout = '15s'", logger: logger)
                    try await connection.query(locking, logger: logger)
                    return try await look(connection)
                }
            } catch let error as TransactionError where error.beginError != nil && attempt < 3 {
                attempt += 1
                try await Task.sleep(for: .milliseconds(100))
            }
        }
    }

    /// Bytes the user keeps: originals and renditions, the trash included (on `connection`, after
    /// the user's row is locked: also what a resumable upload's creation counts).
    static func usedBytes(userID: Int64, on connection: PostgresConnection, logger: Logger) async throws -> Int64 {
        let rows = try await connection.query(
            """
            SELECT (SELECT coalesce(sum(byte_size), 0)::bigint FROM photos WHERE user_id = \(userID))
                + (SELECT coalesce(sum(r.byte_size), 0)::bigint FROM photo_renditions r JOIN photos p ON p.id = r.photo_id
                   WHERE p.user_id = \(userID))
            """,
            logger: logger
        )
        for try await used in rows.decode(Int64.self) { return used }
        return 0
    }

    /// What the user keeps and may keep, and how many photos (in the gallery, in the trash).
    public func usage(userID: Int64, defaultQuota: Int64) async throws -> StorageUsage {
        let rows = try await client.query(
            """
            SELECT u.quota_bytes,
                count(p.id) FILTER (WHERE p.trashed_at IS NULL)::int,
                count(p.id) FILTER (WHERE p.trashed_at IS NOT NULL)::int,
                coalesce(sum(p.byte_size + r.bytes), 0)::bigint,
                coalesce(sum(p.byte_size + r.bytes) FILTER (WHERE p.trashed_at IS NOT NULL), 0)::bigint
            FROM users u
            LEFT JOIN photos p ON p.user_id = u.id
            LEFT JOIN LATERAL (SELECT coalesce(sum(byte_size), 0)::bigint AS bytes FROM photo_renditions WHERE photo_id = p.id) r ON true
            WHERE u.id = \(userID)
            GROUP BY u.id
            """,
            logger: logger
        )
        for try await (quota, photos, trashed, used, trashedBytes) in rows.decode((Int64?, Int, Int, Int64, Int64).self) {
            return StorageUsage(
                usedBytes: used,
                quotaBytes: QuotaSetting(column: quota).effectiveBytes(default: defaultQuota),
                photos: photos,
                trashedPhotos: trashed,
                trashedBytes: trashedBytes
            )
        }
        return StorageUsage(usedBytes: 0, quotaBytes: nil, photos: 0, trashedPhotos: 0, trashedBytes: 0)
    }

    private static func insertRows(_ photo: NewPhoto, on connection: PostgresConnection, logger: Logger) async throws -> Photo {
        let renditions = photo.renditions
        let rows = try await connection.query(
            """
            WITH p AS (
                INSERT INTO photos (public_id, user_id, title, blob_key, content_type, byte_size, width, height, taken_at, taken_at_local, sha256)
                VALUES (\(photo.publicID), \(photo.userID), \(photo.title), \(photo.blobKey.value), \(photo.contentType),
                        \(photo.byteSize), \(photo.width), \(photo.height), \(photo.takenAt), \(photo.takenAtIsLocalTime), decode(\(photo.sha256?.hexString), 'hex'))
                RETURNING id, created_at
            ), r AS (
                INSERT INTO photo_renditions (photo_id, name, blob_key, content_type, width, height, byte_size, sha256)
                SELECT p.id, u.name, u.blob_key, u.content_type, u.width, u.height, u.byte_size, decode(nullif(u.sha256, ''), 'hex') FROM p, unnest(
                    \(renditions.map(\.name.rawValue))::text[], \(renditions.map(\.blobKey.value))::text[],
                    \(renditions.map(\.contentType))::text[], \(renditions.map(\.width))::int[],
                    \(renditions.map(\.height))::int[], \(renditions.map(\.byteSize))::bigint[],
                    \(renditions.map { $0.sha256?.hexString ?? "" })::text[]
                ) AS u(name, blob_key, content_type, width, height, byte_size, sha256)
                RETURNING 1
            )
            SELECT p.id, p.created_at, (SELECT count(*)::int FROM r) FROM p
            """,
            logger: logger
        )
        for try await (id, createdAt, _) in rows.decode((Int64, Date, Int).self) {
            return Photo(
                id: id,
                publicID: photo.publicID,
                userID: photo.userID,
                title: photo.title,
                blobKey: photo.blobKey,
                contentType: photo.contentType,
                byteSize: photo.byteSize,
                createdAt: createdAt,
                width: photo.width,
                height: photo.height,
                takenAt: photo.takenAt,
                takenAtIsLocalTime: photo.takenAtIsLocalTime,
                trashedAt: nil,
                renditions: renditions
            )
        }
        throw PhotoRowMissing()
    }

    /// The most recently uploaded first, `limit` at most, uploaded before the photo with id
    /// `before` if given (the API's pages: a keyset cursor that keeps working when that photo has
    /// been deleted since).
    /// Each photo carries its display copy only (`image_url`, the one rendition the API shows).
    public func pageByUpload(userID: Int64, before: Int64?, limit: Int) async throws -> [Photo] {
        let page = PhotosByUpload(userID: userID, before: before ?? .max, limit: limit)
        return try await statements.rows(page, logger: logger).compactMap { $0 }
    }

    /// What galleries and albums show, in their order: the latest taken (else uploaded) first,
    /// `limit` at most, after `position` if given. `album` limits it to that album's photos
    /// (which are all the owner's).
    /// The gallery's pages (no album) carry the grid's two thumbnails only; album pages (the owner's,
    /// a share link's, the API's, a link's download) every rendition.
    public func page(userID: Int64, album: Int64? = nil, after position: PhotoPosition?, limit: Int) async throws -> [Photo] {
        let after = position ?? PhotoPosition(microseconds: PhotoPosition.years1to9999.upperBound, id: .max)
        guard let album else {
            return try await statements.rows(GalleryPage(userID: userID, after: after, limit: limit), logger: logger).compactMap { $0 }
        }
        return try await statements.rows(AlbumPage(userID: userID, albumID: album, after: after, limit: limit), logger: logger).compactMap { $0 }
    }

    /// The photos on either side of `photo` in the order of `page(userID:album:after:limit:)`:
    /// the one shown before it (newer) and the one after it (older).
    public func neighbours(of photo: Photo, album: Int64? = nil) async throws -> (newer: String?, older: String?) {
        let position = photo.position
        // Two index walks from the photo's position (photos_user_shown_at_idx), one each way.
        let rows = try await client.query(
            """
            SELECT
                (SELECT p.public_id FROM photos p
                 WHERE p.user_id = \(photo.userID) AND p.trashed_at IS NULL
                   AND (coalesce(p.taken_at, p.created_at), p.id) > (timestamptz 'epoch' + \(position.microseconds) * interval '1 microsecond', \(position.id))
                   AND (\(album)::bigint IS NULL OR EXISTS (SELECT 1 FROM album_photos a WHERE a.album_id = \(album) AND a.photo_id = p.id))
                 ORDER BY coalesce(p.taken_at, p.created_at), p.id LIMIT 1),
                (SELECT p.public_id FROM photos p
                 WHERE p.user_id = \(photo.userID) AND p.trashed_at IS NULL
                   AND (coalesce(p.taken_at, p.created_at), p.id) < (timestamptz 'epoch' + \(position.microseconds) * interval '1 microsecond', \(position.id))
                   AND (\(album)::bigint IS NULL OR EXISTS (SELECT 1 FROM album_photos a WHERE a.album_id = \(album) AND a.photo_id = p.id))
                 ORDER BY coalesce(p.taken_at, p.created_at) DESC, p.id DESC LIMIT 1)
            """,
            logger: logger
        )
        for try await (newer, older) in rows.decode((String?, String?).self) { return (newer, older) }
        return (nil, nil)
    }

    /// The user's photos among `publicIDs` (those that are not theirs or do not exist are left out),
    /// in gallery order.
    public func find(userID: Int64, publicIDs: [String]) async throws -> [Photo] {
        guard !publicIDs.isEmpty else { return [] }
        return try await fetch(
            """
            SELECT \(unescaped: Self.columns) FROM photos p WHERE p.user_id = \(userID) AND p.trashed_at IS NULL AND p.public_id = ANY(\(publicIDs))
            ORDER BY coalesce(p.taken_at, p.created_at) DESC, p.id DESC
            """
        )
    }

    /// The user's photos by row id (album covers, a photo link's photo), in no particular order.
    /// The photo with this row id, whoever's and wherever it is (the trash too): for maintenance
    /// (the integrity check's repairs), never for a person's request.
    func photo(id: Int64) async throws -> Photo? {
        try await fetch("SELECT \(unescaped: Self.columns) FROM photos p WHERE p.id = \(id)").first
    }

    func find(userID: Int64, ids: [Int64]) async throws -> [Photo] {
        guard !ids.isEmpty else { return [] }
        return try await fetch("SELECT \(unescaped: Self.columns) FROM photos p WHERE p.user_id = \(userID) AND p.trashed_at IS NULL AND p.id = ANY(\(ids))")
    }

    /// The photo, if it is the user's and (given `album`) in that album.
    public func find(userID: Int64, publicID: String, album: Int64?) async throws -> Photo? {
        try await statements.rows(PhotoByPublicID(userID: userID, publicID: publicID, albumID: album), logger: logger).compactMap { $0 }.first
    }

    /// Every photo of the user, oldest first (the API's order); with `includingTrash`, those in the
    /// trash too (a copy of everything).
    public func all(userID: Int64, includingTrash: Bool = false) async throws -> [Photo] {
        try await fetch(
            "SELECT \(unescaped: Self.columns) FROM photos p WHERE p.user_id = \(userID) AND (\(includingTrash) OR p.trashed_at IS NULL) ORDER BY p.id"
        )
    }

    public func find(userID: Int64, publicID: String) async throws -> Photo? {
        try await find(userID: userID, publicID: publicID, album: nil)
    }

    /// The id of the user's photo, in the trash or not: a page's cursor, which keeps its place
    /// when the photo it names has gone to the trash since.
    func id(userID: Int64, publicID: String) async throws -> Int64? {
        let rows = try await client.query("SELECT id FROM photos WHERE user_id = \(userID) AND public_id = \(publicID)", logger: logger)
        for try await id in rows.decode(Int64.self) { return id }
        return nil
    }

    /// Deletes those of `publicIDs` that are the user's photos and returns them (their renditions
    /// with them); their blobs are queued for deletion in the same statement (`BlobDeletions`).
    public func delete(userID: Int64, publicIDs: [String]) async throws -> [Photo] {
        guard !publicIDs.isEmpty else { return [] }
        return try await deleteLocked(
            "SELECT id FROM photos WHERE user_id = \(userID) AND public_id = ANY(\(publicIDs)) AND trashed_at IS NULL FOR UPDATE"
        )
    }

    /// Deletes the photos whose ids `locking` returns (a `SELECT id … FOR UPDATE`) and returns
    /// them; their blobs, and their renditions', are queued for deletion in the same statement
    /// (`BlobDeletions`). The lock is a statement of its own: a remake of a photo's renditions
    /// under way holds its row while it swaps them, and commits first; the DELETE, a later
    /// statement, then sees the new renditions and queues their blobs. In the DELETE's own
    /// snapshot, taken before its wait, the new ones would go with the photo, their blobs kept.
    private func deleteLocked(_ locking: PostgresQuery) async throws -> [Photo] {
        let logger = self.logger
        return try await client.transaction(logger: logger) { connection in
            try await Self.deleteLocked(locking, on: connection, logger: logger)
        }
    }

    /// `deleteLocked` inside the caller's transaction (an account's deletion, after its user's row).
    static func deleteLocked(_ locking: PostgresQuery, on connection: PostgresConnection, logger: Logger) async throws -> [Photo] {
        let locked = try await connection.query(locking, logger: logger)
        var ids: [Int64] = []
        for try await id in locked.decode(Int64.self) { ids.append(id) }
        guard !ids.isEmpty else { return [] }
        return try await photos(
            in: connection.query(
                """
                WITH p AS (DELETE FROM photos WHERE id = ANY(\(ids)) RETURNING *),
                \(unescaped: BlobDeletionRepository.queueing(blobsOf: "p"))
                SELECT \(unescaped: Self.columns) FROM p
                """,
                logger: logger
            )
        )
    }

    // MARK: The trash

    /// Moves those of `publicIDs` that are the user's photos (and not in the trash yet) to the
    /// trash, and returns them.
    public func trash(userID: Int64, publicIDs: [String]) async throws -> [Photo] {
        guard !publicIDs.isEmpty else { return [] }
        return try await fetch(
            """
            WITH p AS (
                UPDATE photos SET trashed_at = now()
                WHERE user_id = \(userID) AND public_id = ANY(\(publicIDs)) AND trashed_at IS NULL RETURNING *
            )
            SELECT \(unescaped: Self.columns) FROM p
            """
        )
    }

    /// Whether the user's photo `publicID` is in their trash.
    func isInTrash(userID: Int64, publicID: String) async throws -> Bool {
        let rows = try await client.query(
            "SELECT count(*)::int FROM photos WHERE user_id = \(userID) AND public_id = \(publicID) AND trashed_at IS NOT NULL",
            logger: logger
        )
        for try await count in rows.decode(Int.self) { return count == 1 }
        return false
    }

    /// Takes photos out of the user's trash — those of `publicIDs`, or all of it — that went in
    /// at `cutoff` or later (older ones are the purge's, whose blobs may be going); how many.
    public func restore(userID: Int64, publicIDs: [String]?, trashedAfter cutoff: Date) async throws -> Int {
        let rows = try await client.query(
            """
            WITH restored AS (
                UPDATE photos SET trashed_at = NULL
                WHERE user_id = \(userID) AND trashed_at >= \(cutoff) AND (\(publicIDs)::text[] IS NULL OR public_id = ANY(\(publicIDs)))
                RETURNING 1
            )
            SELECT count(*)::int FROM restored
            """,
            logger: logger
        )
        for try await count in rows.decode(Int.self) { return count }
        return 0
    }

    /// The user's trash, the latest deleted first, `limit` at most (nil: all of it).
    public func trashed(userID: Int64, limit: Int? = nil) async throws -> [Photo] {
        try await fetch(
            """
            SELECT \(unescaped: Self.columns) FROM photos p WHERE p.user_id = \(userID) AND p.trashed_at IS NOT NULL
            ORDER BY p.trashed_at DESC, p.id DESC LIMIT \(limit)
            """
        )
    }

    /// Deletes rows from the user's trash — those of `publicIDs`, or all of it — and returns them
    /// (their renditions with them, for their blobs).
    public func deleteTrashed(userID: Int64, publicIDs: [String]?) async throws -> [Photo] {
        try await deleteLocked(
            """
            SELECT id FROM photos WHERE user_id = \(userID) AND trashed_at IS NOT NULL
              AND (\(publicIDs)::text[] IS NULL OR public_id = ANY(\(publicIDs)))
            FOR UPDATE
            """
        )
    }

    /// Deletes up to `limit` photos in anyone's trash since before `cutoff`, the oldest first, and
    /// returns them; their blobs are queued for deletion in the same statement (`BlobDeletions`).
    func deleteTrashed(before cutoff: Date, limit: Int) async throws -> [Photo] {
        try await deleteLocked(
            "SELECT id FROM photos WHERE trashed_at < \(cutoff) ORDER BY trashed_at, id LIMIT \(limit) FOR UPDATE SKIP LOCKED"
        )
    }

    /// Which of `keys` belong to a photo, as original or rendition (the orphan sweep's question).
    public func existingBlobKeys(among keys: [BlobKey]) async throws -> Set<BlobKey> {
        guard !keys.isEmpty else { return [] }
        var found: Set<BlobKey> = []
        let values = keys.map(\.value)
        let rows = try await client.query(
            """
            SELECT blob_key FROM photos WHERE blob_key = ANY(\(values))
            UNION ALL SELECT blob_key FROM photo_renditions WHERE blob_key = ANY(\(values))
            """,
            logger: logger
        )
        for try await key in rows.decode(String.self) {
            if let key = BlobKey(key) { found.insert(key) }
        }
        return found
    }

    /// How many photos there are, and how many blobs their rows point to (originals and renditions).
    public func storedCounts() async throws -> (photos: Int, blobs: Int) {
        let row = try await client.query(
            "SELECT p, p + r FROM (SELECT (SELECT count(*) FROM photos) AS p, (SELECT count(*) FROM photo_renditions) AS r) c", logger: logger
        ).collect().first
        return try row?.decode((Int, Int).self) ?? (0, 0)
    }

    /// The blob keys rows point to that start with `prefix` (one or two characters), to find rows
    /// whose blob is missing: a range of the byte-ordered key indexes (migration 0024).
    public func blobKeys(startingWith prefix: String) async throws -> [(publicID: String, blobKey: BlobKey)] {
        var keys: [(String, BlobKey)] = []
        let end = BlobNamePrefixes.end(of: prefix)
        let rows = try await client.query(
            """
            SELECT public_id, blob_key FROM photos WHERE blob_key COLLATE "C" >= \(prefix) AND blob_key COLLATE "C" < \(end)
            UNION ALL SELECT p.public_id, r.blob_key FROM photo_renditions r JOIN photos p ON p.id = r.photo_id
            WHERE r.blob_key COLLATE "C" >= \(prefix) AND r.blob_key COLLATE "C" < \(end)
            """,
            logger: logger
        )
        for try await (publicID, key) in rows.decode((String, String).self) {
            if let key = BlobKey(key) { keys.append((publicID, key)) }
        }
        return keys
    }

    /// Photos in id order after `id`, `limit` at most: all of them, or only those without renditions.
    /// With `failedBefore`, not those whose renditions last failed since then.
    public func photos(after id: Int64, missingRenditionsOnly: Bool, failedBefore: Date? = nil, limit: Int) async throws -> [Photo] {
        try await fetch(
            """
            SELECT \(unescaped: Self.columns) FROM photos p
            WHERE p.id > \(id) AND (NOT \(missingRenditionsOnly) OR NOT EXISTS (SELECT 1 FROM photo_renditions r WHERE r.photo_id = p.id))
              AND (\(failedBefore)::timestamptz IS NULL OR p.renditions_failed_at IS NULL OR p.renditions_failed_at < \(failedBefore))
            ORDER BY p.id LIMIT \(limit)
            """
        )
    }

    /// The photo's renditions could not be made now (`renditions_failed_at`).
    func renditionsFailed(photoID: Int64) async throws {
        try await client.query("UPDATE photos SET renditions_failed_at = now() WHERE id = \(photoID)", logger: logger)
    }

    /// Replaces a photo's renditions (and its dimensions) in one transaction and returns the keys
    /// of the blobs no longer used; nil when the photo no longer exists.
    public func replaceRenditions(
        photoID: Int64, width: Int, height: Int, takenAt: Date?, takenAtIsLocalTime: Bool, with renditions: [PhotoRendition]
    ) async throws -> [BlobKey]? {
        let logger = self.logger
        return try await client.transaction(logger: logger) { connection in
            // The row lock keeps a concurrent delete from taking the old keys with it unseen.
            let exists = try await connection.query(
                """
                UPDATE photos SET width = \(width), height = \(height), taken_at = \(takenAt), taken_at_local = \(takenAt != nil && takenAtIsLocalTime),
                    renditions_failed_at = NULL
                WHERE id = \(photoID) RETURNING id
                """,
                logger: logger
            ).collect().count == 1
            guard exists else { return nil }
            var unused: [BlobKey] = []
            // The old renditions' blobs are queued for deletion with their rows (`BlobDeletions`).
            for try await key in try await connection.query(
                """
                WITH old AS (DELETE FROM photo_renditions WHERE photo_id = \(photoID) RETURNING blob_key),
                \(unescaped: BlobDeletionRepository.queueing(renditionsOf: "old"))
                SELECT blob_key FROM old
                """,
                logger: logger
            ).decode(String.self) {
                if let key = BlobKey(key) { unused.append(key) }
            }
            try await connection.query(
                """
                INSERT INTO photo_renditions (photo_id, name, blob_key, content_type, width, height, byte_size, sha256)
                SELECT \(photoID), u.name, u.blob_key, u.content_type, u.width, u.height, u.byte_size, decode(nullif(u.sha256, ''), 'hex') FROM unnest(
                    \(renditions.map(\.name.rawValue))::text[], \(renditions.map(\.blobKey.value))::text[],
                    \(renditions.map(\.contentType))::text[], \(renditions.map(\.width))::int[],
                    \(renditions.map(\.height))::int[], \(renditions.map(\.byteSize))::bigint[],
                    \(renditions.map { $0.sha256?.hexString ?? "" })::text[]
                ) AS u(name, blob_key, content_type, width, height, byte_size, sha256)
                """,
                logger: logger
            )
            return unused
        }
    }

    /// Photos in id order after `id` whose capture time is not known, `limit` at most (those
    /// stored before it was read, and those whose file does not say).
    func photosWithoutCaptureTime(after id: Int64, limit: Int) async throws -> [Photo] {
        try await fetch("SELECT \(unescaped: Self.columns) FROM photos p WHERE p.id > \(id) AND p.taken_at IS NULL ORDER BY p.id LIMIT \(limit)")
    }

    /// Records when a photo was taken.
    func setCaptureTime(photoID: Int64, takenAt: Date, isLocalTime: Bool) async throws {
        try await client.query("UPDATE photos SET taken_at = \(takenAt), taken_at_local = \(isLocalTime) WHERE id = \(photoID)", logger: logger)
    }

    /// "Download my data" under way, one per account across instances (`data_exports_running`):
    /// marks an export of the account as running and returns its claim; nil while another one is
    /// (a claim older than an hour is a crashed export's and is taken over).
    func claimExportSlot(userID: Int64) async throws -> Date? {
        let rows = try await client.query(
            """
            INSERT INTO data_exports_running (user_id) VALUES (\(userID))
            ON CONFLICT (user_id) DO UPDATE SET started_at = now()
            WHERE data_exports_running.started_at < now() - interval '1 hour'
            RETURNING started_at
            """,
            logger: logger
        )
        for try await startedAt in rows.decode(Date.self) { return startedAt }
        return nil
    }

    /// The export of `claim` ended (written, failed or cut off): its slot goes, not one another
    /// export took over. Runs even in a cancelled task.
    func releaseExportSlot(userID: Int64, claim: Date) async {
        let (client, logger) = (self.client, self.logger)
        do {
            try await evenIfCancelled {
                _ = try await client.query("DELETE FROM data_exports_running WHERE user_id = \(userID) AND started_at = \(claim)", logger: logger)
            }
        } catch {
            logger.warning("an export's slot is left for an hour", metadata: ["error": "\(String(reflecting: error))"])
        }
    }

    private func fetch(_ query: PostgresQuery) async throws -> [Photo] {
        try await Self.photos(in: client.query(query, logger: logger))
    }

    /// The photos of rows that select `columns`.
    private static func photos(in rows: PostgresRowSequence) async throws -> [Photo] {
        var photos: [Photo] = []
        for try await (id, publicID, userID, title, key, contentType, size, created, width, height, takenAt, takenAtIsLocalTime, trashedAt, packed)
            in rows.decode(Row.self)
        {
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
                    createdAt: created,
                    width: width,
                    height: height,
                    takenAt: takenAt,
                    takenAtIsLocalTime: takenAtIsLocalTime,
                    trashedAt: trashedAt,
                    renditions: packed.compactMap(PhotoRendition.init(packed:))
                )
            )
        }
        return photos
    }
}

extension PhotoRendition {
    /// A rendition as `PhotoRepository.columns` packs it: six tab-separated fields.
    /// Split on the UTF-8 bytes (a tab is one byte), not on Characters: every photo row read has three.
    init?(packed: String) {
        let fields = packed.utf8.split(separator: UInt8(ascii: "\t"), omittingEmptySubsequences: false)
        guard fields.count == 6, let name = RenditionName(rawValue: String(Substring(fields[0]))),
            let key = BlobKey(String(Substring(fields[1]))),
            let width = Int(Substring(fields[3])), let height = Int(Substring(fields[4])), let size = Int64(Substring(fields[5]))
        else { return nil }
        self.init(name: name, blobKey: key, contentType: String(Substring(fields[2])), width: width, height: height, byteSize: size)
    }
}

struct PhotoRowMissing: Error {}

/// The gallery's page: the latest taken (else uploaded) first, after a position, each photo with
/// the grid's two thumbnails joined by their key (photo, name) — no aggregate per photo.
struct GalleryPage: PhotoPageStatement {
    static let name = "gallery_page"
    static let renditions: [RenditionName] = [.thumbnail400, .thumbnail800]
    static let sql = """
        \(PhotoPageRow.select(renditions: renditions))
        WHERE p.user_id = $1 AND p.trashed_at IS NULL
        \(PhotoPageRow.inGalleryOrder(positionAt: 2))
        """
    let userID: Int64
    let after: PhotoPosition
    let limit: Int

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 4)
        bindings.append(userID)
        bindings.append(after.microseconds)
        bindings.append(after.id)
        bindings.append(limit)
        return bindings
    }
}

/// An album's page in gallery order (`PhotoRepository.page(userID:album:after:limit:)`), with
/// every rendition joined by key: the grid's thumbnails, and the display copy a link's download
/// and the API's album listing use.
struct AlbumPage: PhotoPageStatement {
    static let name = "album_page"
    static let renditions: [RenditionName] = [.thumbnail400, .thumbnail800, .display]
    static let sql = """
        \(PhotoPageRow.select(renditions: renditions))
        WHERE p.user_id = $1 AND p.trashed_at IS NULL
          AND EXISTS (SELECT 1 FROM album_photos a WHERE a.album_id = $2 AND a.photo_id = p.id)
        \(PhotoPageRow.inGalleryOrder(positionAt: 3))
        """
    let userID: Int64
    let albumID: Int64
    let after: PhotoPosition
    let limit: Int

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 5)
        bindings.append(userID)
        bindings.append(albumID)
        bindings.append(after.microseconds)
        bindings.append(after.id)
        bindings.append(limit)
        return bindings
    }
}

/// One photo by its public id, with every rendition joined by key: a photo's page, and every image
/// a share link's visitor loads (`$3`: the link's album, which must hold it; NULL for none).
struct PhotoByPublicID: PhotoPageStatement {
    static let name = "photo_by_public_id"
    /// In the order of their names, as `PhotoRepository`'s other reads list them.
    static let renditions = RenditionName.allCases.sorted { $0.rawValue < $1.rawValue }
    static let sql = """
        \(PhotoPageRow.select(renditions: renditions))
        WHERE p.user_id = $1 AND p.public_id = $2 AND p.trashed_at IS NULL
          AND ($3::bigint IS NULL OR EXISTS (SELECT 1 FROM album_photos a WHERE a.album_id = $3 AND a.photo_id = p.id))
        """
    let userID: Int64
    let publicID: String
    let albumID: Int64?

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 3)
        bindings.append(userID)
        bindings.append(publicID)
        bindings.append(albumID)
        return bindings
    }
}

/// The API's page (`get_photos`): the most recently uploaded first, before a photo's id, each with
/// its display copy joined by key.
struct PhotosByUpload: PhotoPageStatement {
    static let name = "photos_by_upload"
    static let renditions: [RenditionName] = [.display]
    static let sql = """
        \(PhotoPageRow.select(renditions: renditions))
        WHERE p.user_id = $1 AND p.trashed_at IS NULL AND p.id < $2
        ORDER BY p.id DESC LIMIT $3
        """
    let userID: Int64
    let before: Int64
    let limit: Int

    func makeBindings() throws -> PostgresBindings {
        var bindings = PostgresBindings(capacity: 3)
        bindings.append(userID)
        bindings.append(before)
        bindings.append(limit)
        return bindings
    }
}

/// A statement whose rows are a photo and the renditions it joins (`PhotoPageRow`), decoded
/// one way for all of them.
protocol PhotoPageStatement: ReadOnlyStatement where Row == Photo? {
    /// The renditions joined, in the order of their aliases.
    static var renditions: [RenditionName] { get }
}

extension PhotoPageStatement {
    func decodeRow(_ row: PostgresRow) throws -> Photo? {
        try PhotoPageRow.decode(row, renditions: Self.renditions)
    }
}

/// A photo's columns, then those of renditions joined by their key under the `aliases` given,
/// decoded column by column.
enum PhotoPageRow {
    /// `SELECT` a photo's columns and those of `renditions`, each joined by its key, `FROM photos p`.
    static func select(renditions names: [RenditionName]) -> String {
        let aliases = names.indices.map { "r\($0)" }
        let joins = zip(aliases, names).map { alias, name in
            "LEFT JOIN photo_renditions \(alias) ON \(alias).photo_id = p.id AND \(alias).name = '\(name.rawValue)'"
        }
        return (["SELECT \(columns(renditions: aliases))", "FROM photos p"] + joins).joined(separator: "\n")
    }

    /// The gallery's order (latest taken, else uploaded, first) after a keyset position: `$n` its
    /// microseconds, `$n+1` its id; `$n+2` the limit.
    static func inGalleryOrder(positionAt n: Int) -> String {
        """
        AND (coalesce(p.taken_at, p.created_at), p.id) < (timestamptz 'epoch' + $\(n) * interval '1 microsecond', $\(n + 1))
        ORDER BY coalesce(p.taken_at, p.created_at) DESC, p.id DESC LIMIT $\(n + 2)
        """
    }

    static func columns(renditions aliases: [String]) -> String {
        (["p.id, p.public_id, p.user_id, p.title, p.blob_key, p.content_type, p.byte_size, p.created_at, p.width, p.height, p.taken_at, p.taken_at_local, p.trashed_at"]
            + aliases.map { "\($0).blob_key, \($0).content_type, \($0).width, \($0).height, \($0).byte_size" })
            .joined(separator: ",\n")
    }

    /// `names`: the renditions joined, in the order of the aliases given to `columns`.
    /// Nil for a row whose blob key is not one (never written by Selfie; skipped like `fetch` does).
    static func decode(_ row: PostgresRow, renditions names: [RenditionName]) throws -> Photo? {
        var columns = ColumnReader(row)
        let id: Int64 = try columns.next()
        let publicID: String = try columns.next()
        let userID: Int64 = try columns.next()
        let title: String = try columns.next()
        guard let blobKey = BlobKey(try columns.next(String.self)) else { return nil }
        let contentType: String = try columns.next()
        let byteSize: Int64 = try columns.next()
        let createdAt: Date = try columns.next()
        let width: Int? = try columns.next()
        let height: Int? = try columns.next()
        let takenAt: Date? = try columns.next()
        let takenAtIsLocalTime: Bool = try columns.next()
        let trashedAt: Date? = try columns.next()
        var renditions: [PhotoRendition] = []
        renditions.reserveCapacity(names.count)
        for name in names {
            guard let key = try columns.next(String?.self).flatMap(BlobKey.init) else {
                columns.skip(4)
                continue
            }
            renditions.append(
                PhotoRendition(
                    name: name,
                    blobKey: key,
                    contentType: try columns.next(),
                    width: try columns.next(),
                    height: try columns.next(),
                    byteSize: try columns.next()
                )
            )
        }
        return Photo(
            id: id,
            publicID: publicID,
            userID: userID,
            title: title,
            blobKey: blobKey,
            contentType: contentType,
            byteSize: byteSize,
            createdAt: createdAt,
            width: width,
            height: height,
            takenAt: takenAt,
            takenAtIsLocalTime: takenAtIsLocalTime,
            trashedAt: trashedAt,
            renditions: renditions
        )
    }
}
