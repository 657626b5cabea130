import Foundation
import Logging
import PostgresNIO

/// A resumable upload as its row has it.
public struct ResumableUpload: Sendable, Equatable {
    public let id: Int64
    public let publicID: String
    public let userID: Int64
    public let length: Int64
    public let storedOffset: Int64
    public let metadata: UploadMetadata
    public let partState: PartState
    public let photoPublicID: String?
    public let createdAt: Date
    public let expiresAt: Date
}

/// A resumable upload whose last byte is in, on its way to becoming a photo: its row, and how long
/// its record stays once it names the photo.
struct FinishingUpload: Sendable {
    let uploadID: Int64
    let keptUntil: Date
}

/// The rows of resumable uploads. Offsets only move through `claim` … `release`: a PATCH takes a
/// lease on its upload, so two never append at once, and records the offset it reached as it lets go.
public struct ResumableUploadRepository: Sendable {
    let client: PostgresClient
    let logger: Logger

    public init(client: PostgresClient, logger: Logger) {
        self.client = client
        self.logger = logger
    }

    private static let columns = """
        id, public_id, user_id, length, stored_offset, filename, title, album_id, part_state::text, part_tail, photo_public_id, created_at, expires_at
        """

    private func fetch(_ query: PostgresQuery) async throws -> [ResumableUpload] {
        var uploads: [ResumableUpload] = []
        let decoder = JSONDecoder()
        for try await (id, publicID, userID, length, offset, filename, title, album, state, tail, photo, created, expires) in try await client.query(
            query,
            logger: logger
        ).decode((Int64, String, Int64, Int64, Int64, String, String, String?, String, ByteBuffer, String?, Date, Date).self) {
            var partState = (try? decoder.decode(PartState.self, from: Data(state.utf8))) ?? PartState()
            partState.tail = tail
            uploads.append(
                ResumableUpload(
                    id: id, publicID: publicID, userID: userID, length: length, storedOffset: offset,
                    metadata: UploadMetadata(filename: filename, title: title, albumID: album),
                    partState: partState,
                    photoPublicID: photo, createdAt: created, expiresAt: expires
                )
            )
        }
        return uploads
    }

    /// What asking for a new upload came to.
    enum Creation: Sendable {
        case created(ResumableUpload)
        /// `maxInFlight` incomplete uploads already, or `maxBytesInFlight` bytes between them.
        case tooManyInFlight
        /// The upload and the user's other incomplete ones do not fit the room their quota leaves.
        case overQuota(quotaBytes: Int64, availableBytes: Int64)
    }

    /// A new upload, if the user has fewer than `maxInFlight` incomplete ones holding fewer than
    /// `maxBytesInFlight` bytes between them, and if it fits in what their quota leaves with the
    /// incomplete ones counted (each will be a photo; `defaultQuota` for those who follow the
    /// default). Counted with the user's row locked, as a photo's insert is, so two creations at
    /// once cannot both pass.
    func create(
        userID: Int64, publicID: String, length: Int64, metadata: UploadMetadata, expiresAt: Date,
        maxInFlight: Int, maxBytesInFlight: Int64, defaultQuota: Int64
    ) async throws -> Creation {
        let logger = self.logger
        let created = try await client.transaction(logger: logger) { connection -> Creation? in
            let owner = try await connection.query("SELECT quota_bytes FROM users WHERE id = \(userID) FOR UPDATE", logger: logger).collect()
            let quota = try owner.first.flatMap { QuotaSetting(column: try $0.decode(Int64?.self)).effectiveBytes(default: defaultQuota) }
            var pending: Int64 = 0
            for try await (count, bytes) in try await connection.query(
                """
                SELECT count(*)::int, coalesce(sum(length), 0)::bigint FROM resumable_uploads
                WHERE user_id = \(userID) AND photo_public_id IS NULL AND expires_at > now()
                """,
                logger: logger
            ).decode((Int, Int64).self) {
                guard count < maxInFlight, bytes + length <= maxBytesInFlight else { return .tooManyInFlight }
                pending = bytes
            }
            if let quota {
                let available = max(0, quota - (try await PhotoRepository.usedBytes(userID: userID, on: connection, logger: logger)) - pending)
                guard length <= available else { return .overQuota(quotaBytes: quota, availableBytes: available) }
            }
            try await connection.query(
                """
                INSERT INTO resumable_uploads (public_id, user_id, length, filename, title, album_id, expires_at)
                VALUES (\(publicID), \(userID), \(length), \(metadata.filename), \(metadata.title), \(metadata.albumID), \(expiresAt))
                """,
                logger: logger
            )
            return nil
        }
        if let refused = created { return refused }
        guard let upload = try await find(publicID: publicID, userID: userID) else { throw ResumableUploadError.notFound }
        return .created(upload)
    }

    /// The user's upload (another user's is not found).
    func find(publicID: String, userID: Int64) async throws -> ResumableUpload? {
        try await fetch("SELECT \(unescaped: Self.columns) FROM resumable_uploads WHERE public_id = \(publicID) AND user_id = \(userID)").first
    }

