import Foundation
import Logging
import PostgresNIO

/// The database as a backup sees it: one snapshot, the blobs its rows reference, its schema version.
struct DatabaseSnapshot: Sendable {
    /// For `pg_dump --snapshot`: the dump reads exactly this state.
    let id: String
    /// Every blob a row references, with the size (and, once recorded, the SHA-256) its row holds.
    let blobs: [Blob]

    struct Blob: Sendable {
        let key: BlobKey
        let bytes: Int64
        /// Lower-case hex; nil for a photo from before checksums were recorded.
        let sha256: String?
    }
    /// The newest migration applied.
    let schemaVersion: Int
}

/// The SQL of backups and restores.
public struct BackupRepository: Sendable {
    let client: PostgresClient
    let logger: Logger

    public init(client: PostgresClient, logger: Logger) {
        self.client = client
        self.logger = logger
    }

    /// Runs `body` while a read-only, repeatable-read transaction holds an exported snapshot,
    /// with what that snapshot holds.
    func withSnapshot<T: Sendable>(_ body: @escaping @Sendable (DatabaseSnapshot) async throws -> T) async throws -> T {
        let logger = self.logger
        return try await client.withConnection { connection in
            try await connection.query("BEGIN ISOLATION LEVEL REPEATABLE READ, READ ONLY", logger: logger)
            var id: String?
            for try await exported in try await connection.query("SELECT pg_export_snapshot()", logger: logger).decode(String.self) {
                id = exported
            }
            guard let id else { throw BackupError.snapshotUnavailable }
            var blobs: [DatabaseSnapshot.Blob] = []
            for try await (key, bytes, sha256) in try await connection.query(
                """
                SELECT blob_key, byte_size, encode(sha256, 'hex') FROM photos
                UNION ALL SELECT blob_key, byte_size, encode(sha256, 'hex') FROM photo_renditions ORDER BY 1
                """,
                logger: logger
            ).decode((String, Int64, String?).self) {
                guard let key = BlobKey(key) else { throw BackupError.invalidKey(key) }
                blobs.append(DatabaseSnapshot.Blob(key: key, bytes: bytes, sha256: sha256))
            }
            var version = 0
            for try await newest in try await connection.query("SELECT coalesce(max(version), 0) FROM schema_migrations", logger: logger)
                .decode(Int.self)
            {
                version = newest
            }
            let result = try await body(DatabaseSnapshot(id: id, blobs: blobs, schemaVersion: version))
            try await connection.query("COMMIT", logger: logger)
            return result
        }
    }

    /// Tables in the database's public schema: a restore target must have none (unless forced).
    /// The tables of schema `public`.
    func tableNames() async throws -> Set<String> {
        var names: Set<String> = []
        for try await name in try await client.query("SELECT tablename::text FROM pg_tables WHERE schemaname = 'public'", logger: logger)
            .decode(String.self)
        {
            names.insert(name)
        }
        return names
    }

    /// Resumable uploads still under way when the backup ran: their bytes (part files, S3
    /// multipart uploads) are not in it, so their rows go too and the app starts them again
    /// (HEAD answers 404) instead of resuming onto nothing. A backup from before resumable
    /// uploads has no such table.
    func removeUnfinishedUploads() async throws {
        try await client.query(
            """
            DO $$ BEGIN
              IF to_regclass('resumable_uploads') IS NOT NULL THEN DELETE FROM resumable_uploads WHERE photo_public_id IS NULL; END IF;
            END $$
            """,
            logger: logger
        )
    }

    /// Removes the rows that reference `keys` (photos deleted while the backup ran): a photo whose
    /// original is among them goes whole; a rendition among them goes alone.
    func removeRows(referencing keys: [String]) async throws {
        guard !keys.isEmpty else { return }
        try await client.query("DELETE FROM photos WHERE blob_key = ANY(\(keys))", logger: logger)
        try await client.query("DELETE FROM photo_renditions WHERE blob_key = ANY(\(keys))", logger: logger)
    }
}
