import Logging
import PostgresNIO

/// Makes renditions for photos stored before renditions existed (`--missing`), or again for every
/// photo (`--all`, after the pipeline changed): `selfie photos reprocess`, and in the background
/// for photos that lack them. One photo at a time; a photo deleted meanwhile loses nothing.
public struct RenditionBackfill: Sendable {
    let photos: PhotoRepository
    let renditions: RenditionMaker
    let client: PostgresClient
    let scopedLogger: ScopedLogger
    var logger: Logger { scopedLogger.current }

    public init(photos: PhotoRepository, renditions: RenditionMaker, client: PostgresClient, logger: Logger) {
        self.photos = photos
        self.renditions = renditions
        self.client = client
        self.scopedLogger = ScopedLogger(logger)
    }

    public struct Report: Sendable, Equatable {
        public var processed = 0
        /// Public ids of photos whose original is missing or cannot be made into renditions.
        public var failed: [String] = []
        /// Another instance was already running the backfill.
        public var skipped = false
    }

    /// Any number of instances may call this at once: one runs, the others return `skipped`
    /// (a PostgreSQL advisory lock, held on one connection for the run).
    public func run(missingOnly: Bool) async throws -> Report {
        try await client.withConnection { connection in
            let logger = self.logger
            let locked = try await connection.query("SELECT pg_try_advisory_lock(\(Self.lockKey))", logger: logger)
                .collect().first?.decode(Bool.self) ?? false
            guard locked else { return Report(skipped: true) }
            // The lock belongs to the connection: released before the connection goes back to the pool.
            let unlock = { _ = try? await connection.query("SELECT pg_advisory_unlock(\(Self.lockKey))", logger: logger) }
            do {
                let report = try await backfill(missingOnly: missingOnly)
                await unlock()
                return report
            } catch {
                await unlock()
                throw error
            }
        }
    }

    /// Identifies the backfill's advisory lock (any fixed number other locks do not use).
    static let lockKey: Int64 = 0x5e1f_1e_0009

    private func backfill(missingOnly: Bool) async throws -> Report {
        var report = Report()
        var after: Int64 = 0
        while true {
            let batch = try await photos.photos(after: after, missingRenditionsOnly: missingOnly, limit: 20)
            guard let last = batch.last else { return report }
            after = last.id
            for photo in batch {
                do {
                    let made = try await renditions.make(from: photo.blobKey, byteSize: photo.byteSize)
                    guard let unused = try await photos.replaceRenditions(photoID: photo.id, width: made.width, height: made.height, with: made.renditions)
                    else {
                        await renditions.delete(made.renditions.map(\.blobKey))  // deleted meanwhile
                        continue
                    }
                    await renditions.delete(unused)
                    report.processed += 1
                } catch let error as PhotoError {
                    report.failed.append(photo.publicID)
                    logger.warning("no renditions for a photo", metadata: ["photo": "\(photo.publicID)", "reason": "\(error)"])
                }
            }
        }
    }
}
