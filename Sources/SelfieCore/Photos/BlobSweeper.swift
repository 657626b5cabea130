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
        /// Blobs without a row, older than the minimum age: left where they are (the first `listed`).
        public var orphans: [BlobKey] = []
        public var orphanCount = 0
        /// Public ids of photos whose blob is gone (the first `listed`).
        public var rowsMissingBlobs: [String] = []
        public var rowsMissingBlobCount = 0
        /// Unfinished uploads (temporary files, S3 multipart uploads) left by crashes.
        public var incompleteUploadsRemoved = 0

        /// How many of each kind a report names (a store restored beside a smaller database can hold millions).
        public static let listed = 1000
    }

    /// How old an unfinished upload (or a blob without a row) must be before the sweep takes it
    /// for a crash's leftovers: longer than any upload may take (`UploadLimits.longestDeadline`).
    public static let leftoverAge: Duration = .seconds(3600)

    /// About how many blobs one part of the sweep (and of the integrity check) holds in memory, keys
    /// and rows: the store is gone through by the keys' first character (64 parts), or by their
    /// first two (4,096) when the rows count more than 64 times this (`BlobNamePrefixes`).
    public static let blobsPerPart = 100_000

    public func sweep(minimumAge: Duration = leftoverAge, now: Date = .now, blobsPerPart: Int = blobsPerPart) async throws -> Report {
        var report = Report()
        let cutoff = now.addingTimeInterval(-TimeInterval(minimumAge.components.seconds))
        for prefix in BlobNamePrefixes.covering(blobs: try await photos.storedCounts().blobs, perPart: blobsPerPart) {
            try await sweep(namesStartingWith: prefix, before: cutoff, into: &report)
        }
        if report.orphanCount > 0 {
            logger.warning(
                "blobs without a photo row; `selfie check --repair` moves them aside",
                metadata: ["count": "\(report.orphanCount)", "first": "\(report.orphans[0])"]
            )
        }
        if report.rowsMissingBlobCount > 0 {
            logger.warning(
                "photo rows without their blob; see `selfie check`",
                metadata: ["count": "\(report.rowsMissingBlobCount)", "first": "\(report.rowsMissingBlobs[0])"]
            )
        }
        // Read after the listing: a resumable upload that began its multipart upload since is younger than the cutoff.
        let held = try await resumable.heldParts()
        report.incompleteUploadsRemoved = try await blobs.removeIncompleteUploads(olderThan: cutoff, keeping: held)
        return report
    }

    /// One part: the rows and the listing of the blobs whose names start with `prefix`.
    private func sweep(namesStartingWith prefix: String, before cutoff: Date, into report: inout Report) async throws {
        // Rows first: a photo uploaded after this read is not yet in it, but its blob is then
        // younger than `minimumAge` and its row is not looked for.
        let rows = try await photos.blobKeys(startingWith: prefix)
        let listings = try await blobs.list(namesStartingWith: prefix)
        let candidates = listings.filter { $0.lastModified < cutoff }.map(\.key)
        var referenced: Set<BlobKey> = []
        for start in stride(from: 0, to: candidates.count, by: 1000) {
            referenced.formUnion(try await photos.existingBlobKeys(among: Array(candidates[start..<min(start + 1000, candidates.count)])))
        }
        for key in candidates where !referenced.contains(key) {
            report.orphanCount += 1
            if report.orphans.count < Report.listed { report.orphans.append(key) }
        }
        let present = Set(listings.map(\.key))
        for (publicID, key) in rows where !present.contains(key) {
            report.rowsMissingBlobCount += 1
            if report.rowsMissingBlobs.count < Report.listed { report.rowsMissingBlobs.append(publicID) }
        }
    }
}

