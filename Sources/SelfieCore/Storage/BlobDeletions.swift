import Foundation
import Logging

/// Deletes the blobs of rows that are gone (a deleted account's photos, photos deleted for good).
/// Their keys were queued in the transaction that deleted the rows (`BlobDeletionRepository`), so
/// a blob the store refuses now — or one a crash or shutdown never reached — is not left for an
/// admin: `retry` (a periodic task) tries the queue again until the store lets it go.
public struct BlobDeletions: Sendable {
    let queue: BlobDeletionRepository
    let blobs: any BlobStore
    let logger: Logger

    /// Deletes the blobs of rows just deleted, even for a request cancelled meanwhile; those the
    /// store refuses stay queued.
    func drain(_ keys: [BlobKey]) async {
        _ = try? await evenIfCancelled { [self] in
            _ = await delete(keys)
        }
    }

    /// Tries the blobs queued before `cutoff` again, `limit` at most; how many went.
    public func retry(queuedBefore cutoff: Date, limit: Int = 1000) async throws -> Int {
        await delete(try await queue.queued(before: cutoff, limit: limit))
    }

    private func delete(_ keys: [BlobKey]) async -> Int {
        var gone: [BlobKey] = []
        for key in keys {
            do {
                try await blobs.delete(key)
                gone.append(key)
            } catch {
                logger.warning("a blob whose rows are gone could not be deleted; it is tried again later", metadata: ["blob": "\(key)", "error": "\(error)"])
                do {
                    try await queue.refused(key, error: "\(error)")
                } catch {
                    logger.error("could not count a refused blob deletion", metadata: ["error": "\(String(reflecting: error))"])
                }
            }
        }
        do {
            try await queue.done(gone)
        } catch {
            // Still queued: the next round deletes them again, which finds them gone.
            logger.error("could not take deleted blobs off the queue", metadata: ["error": "\(String(reflecting: error))"])
        }
        return gone.count
    }
}
