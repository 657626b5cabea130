import Crypto
import Foundation
import Logging

/// Something wrong between the rows and the blobs.
public struct IntegrityFinding: Codable, Sendable, Equatable {
    public enum Kind: String, Codable, Sendable {
        /// A photo's original is not in the store.
        case missingOriginal = "missing_original"
        /// One of a photo's renditions is not in the store.
        case missingRendition = "missing_rendition"
        /// A blob's bytes no longer match the SHA-256 recorded when it was stored.
        case corrupt
        /// A blob no row references.
        case orphan

        /// Lower first: a lost original needs the backup; a changed blob may be an original; a
        /// rendition can be made again; an orphan harms nothing.
        var severity: Int {
            switch self {
            case .missingOriginal: 0
            case .corrupt: 1
            case .missingRendition: 2
            case .orphan: 3
            }
        }
    }

    public let kind: Kind
    /// The photo's public id and its owner (nil for an orphan).
    public let photo: String?
    public let owner: String?
    public let blob: String
    /// The rendition's name, when it is one.
    public let rendition: String?
    /// What `--repair` did about it: remade the renditions, or moved the orphan aside.
    public var repaired = false
}

/// What a check found.
public struct IntegrityReport: Sendable {
    public enum Kind: String, Sendable {
        /// `selfie check`: every blob read and hashed.
        case full
        /// The periodic check: rows against the store's listing, and a sample of checksums.
        case light
    }

    public var startedAt: Date
    public var finishedAt: Date
    public var photos = 0
    /// Blobs in the store.
    public var blobs = 0
    public var checksumsVerified = 0
    /// Checksums computed and recorded for blobs stored before checksums were.
    public var checksumsRecorded = 0
    /// What was found: of each kind the first `keptPerKind` (all, for a repair), in order of
    /// severity once the check is done.
    public var findings: [IntegrityFinding] = []
    /// Everything found, kept or not.
    public var findingCount: Int { countsByKind.values.reduce(0, +) }
    /// A check that only reports keeps this many findings of each kind and counts the rest (a
    /// store restored beside the wrong database can hold millions of orphans; the check runs in
    /// the server every six hours). nil: all of them (`--repair` needs each).
    var keptPerKind: Int? = nil
    private var countsByKind: [IntegrityFinding.Kind: Int] = [:]

    init(startedAt: Date, finishedAt: Date) {
        self.startedAt = startedAt
        self.finishedAt = finishedAt
    }

    mutating func record(_ finding: IntegrityFinding) {
        let ofItsKind = countsByKind[finding.kind, default: 0]
        countsByKind[finding.kind] = ofItsKind + 1
        if let keptPerKind, ofItsKind >= keptPerKind { return }
        findings.append(finding)
    }

    /// Drops the findings at `offsets` (orphans a repair found to be photos after all), from the count too.
    mutating func dropAdopted(_ offsets: Set<Int>) {
        for offset in offsets { countsByKind[findings[offset].kind, default: 1] -= 1 }
        findings = findings.enumerated().filter { !offsets.contains($0.offset) }.map(\.element)
    }

    /// Findings `--repair` could not fix (a lost or damaged original needs the backup).
    public var unresolved: [IntegrityFinding] { findings.filter { !$0.repaired } }
}

/// A check as the admin page shows it.
public struct StoredIntegrityCheck: Sendable {
    public let kind: IntegrityReport.Kind
    public let startedAt: Date
    public let finishedAt: Date
    public let photos: Int
    public let blobs: Int
    public let checksumsVerified: Int
    public let findings: [IntegrityFinding]
    public let findingCount: Int
}

/// `selfie check [--repair]` and the periodic light check: compares the rows with the store —
/// blobs a row references but the store lacks, blobs no row references, blobs whose bytes changed.
/// `--repair` remakes a photo's renditions from its original and moves unreferenced blobs aside
/// into a folder (it never deletes a blob it has not copied).
public struct IntegrityChecker: Sendable {
    let repository: IntegrityRepository
    let photos: PhotoRepository
    let blobs: any BlobStore
    let backfill: RenditionBackfill
    let logger: Logger
    static let parallelReads = 4
    /// See `IntegrityReport.keptPerKind`.
    public static let findingsKeptPerKind = 10_000

