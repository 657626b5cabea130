import Foundation
import ImagingTypes
import Logging

/// Makes renditions for photos stored before renditions existed (`--missing`), or again for every
/// photo (`--all`, after the pipeline changed): `selfie photos reprocess`, and in the background
/// for photos that lack them. One photo at a time; a photo deleted meanwhile loses nothing.
public struct RenditionBackfill: Sendable {
    let photos: PhotoRepository
    let renditions: RenditionMaker
    let blobDeletions: BlobDeletions
    /// Held for a run, so one instance backfills at a time.
    let lock: AdvisoryLock
    let scopedLogger: ScopedLogger
    var logger: Logger { scopedLogger.current }

    public init(photos: PhotoRepository, renditions: RenditionMaker, blobDeletions: BlobDeletions, lock: AdvisoryLock, logger: Logger) {
        self.photos = photos
        self.renditions = renditions
        self.blobDeletions = blobDeletions
        self.lock = lock
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
    /// (a PostgreSQL advisory lock, held on one connection for the run). Without
    /// `retryingRecentFailures` (the background run, every five minutes), a photo that failed in
    /// the last hour waits: each try reads its whole original from the store.
    public func run(missingOnly: Bool, retryingRecentFailures: Bool = true) async throws -> Report {
        let failedBefore = retryingRecentFailures ? nil : Date.now.addingTimeInterval(-Self.failureBackoff)
        return try await lock.runIfFree { try await backfill(missingOnly: missingOnly, failedBefore: failedBefore) } ?? Report(skipped: true)
    }

    /// How long the background run leaves a photo whose renditions failed: an hour, because a
    /// store that was out of reach for a few minutes fails every photo of a run the same way.
    static let failureBackoff: TimeInterval = 3600

    /// Identifies the backfill's advisory lock (any fixed number other locks do not use).
    static let lockKey: Int64 = 0x5e1f_1e_0009

    /// Reads when each photo without a capture time was taken, from its original's header (photos
    /// stored before Selfie read it): `selfie photos reprocess --capture-times`. Returns how many
    /// gained one; a photo whose file does not say keeps none.
    public func fillCaptureTimes() async throws -> Report {
        try await lock.runIfFree {
            var report = Report()
            var after: Int64 = 0
            while true {
                let batch = try await photos.photosWithoutCaptureTime(after: after, limit: 50)
                guard let last = batch.last else { return report }
                after = last.id
                for photo in batch {
                    do {
                        guard let taken = try await renditions.captureTime(of: photo.blobKey, byteSize: photo.byteSize, owner: photo.userID) else { continue }
                        try await photos.setCaptureTime(photoID: photo.id, takenAt: taken.date, isLocalTime: taken.isLocalTime)
                        report.processed += 1
                    } catch {
                        try Self.rethrowUnlessThePhotos(error)
                        report.failed.append(photo.publicID)
                        logger.warning("no capture time for a photo", metadata: ["photo": "\(photo.publicID)", "reason": "\(error)"])
                    }
                }
            }
        } ?? Report(skipped: true)
    }

    /// Makes the photo's renditions again from its original and replaces the old ones (whose blobs
    /// are queued and deleted); false when the photo was deleted meanwhile. `PhotoError` when the original is
    /// missing or unreadable.
    @discardableResult
    func remake(_ photo: Photo) async throws -> Bool {
        let made = try await renditions.make(from: photo.blobKey, byteSize: photo.byteSize, owner: photo.userID)
        let keys = made.renditions.map(\.blobKey)
        let unused: [BlobKey]?
        do {
            unused = try await photos.replaceRenditions(
                photoID: photo.id, width: made.width, height: made.height, takenAt: made.takenAt ?? photo.takenAt,
                takenAtIsLocalTime: made.takenAt != nil ? made.takenAtIsLocalTime : photo.takenAtIsLocalTime, with: made.renditions
            )
        } catch {
            // Not recorded (the database refused, or was out of reach, or a shutdown cut it off),
            // unless only the answer was lost: the blobs no row points to are no one's.
            let photos = self.photos
            if let recorded = try? await evenIfCancelled({ try await photos.recordedRenditions(of: photo.id, among: keys) }) {
                await renditions.delete(keys.filter { !recorded.contains($0) })
            }
            throw error
        }
        guard let unused else {
            await renditions.delete(keys)  // deleted meanwhile
            return false
        }
        await blobDeletions.drain(unused)
        return true
    }

    /// `remake` for the photo with this row id, wherever it is (the trash too); false when it is gone.
    func remake(photoID: Int64) async throws -> Bool {
        guard let photo = try await photos.photo(id: photoID) else { return false }
        return try await remake(photo)
    }

    /// Goes on past a photo of its own failing — refused, unreadable (a bad sector, a store error
    /// mid-read), the pipeline's own failure, no worker to be had: that photo is listed and the
    /// ones after it still get theirs. Ends the run when it was cancelled (a shutdown) or for
    /// anything else (the database gone: every photo after would fail the same way, and the run
    /// may have lost its lock).
    private static func rethrowUnlessThePhotos(_ error: any Error) throws {
        try Task.checkCancellation()
        switch error {
        case is PhotoError, is ImageError, is BlobStoreError, is RenditionNotStorable, is ImageWorkerFailure: return
        default: throw error
        }
    }

    private func backfill(missingOnly: Bool, failedBefore: Date?) async throws -> Report {
        var report = Report()
        var after: Int64 = 0
        while true {
            let batch = try await photos.photos(after: after, missingRenditionsOnly: missingOnly, failedBefore: failedBefore, limit: 20)
            guard let last = batch.last else { return report }
            after = last.id
            for photo in batch {
                do {
                    if try await remake(photo) { report.processed += 1 }
                } catch {
                    try Self.rethrowUnlessThePhotos(error)
                    report.failed.append(photo.publicID)
                    logger.warning("no renditions for a photo", metadata: ["photo": "\(photo.publicID)", "reason": "\(error)"])
                    try await photos.renditionsFailed(photoID: photo.id)
                }
            }
        }
    }
}
