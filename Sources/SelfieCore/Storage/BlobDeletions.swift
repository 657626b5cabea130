import Foundation
import Logging

/// Deletes the blobs of rows that are gone (a deleted account's photos, photos deleted for good).
/// Their keys were queued in the transaction that deleted the rows (`BlobDeletionRepository`), so
/// a blob the store refuses now — or one a crash or shutdown never reached — is not left for an
/// admin: `retry` (a periodic task) tries the queue again until the store lets it go. A request
/// deletes for `requestBudget` at most: emptying a trash of thousands, or deleting an account,
/// answers in seconds whatever the store does.
public struct BlobDeletions: Sendable {
    let queue: BlobDeletionRepository
    let blobs: any BlobStore
    let logger: Logger

    /// How long a request spends deleting the blobs of what it deleted before it answers: the rows
    /// are gone and the keys queued, so what is left is only late, not lost.
    public static let requestBudget: Duration = .seconds(5)

    /// Deletes the blobs of rows just deleted, even for a request cancelled meanwhile, for
    /// `budget` at most (a store that does not answer would cost every key its read timeout); the
    /// rest, and those the store refuses, stay queued for `retry`.
    func drain(_ keys: [BlobKey], within budget: Duration = Self.requestBudget) async {
        _ = try? await evenIfCancelled { [self] in
            let gone = await delete(keys, within: budget)
            if gone < keys.count {
                logger.notice("blob deletions left queued for the background", metadata: ["deleted": "\(gone)", "left": "\(keys.count - gone)"])
            }
        }
    }

    /// Tries the blobs queued before `cutoff` again, `limit` at most, for a minute at most (a key
    /// the store refuses goes behind the others: the queue is read by attempts); how many went.
    public func retry(queuedBefore cutoff: Date, limit: Int = 1000) async throws -> Int {
        await delete(try await queue.queued(before: cutoff, limit: limit), within: .seconds(60))
    }

    /// Deletes `keys` in turn until `budget` is spent; takes those that went off the queue and
    /// counts a refusal against each the store refused. How many went.
    private func delete(_ keys: [BlobKey], within budget: Duration) async -> Int {
        let deadline = ContinuousClock.now + budget
        var gone: [BlobKey] = []
        for key in keys {
            let left = deadline - .now
            guard left > .zero else { break }
            do {
                try await withDeadline(left) { [blobs] in try await blobs.delete(key) }
                gone.append(key)
            } catch is CancellationError {
                break  // a shutdown: the rest stay queued as they are
            } catch is DeadlineExceeded {
                // Out of time: tried again with the rest, this one behind them (a key whose
                // deletion hangs must not come first in every round).
                await countRefusal(of: key, error: "no answer within the time for deletions")
                break
            } catch {
                logger.warning("a blob whose rows are gone could not be deleted; it is tried again later", metadata: ["blob": "\(key)", "error": "\(error)"])
                await countRefusal(of: key, error: "\(error)")
            }
            if Task.isCancelled { break }
        }
        do {
            try await queue.done(gone)
        } catch {
            // Still queued: the next round deletes them again, which finds them gone.
            logger.error("could not take deleted blobs off the queue", metadata: ["error": "\(String(reflecting: error))"])
        }
        return gone.count
    }

    private func countRefusal(of key: BlobKey, error: String) async {
        do {
            try await queue.refused(key, error: error)
        } catch {
            logger.error("could not count a refused blob deletion", metadata: ["error": "\(String(reflecting: error))"])
        }
    }
}