    public init(repository: IntegrityRepository, photos: PhotoRepository, blobs: any BlobStore, backfill: RenditionBackfill, logger: Logger) {
        self.repository = repository
        self.photos = photos
        self.blobs = blobs
        self.backfill = backfill
        self.logger = logger
    }

    public enum Scope: Sendable {
        case full
        /// Counts, and the checksums of `sample` random blobs.
        case light(sample: Int)
    }

    /// - Parameters:
    ///   - orphanGrace: a blob without a row younger than this is an upload in flight, not an orphan.
    ///   - repairInto: repair what can be, moving orphans into this folder; nil only reports.
    ///   - blobsPerPart: how many blobs one part of the check holds in memory (`BlobSweeper.blobsPerPart`).
    ///   - findingsKeptPerKind: without a repair, how many findings of each kind are kept (the rest counted).
    public func run(
        _ scope: Scope, orphanGrace: Duration = .seconds(3600), repairInto aside: URL? = nil, now: Date = .now,
        blobsPerPart: Int = BlobSweeper.blobsPerPart, findingsKeptPerKind: Int = Self.findingsKeptPerKind
    ) async throws -> IntegrityReport {
        var report = IntegrityReport(startedAt: now, finishedAt: now)
        report.keptPerKind = aside == nil ? findingsKeptPerKind : nil
        let cutoff = now.addingTimeInterval(-TimeInterval(orphanGrace.components.seconds))
        let stored = try await photos.storedCounts()
        report.photos = stored.photos
        var photoIDs: [String: Int64] = [:]
        for prefix in BlobNamePrefixes.covering(blobs: stored.blobs, perPart: blobsPerPart) {
            try await check(namesStartingWith: prefix, scope, orphansBefore: cutoff, into: &report, photoIDs: &photoIDs)
        }
        if case .light(let sample) = scope {
            // Among the blobs that are there: the missing ones are already findings.
            // (At most 1,000 more asked for: a store that lost everything has nothing to sample.)
            let missing = Set(report.findings.filter { $0.kind == .missingOriginal || $0.kind == .missingRendition }.map(\.blob))
            let rows = try await repository.sampleOfBlobRows(count: sample + min(missing.count, 1000)).filter { !missing.contains($0.key.value) }
            try await verifyChecksums(of: Array(rows.prefix(sample)), scope, into: &report, photoIDs: &photoIDs)
        }
        // The parts find things in key order; the most serious first (the admin page keeps 500).
        report.findings.sort { ($0.kind.severity, $0.photo ?? "", $0.blob) < ($1.kind.severity, $1.photo ?? "", $1.blob) }
        if let aside { try await repair(&report, photoIDs: photoIDs, aside: aside) }
        report.finishedAt = .now
        try await repository.save(report, kind: { if case .full = scope { .full } else { .light } }())
        return report
    }

    /// One part: the rows and the listing of the blobs whose names start with `prefix` (and, in a
    /// full check, their checksums). Records the photo ids of what it finds (a repair remakes
    /// renditions by photo).
    private func check(
        namesStartingWith prefix: String, _ scope: Scope, orphansBefore cutoff: Date, into report: inout IntegrityReport,
        photoIDs: inout [String: Int64]
    ) async throws {
        // Rows first, then the listing: a photo stored in between has its blob listed but no row
        // read — and it is younger than the grace, so it is not taken for an orphan.
        let rows = try await repository.blobRows(startingWith: prefix)
        let listing = try await blobs.list(namesStartingWith: prefix)
        report.blobs += listing.count
        let listed = Set(listing.map(\.key))
        let referenced = Set(rows.map(\.key))

        // Missing: confirmed one by one (a photo deleted meanwhile took its row and its blob).
        let absent = rows.filter { !listed.contains($0.key) }
        let stillReferenced = try await photos.existingBlobKeys(among: absent.map(\.key))
        for row in absent where stillReferenced.contains(row.key) {
            guard try await !blobs.exists(row.key) else { continue }
            report.record(finding(row.rendition == nil ? .missingOriginal : .missingRendition, row))
            photoIDs[row.publicID] = row.photoID
        }

        // Orphans: older than the grace, and still without a row.
        let candidates = listing.filter { !referenced.contains($0.key) && $0.lastModified < cutoff }.map(\.key)
        let adopted = try await photos.existingBlobKeys(among: candidates)
        for key in candidates where !adopted.contains(key) {
            report.record(IntegrityFinding(kind: .orphan, photo: nil, owner: nil, blob: key.value, rendition: nil))
        }

        if case .full = scope {
            try await verifyChecksums(of: rows.filter { listed.contains($0.key) }, scope, into: &report, photoIDs: &photoIDs)
        }
    }

