import Foundation
import Logging
import ServiceLifecycle
import Synchronization

/// Views of share links, counted in memory and added to `share_links` in one statement every
/// second (and when the server stops), instead of an `UPDATE` of the link's row per view: those
/// queued behind each other on the row's lock and a WAL flush each, so one popular link's page
/// answered a few hundred views a second however many cores there were.
///
/// The owner's lists of links (`ShareLinkService.links…`) write what is pending first, so this
/// instance's views show at once; another instance's show within a second. A view counted here
/// and not yet written is lost if the process is killed (not when it is stopped): a view count
/// is a hint, not a record.
public final class ShareViewTally: Service, Sendable {
    struct Pending: Equatable {
        var count: Int64
        var lastViewedAt: Date
    }

    private let links: ShareLinkRepository
    private let interval: Duration
    private let logger: Logger
    private let pending = Mutex<[Int64: Pending]>([:])
    /// One write at a time: a list asking for the views waits for a write already under way, so it
    /// never reads the row before views taken from `pending` have reached it.
    private let writing = AsyncSemaphore(permits: 1)

    init(links: ShareLinkRepository, interval: Duration = .seconds(1), logger: Logger) {
        self.links = links
        self.interval = interval
        self.logger = logger
    }

    func record(linkID: Int64, at moment: Date) {
        pending.withLock { pending in
            pending[linkID, default: Pending(count: 0, lastViewedAt: moment)].count += 1
            pending[linkID]!.lastViewedAt = max(pending[linkID]!.lastViewedAt, moment)
        }
    }

    /// Writes the views counted so far. If the database refuses, they are kept for the next time.
    func flush() async throws {
        try await writing.withPermits {
            let batch = pending.withLock { pending in
                defer { pending.removeAll(keepingCapacity: true) }
                return pending
            }
            guard !batch.isEmpty else { return }
            do {
                // Not cut short when a list's request is cancelled: an UPDATE cancelled after it
                // committed would put its views back to be counted twice.
                let links = self.links
                try await evenIfCancelled { try await links.addViews(batch) }
            } catch {
                pending.withLock { pending in
                    for (id, views) in batch {
                        pending[id, default: Pending(count: 0, lastViewedAt: views.lastViewedAt)].count += views.count
                        pending[id]!.lastViewedAt = max(pending[id]!.lastViewedAt, views.lastViewedAt)
                    }
                }
                throw error
            }
        }
    }

    public func run() async throws {
        while !Task.isShuttingDownGracefully && !Task.isCancelled {
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: self.interval) }
            await flushLogging()
        }
        // Views counted while the last write was under way when the stop came.
        await flushLogging()
    }

    /// `flush()`, a failure logged (the views stay pending for the next write).
    func flushLogging() async {
        do {
            try await flush()
        } catch {
            logger.warning("share link views could not be written yet: \(String(reflecting: error))")
        }
    }
}
