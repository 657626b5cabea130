import Foundation
import Logging
import PostgresNIO

/// The queue of blobs whose rows are gone (`blob_deletions`): keys go in with the statement that
/// deletes their photos, and leave once the store has let their blobs go.
public struct BlobDeletionRepository: Sendable {
    let client: PostgresClient
    let logger: Logger

    /// A `WITH` item for a statement whose item `deleted` is `DELETE FROM photos … RETURNING *`: it
    /// queues the photos' originals and their renditions' blobs (the renditions' rows go with
    /// their photos at the end of the statement, so this still sees them).
    static func queueing(blobsOf deleted: String) -> String {
        queueing(
            keys: "SELECT blob_key FROM \(deleted) UNION ALL SELECT r.blob_key FROM photo_renditions r JOIN \(deleted) ON r.photo_id = \(deleted).id"
        )
    }

    /// A `WITH` item that queues the keys of the item `deleted`, a `DELETE … RETURNING blob_key`
    /// of renditions alone (a remake's old ones).
    static func queueing(renditionsOf deleted: String) -> String {
        queueing(keys: "SELECT blob_key FROM \(deleted)")
    }

    private static func queueing(keys: String) -> String {
        """
        queued_blobs AS (
            INSERT INTO blob_deletions (blob_key)
            \(keys)
            ON CONFLICT (blob_key) DO NOTHING
        )
        """
    }

    /// Keys queued before `cutoff` that no photo or rendition points to, the least tried first,
    /// then the oldest (so that blobs the store keeps refusing do not crowd out the rest).
    func queued(before cutoff: Date, limit: Int) async throws -> [BlobKey] {
        var keys: [BlobKey] = []
        let rows = try await client.query(
            """
            SELECT d.blob_key FROM blob_deletions d
            WHERE d.queued_at < \(cutoff)
              AND NOT EXISTS (SELECT 1 FROM photos p WHERE p.blob_key = d.blob_key)
              AND NOT EXISTS (SELECT 1 FROM photo_renditions r WHERE r.blob_key = d.blob_key)
            ORDER BY d.attempts, d.queued_at LIMIT \(limit)
            """,
            logger: logger
        )
        for try await key in rows.decode(String.self) {
            if let key = BlobKey(key) { keys.append(key) }
        }
        return keys
    }

    /// The blobs of `keys` are gone: they leave the queue.
    func done(_ keys: [BlobKey]) async throws {
        guard !keys.isEmpty else { return }
        try await client.query("DELETE FROM blob_deletions WHERE blob_key = ANY(\(keys.map(\.value)))", logger: logger)
    }

    /// The store refused `key` again: counted, with what it said, for whoever looks.
    func refused(_ key: BlobKey, error: String) async throws {
        try await client.query(
            "UPDATE blob_deletions SET attempts = attempts + 1, last_error = \(RecordedError.text(error)) WHERE blob_key = \(key.value)",
            logger: logger
        )
    }
}