    /// Reads and hashes each blob: a recorded checksum is compared; a missing one is recorded in a full check.
    private func verifyChecksums(of rows: [BlobRow], _ scope: Scope, into report: inout IntegrityReport, photoIDs: inout [String: Int64])
        async throws
    {
        let blobs = self.blobs
        let hashes = try await forEach(rows, parallel: Self.parallelReads) { row -> [UInt8]? in
            guard let content = try await blobs.read(row.key, range: nil) else { return nil }
            var hasher = SHA256()
            try await content.body.write { chunk in hasher.update(data: chunk.readableBytesView) }
            return Array(hasher.finalize())
        }
        for (row, hash) in zip(rows, hashes) {
            guard let hash else { continue }  // deleted since the listing (or missing: found above)
            if let recorded = row.sha256 {
                report.checksumsVerified += 1
                if recorded != hash {
                    report.record(finding(.corrupt, row))
                    photoIDs[row.publicID] = row.photoID
                }
            } else if case .full = scope {
                try await repository.recordChecksum(of: row.key, hash)
                report.checksumsRecorded += 1
            }
        }
    }

    /// The last full and light checks (for the admin page).
    public func lastChecks() async throws -> [StoredIntegrityCheck] { try await repository.last() }

    private func finding(_ kind: IntegrityFinding.Kind, _ row: BlobRow) -> IntegrityFinding {
        IntegrityFinding(kind: kind, photo: row.publicID, owner: row.owner, blob: row.key.value, rendition: row.rendition?.rawValue)
    }

    /// Makes a photo's renditions again; false when they cannot be (its original no longer decodes,
    /// or is too large for today's limits): that finding stays unresolved and the repair goes on.
    /// Other errors (the store or the database out of reach) end the repair.
    private func remake(_ photoID: Int64?) async throws -> Bool {
        guard let photoID else { return false }
        do {
            return try await backfill.remake(photoID: photoID)
        } catch let error as PhotoError {
            logger.warning("could not make a photo's renditions again", metadata: ["photo": "\(photoID)", "error": "\(error)"])
            return false
        }
    }

    /// Remakes the renditions of photos whose original is sound; moves orphans aside. An orphan is
    /// looked up again between its copy and its deletion: a full check takes hours, and an upload
    /// whose row committed since it was found (its blob dated when it began, as an S3 multipart
    /// upload is) is a photo now, not an orphan — it stays, and leaves the report.
    private func repair(_ report: inout IntegrityReport, photoIDs: [String: Int64], aside: URL) async throws {
        let brokenOriginals = Set(report.findings.filter { $0.rendition == nil && $0.kind != .orphan }.compactMap(\.photo))
        var remade: [String: Bool] = [:]
        var adopted: Set<Int> = []
        defer { report.dropAdopted(adopted) }
        for index in report.findings.indices {
            let item = report.findings[index]
            switch item.kind {
            case .missingRendition, .corrupt:
                // A rendition, remade from its original (a damaged original is left for a backup).
                guard item.rendition != nil, let publicID = item.photo, !brokenOriginals.contains(publicID) else { continue }
                if remade[publicID] == nil {
                    remade[publicID] = try await remake(photoIDs[publicID])
                }
                report.findings[index].repaired = remade[publicID] ?? false
            case .orphan:
                guard let key = BlobKey(item.blob), let content = try await blobs.read(key, range: nil) else { continue }
                let writer = try HashingFileWriter(destination: aside.appendingPathComponent(key.value))
                do {
                    try await content.body.write { chunk in try writer.write(chunk) }
                    _ = try writer.finish()
                } catch {
                    writer.abandon()
                    throw error
                }
                guard try await photos.existingBlobKeys(among: [key]).isEmpty else {
                    try? FileManager.default.removeItem(at: aside.appendingPathComponent(key.value))
                    adopted.insert(index)
                    logger.info("a blob found without a row has one now; left where it is", metadata: ["blob": "\(key)"])
                    continue
                }
                try await blobs.delete(key)
                report.findings[index].repaired = true
                logger.info("moved an unreferenced blob aside", metadata: ["blob": "\(key)", "to": "\(aside.path)"])
            default:
                continue
            }
        }
    }
}
