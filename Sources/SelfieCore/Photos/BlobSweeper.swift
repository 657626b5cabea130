import Foundation
import Logging

/// Finds what "blob first, row second" can leave behind after a crash: unfinished uploads
/// (temporary files, S3 multipart uploads and part files that no resumable upload holds: removed), blobs without a row older than `minimumAge`
/// (reported, never deleted: after a restore over a store that was not empty they are the photos
/// of rows the restore took back; `selfie check --repair` moves them aside), and rows whose blob
/// is missing (reported: that needs a person).
public struct BlobSweeper: Sendable {
    let photos: PhotoRepository
    /// Resumable uploads under way hold S3 multipart uploads that must outlive the sweep's cutoff.
    let resumable: ResumableUploadRepository
    let blobs: any BlobStore
    let logger: Logger

    public init(photos: PhotoRepository, resumable: ResumableUploadRepository, blobs: any BlobStore, logger: Logger) {
        self.photos = photos
        self.resumable = resumable
        self.blobs = blobs
        self.logger = logger
    }

    public struct Report: Sendable, Equatable {
        /// Blobs without a row, older than the minimum age: left where they are.
        public var orphans: [BlobKey] = []
        /// Public ids of photos whose blob is gone.
        public var rowsMissingBlobs: [String] = []
        /// Unfinished uploads (temporary files, S3 multipart uploads) left by crashes.
        public var incompleteUploadsRemoved = 0
    }

    /// How old an unfinished upload (or a blob without a row) must be before the sweep takes it
    /// for a crash's leftovers: longer than any upload may take (`UploadLimits.longestDeadline`).
    public static let leftoverAge: Duration = .seconds(3600)

    public func sweep(minimumAge: Duration = leftoverAge, now: Date = .now) async throws -> Report {
        var report = Report()
        // Rows first: a photo uploaded after this read is not yet in it, but its blob is then
        // younger than `minimumAge` and its row is not looked for.
        let rows = try await photos.allBlobKeys()
        let listings = try await blobs.list()
        let cutoff = now.addingTimeInterval(-TimeInterval(minimumAge.components.seconds))
        let candidates = listings.filter { $0.lastModified < cutoff }.map(\.key)
        var referenced: Set<BlobKey> = []
        for start in stride(from: 0, to: candidates.count, by: 1000) {
            referenced.formUnion(try await photos.existingBlobKeys(among: Array(candidates[start..<min(start + 1000, candidates.count)])))
        }
        report.orphans = candidates.filter { !referenced.contains($0) }
        if !report.orphans.isEmpty {
            logger.warning(
                "blobs without a photo row; `selfie check --repair` moves them aside",
                metadata: ["count": "\(report.orphans.count)", "first": "\(report.orphans[0])"]
            )
        }
        // Read after the listing: a resumable upload that began its multipart upload since is younger than the cutoff.
        let held = try await resumable.heldParts()
        report.incompleteUploadsRemoved = try await blobs.removeIncompleteUploads(olderThan: cutoff, keeping: held)
        let present = Set(listings.map(\.key))
        for (publicID, key) in rows where !present.contains(key) {
            report.rowsMissingBlobs.append(publicID)
            logger.warning("photo row without its blob", metadata: ["photo": "\(publicID)", "blob": "\(key)"])
        }
        return report
    }
}