    /// Takes the upload for one PATCH at `offset` (which must be what is recorded): the lease's
    /// token, or nil when another PATCH holds it or the offset does not match.
    func claim(_ upload: ResumableUpload, at offset: Int64, for lease: Duration) async throws -> String? {
        let token = RandomToken.urlSafe(byteCount: 12)
        let seconds = Int(lease.components.seconds)
        let rows = try await client.query(
            """
            UPDATE resumable_uploads SET lease_token = \(token), lease_until = now() + make_interval(secs => \(seconds))
            WHERE id = \(upload.id) AND stored_offset = \(offset) AND photo_public_id IS NULL
              AND (lease_until IS NULL OR lease_until < now())
            RETURNING id
            """,
            logger: logger
        ).collect()
        return rows.isEmpty ? nil : token
    }

    /// Keeps the lease for another `lease` while the PATCH is still receiving; false when it is
    /// not this PATCH's any more (taken by another after it ran out, or the upload gone).
    func renew(_ upload: ResumableUpload, token: String, for lease: Duration) async throws -> Bool {
        let seconds = Int(lease.components.seconds)
        return try await !client.query(
            """
            UPDATE resumable_uploads SET lease_until = now() + make_interval(secs => \(seconds))
            WHERE id = \(upload.id) AND lease_token = \(token) RETURNING 1
            """,
            logger: logger
        ).collect().isEmpty
    }

    /// Records the offset the PATCH reached, with the store's state at that offset (nil: as it
    /// was), and lets the upload go — or keeps it, while the photo is made from the whole file.
    /// False when the lease is no longer this PATCH's (nothing is recorded then).
    @discardableResult
    func release(_ upload: ResumableUpload, token: String, at progress: PartProgress?, keepingLease: Bool = false) async throws -> Bool {
        let offset = progress?.offset ?? upload.storedOffset
        let partState = progress?.state ?? upload.partState
        let state = String(decoding: try JSONEncoder().encode(partState), as: UTF8.self)
        return try await client.query(
            """
            UPDATE resumable_uploads SET stored_offset = \(offset), part_state = \(state)::jsonb, part_tail = \(partState.tail),
              lease_token = CASE WHEN \(keepingLease) THEN lease_token END, lease_until = CASE WHEN \(keepingLease) THEN lease_until END
            WHERE id = \(upload.id) AND lease_token = \(token)
            RETURNING id
            """,
            logger: logger
        ).collect().count == 1
    }

    /// The upload became this photo, in the photo's own transaction (on `connection`): the row
    /// and the record that names it to a client that lost the last answer exist together or not
    /// at all. The record is kept at least until `upload.keptUntil`.
    static func complete(_ upload: FinishingUpload, photoPublicID: String, on connection: PostgresConnection, logger: Logger) async throws {
        try await connection.query(
            """
            UPDATE resumable_uploads SET photo_public_id = \(photoPublicID), lease_token = NULL, lease_until = NULL,
              expires_at = greatest(expires_at, \(upload.keptUntil))
            WHERE id = \(upload.uploadID)
            """,
            logger: logger
        )
    }

    /// Deletes the records of finished uploads whose time is up (a client resuming one is told it
    /// is gone, as for any expired upload); how many.
    func deleteFinished(expiredBefore now: Date) async throws -> Int {
        try await client.query(
            "DELETE FROM resumable_uploads WHERE photo_public_id IS NOT NULL AND expires_at < \(now) RETURNING id",
            logger: logger
        ).collect().count
    }

    /// Deletes the record of an upload that did not become a photo (one whose photo's transaction
    /// is still under way is waited for, and kept if it names the photo when it commits).
    func deleteUnfinished(_ upload: ResumableUpload) async throws {
        try await client.query("DELETE FROM resumable_uploads WHERE id = \(upload.id) AND photo_public_id IS NULL", logger: logger)
    }

    /// Deletes the record unless a PATCH holds it (bytes arriving, or its photo being made); false
    /// when one does.
    func deleteUnlessHeld(_ upload: ResumableUpload) async throws -> Bool {
        try await client.query(
            "DELETE FROM resumable_uploads WHERE id = \(upload.id) AND (lease_until IS NULL OR lease_until < now()) RETURNING 1",
            logger: logger
        ).collect().count == 1
    }

    /// What unfinished resumable uploads hold, for the sweep to leave alone: their ids (part
    /// files are named by them) and their S3 multipart upload ids.
    public func heldParts() async throws -> Set<String> {
        var ids: Set<String> = []
        for try await (id, s3) in try await client.query(
            "SELECT public_id, part_state->>'s3UploadID' FROM resumable_uploads WHERE photo_public_id IS NULL",
            logger: logger
        ).decode((String, String?).self) {
            ids.insert(id)
            if let s3 { ids.insert(s3) }
        }
        return ids
    }

    /// Incomplete uploads whose time is up, `limit` at most; not one a PATCH still holds (its last
    /// bytes arriving, or its photo being made), which it finishes or lets go within its lease.
    func expired(now: Date, limit: Int) async throws -> [ResumableUpload] {
        try await fetch(
            """
            SELECT \(unescaped: Self.columns) FROM resumable_uploads
            WHERE photo_public_id IS NULL AND expires_at < \(now) AND (lease_until IS NULL OR lease_until < now())
            ORDER BY expires_at LIMIT \(limit)
            """
        )
    }
}
