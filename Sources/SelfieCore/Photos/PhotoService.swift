import Foundation
import Logging
import NIOCore

/// Limits on uploads, from the environment.
public struct UploadLimits: Sendable, Equatable {
    /// The largest photo accepted, in bytes (`MAX_UPLOAD_BYTES`).
    public var maxBytes = 20 * 1024 * 1024
    /// Uploads in progress at once in one server process (`MAX_CONCURRENT_UPLOADS`).
    public var concurrent = 20
    /// Uploads in progress at once for one user (`MAX_CONCURRENT_UPLOADS_PER_USER`).
    public var concurrentPerUser = 3
    /// The longest an upload may take to arrive (`UPLOAD_TIMEOUT_SECONDS`): a body trickling in
    /// a byte at a time never trips the idle timeout, so the upload as a whole has a deadline.
    public var deadline: Duration = .seconds(300)
    /// The most pixels an image may have (`MAX_IMAGE_PIXELS`), checked from its header before it
    /// is decoded: a few kilobytes can declare gigabytes of pixels.
    public var maxPixels = 100_000_000
    /// The most bytes a user may keep (`DEFAULT_QUOTA_BYTES`), originals, renditions and the
    /// trash together, for users without a quota of their own; 0 is no limit.
    public var defaultQuotaBytes: Int64 = 0
    /// Resumable uploads (tus) one user may have unfinished at once (`MAX_UNFINISHED_UPLOADS`)…
    public var unfinishedUploads = 10
    /// … and the bytes they may announce between them (`MAX_UNFINISHED_UPLOAD_BYTES`).
    public var unfinishedBytes: Int64 = 1024 * 1024 * 1024
    /// How long an unfinished resumable upload is kept (`UNFINISHED_UPLOAD_HOURS`, `Upload-Expires`).
    public var unfinishedExpiry: Duration = .seconds(24 * 3600)
    /// How long one PATCH of a resumable upload holds it without renewing (a minute; tests
    /// shorten it): an instance that dies mid-PATCH blocks its upload this long at most.
    public var lease: Duration = .seconds(60)

    public init() {}

    /// The longest `deadline`: ten minutes under the age at which the sweep takes unfinished
    /// uploads for a crash's leftovers (an S3 multipart upload is dated from its start), so that
    /// one still arriving is never aborted under it.
    static let longestDeadline: Duration = BlobSweeper.leftoverAge - .seconds(600)

    static func load(value: (String) -> String?, problems: inout [String]) -> UploadLimits {
        var limits = UploadLimits()
        func number(_ name: String, atLeast minimum: Int, _ unit: String, into target: inout Int) {
            guard let raw = value(name) else { return }
            if let parsed = Int(raw), parsed >= minimum {
                target = parsed
            } else {
                problems.append("\(name) must be a whole number of \(unit), at least \(minimum), got \"\(raw)\"")
            }
        }
        number("MAX_UPLOAD_BYTES", atLeast: 1024, "bytes", into: &limits.maxBytes)
        number("MAX_CONCURRENT_UPLOADS", atLeast: 1, "uploads", into: &limits.concurrent)
        number("MAX_CONCURRENT_UPLOADS_PER_USER", atLeast: 1, "uploads", into: &limits.concurrentPerUser)
        if let raw = value("UPLOAD_TIMEOUT_SECONDS") {
            let longest = Int(longestDeadline.components.seconds)
            if let seconds = Int(raw), (10...longest).contains(seconds) {
                limits.deadline = .seconds(seconds)
            } else {
                problems.append("UPLOAD_TIMEOUT_SECONDS must be a whole number of seconds from 10 to \(longest), got \"\(raw)\"")
            }
        }
        number("MAX_IMAGE_PIXELS", atLeast: 1, "pixels", into: &limits.maxPixels)
        var quota = Int(limits.defaultQuotaBytes)
        number("DEFAULT_QUOTA_BYTES", atLeast: 0, "bytes (0 for no limit)", into: &quota)
        limits.defaultQuotaBytes = Int64(quota)
        number("MAX_UNFINISHED_UPLOADS", atLeast: 1, "uploads", into: &limits.unfinishedUploads)
        var unfinished = Int(limits.unfinishedBytes)
        number("MAX_UNFINISHED_UPLOAD_BYTES", atLeast: 1024, "bytes", into: &unfinished)
        limits.unfinishedBytes = Int64(unfinished)
        var hours = Int(limits.unfinishedExpiry.components.seconds / 3600)
        number("UNFINISHED_UPLOAD_HOURS", atLeast: 1, "hours", into: &hours)
        limits.unfinishedExpiry = .seconds(hours * 3600)
        return limits
    }
}

/// Photos for the browser pages and the API alike: upload, list, find, delete, and the URLs
/// images load from. Every operation takes the owner, so one user can never reach another's photo.
public struct PhotoService: Sendable {
    let photos: PhotoRepository
    public let blobs: any BlobStore
    public let limits: UploadLimits
    let urlLifetime: Duration
    /// Days a deleted photo stays in the trash; 0 deletes at once.
    public let trashDays: Int
    let audit: AuditRepository
    let renditions: RenditionMaker
    let blobDeletions: BlobDeletions
    let slots: UploadSlots
    let scopedLogger: ScopedLogger
    var logger: Logger { scopedLogger.current }

    public init(
        photos: PhotoRepository,
        blobs: any BlobStore,
        limits: UploadLimits,
        urlLifetime: Duration,
        trashDays: Int,
        audit: AuditRepository,
        renditions: RenditionMaker,
        blobDeletions: BlobDeletions,
        logger: Logger
    ) {
        self.trashDays = trashDays
        self.photos = photos
        self.blobs = blobs
        self.limits = limits
        self.urlLifetime = urlLifetime
        self.audit = audit
        self.renditions = renditions
        self.blobDeletions = blobDeletions
        self.slots = UploadSlots(total: limits.concurrent, perUser: limits.concurrentPerUser)
        self.scopedLogger = ScopedLogger(logger)
    }

    /// Stores an uploaded photo from its `multipart/form-data` body (`contentType` carries the
    /// boundary; `contentLength` is the declared size, if any): the original's blob first, then its
    /// renditions, then the row with them, in one transaction. The upload answers once the
    /// renditions exist, so there is never a row without them; if anything fails, every blob made
    /// for it is deleted again. Refusals are `PhotoError`s.
    ///
    /// The quota is guarded twice: before anything is stored (the declared size, then the bytes as
    /// they arrive, against what was left when the upload began), and when the row is inserted
    /// (the original and its renditions against what is left then, other uploads counted).
    public func upload<Body: AsyncSequence & Sendable>(
        for user: User,
        body: Body,
        contentType: String?,
        contentLength: Int?,
        origin: RequestOrigin
    ) async throws -> Photo where Body.Element == ByteBuffer {
        guard let boundary = PhotoUploadReader.boundary(fromContentType: contentType) else { throw PhotoError.notMultipart }
        let quota = try await usage(of: user).quotaRoom
        let reader = PhotoUploadReader(blobs: blobs, maxImageBytes: limits.maxBytes, quota: quota)
        if let contentLength {
            if contentLength > reader.maxBodyBytes { throw PhotoError.tooLarge(maxBytes: limits.maxBytes) }
            // The image is at least the body less its envelope.
            if let quota, Int64(contentLength - PhotoUploadReader.envelopeBytes) > quota.availableBytes {
                throw PhotoError.overQuota(quotaBytes: quota.quotaBytes, availableBytes: quota.availableBytes)
            }
        }
        return try await slots.withSlot(for: user.id) {
            let received = try await withUploadDeadline { try await reader.read(body: body, boundary: boundary) }
            return try await store(received, for: user, origin: origin)
        }
    }

    /// Makes a photo of an original already in the store: its renditions, then its row (within the
    /// quota; with `finishing`, the resumable upload named as this photo in the same transaction),
    /// then the audit event. If anything refuses it, every blob made for it — the original too — is
    /// deleted again. The end of every way in: the multipart upload and a resumable one.
    func store(_ received: ReceivedPhoto, for user: User, origin: RequestOrigin, finishing upload: FinishingUpload? = nil) async throws -> Photo {
        let made: RenditionMaker.Made
        do {
            made = try await renditions.make(from: received.blobKey, byteSize: received.byteSize, owner: user.id)
        } catch {
            await renditions.delete([received.blobKey])
            throw error
        }
        let publicID = RandomToken.urlSafe(byteCount: 18)
        let blobKeys = [received.blobKey] + made.renditions.map(\.blobKey)
        do {
            let photo = try await photos.insert(
                NewPhoto(
                    userID: user.id,
                    publicID: publicID,
                    title: received.title,
                    blobKey: received.blobKey,
                    contentType: received.contentType,
                    byteSize: received.byteSize,
                    width: made.width,
                    height: made.height,
                    takenAt: made.takenAt,
                    takenAtIsLocalTime: made.takenAtIsLocalTime,
                    renditions: made.renditions,
                    sha256: received.sha256
                ),
                defaultQuota: limits.defaultQuotaBytes,
                finishing: upload
            )
            return await stored(photo, by: user, origin: origin)
        } catch let error as PhotoError {
            // Over the quota: the transaction was rolled back, so the blobs go too.
            await renditions.delete(blobKeys)
            throw error
        } catch let error as RowRefused {
            // PostgreSQL refused the row: no row exists, so the blobs must go too.
            await renditions.delete(blobKeys)
            throw error
        } catch where TransactionError.nothingCommitted(by: error) {
            // No COMMIT was sent (the transaction could not begin, or broke before its end): no
            // row can exist, whether or not the database can be asked now.
            await renditions.delete(blobKeys)
            throw error
        } catch {
            // The connection broke at a COMMIT that may have run: look. A photo that exists is
            // answered as made — an error would have the client send it again and make a second
            // one; one that does not takes its blobs with it. If even that cannot be asked, the
            // blobs stay (`selfie check` reports any left without a row; `--repair` moves them aside).
            switch try? await photos.isStored(publicID: publicID, userID: user.id) {
            case true?:
                guard let photo = try? await photos.find(userID: user.id, publicIDs: [publicID]).first else { throw error }
                logger.info("a photo's insert lost its connection after it committed", metadata: ["photo": "\(publicID)"])
                return await stored(photo, by: user, origin: origin)
            case false?:
                await renditions.delete(blobKeys)
                throw error
            case nil:
                throw error
            }
        }
    }

    /// A photo made: its audit event and count.
    private func stored(_ photo: Photo, by user: User, origin: RequestOrigin) async -> Photo {
        await audit.record(.photoUploaded, actor: user.id, targetUser: user.id, target: photo.publicID, origin: origin)
        AppMetrics.uploadStored()
        return photo
    }

    /// What the user keeps and may keep.
    public func usage(of user: User) async throws -> StorageUsage {
        try await photos.usage(userID: user.id, defaultQuota: limits.defaultQuotaBytes)
    }

    /// Runs the reading of an upload, or gives up with `PhotoError.timedOut` at the deadline.
    /// Cancelling the reader ends the request body's stream, so the reader cleans up (nothing is
    /// left in the store) before this returns — or, a resumable upload's, says what it kept: its
    /// `PartialAppend` is thrown with the deadline as its reason, for the offset to be recorded.
    func withUploadDeadline<T: Sendable>(_ read: @escaping @Sendable () async throws -> T) async throws -> T {
        let deadline = limits.deadline
        return try await withThrowingTaskGroup(of: T?.self) { group in
            group.addTask { try await read() }
            group.addTask {
                try await Task.sleep(for: deadline)
                return nil
            }
            defer { group.cancelAll() }
            if let first = try await group.next(), let value = first { return value }
            group.cancelAll()
            do {
                // The reader, stopped (or done in the same instant: then its value counts).
                while let next = try await group.next() {
                    if let value = next { return value }
                }
            } catch let partial as PartialAppend {
                throw PartialAppend(progress: partial.progress, underlying: PhotoError.timedOut)
            } catch {}
            throw PhotoError.timedOut
        }
    }

    /// One page of the gallery (or of one of the user's albums, by its row id), latest taken
    /// first, after `position`, and whether more follow.
    public func page(for user: User, album: Int64? = nil, after position: PhotoPosition?, size: Int) async throws -> (photos: [Photo], hasMore: Bool) {
        let found = try await photos.page(userID: user.id, album: album, after: position, limit: size + 1)
        return (Array(found.prefix(size)), found.count > size)
    }

    /// The photos shown before (newer) and after (older) `photo` in the gallery, or in the album.
    public func neighbours(of photo: Photo, album: Int64? = nil) async throws -> (newer: String?, older: String?) {
        try await photos.neighbours(of: photo, album: album)
    }

    /// The user's photos among `publicIDs`, in gallery order; `PhotoError.notFound` if any of them
    /// is not theirs (someone else's photo is not revealed, and nothing is done to the others).
    public func photos(_ publicIDs: [String], of user: User) async throws -> [Photo] {
        let wanted = Set(publicIDs)
        let found = try await photos.find(userID: user.id, publicIDs: Array(wanted))
        guard found.count == wanted.count else { throw PhotoError.notFound }
        return found
    }

    /// The user's photos by row id (an album's cover).
    public func photos(ids: [Int64], of user: User) async throws -> [Photo] {
        try await photos.find(userID: user.id, ids: ids)
    }

    /// Deletes several of the user's photos at once (all of them or, when one is not theirs, none),
    /// then their blobs.
    public func delete(_ publicIDs: [String], of user: User, origin: RequestOrigin) async throws -> Int {
        _ = try await photos(publicIDs, of: user)
        let ids = Array(Set(publicIDs))
        if trashDays > 0 {
            let trashed = try await photos.trash(userID: user.id, publicIDs: ids)
            await audit.record(.photoTrashed, actor: user.id, targetUser: user.id, targets: trashed.map(\.publicID), origin: origin)
            return trashed.count
        }
        let deleted = try await photos.delete(userID: user.id, publicIDs: ids)
        await blobDeletions.drain(deleted.flatMap(\.blobKeys))
        await audit.record(.photoDeleted, actor: user.id, targetUser: user.id, targets: deleted.map(\.publicID), origin: origin)
        return deleted.count
    }

    // MARK: The trash

    /// The user's trash, the latest deleted first.
    public func trash(of user: User) async throws -> [Photo] {
        try await photos.trashed(userID: user.id)
    }

    /// How many of the trash's photos the page shows (the latest deleted; what a selection may
    /// name at once): the rest are restored or deleted all together.
    public static let trashShownAtOnce = AlbumService.maxPhotosAtOnce

    /// The latest deleted `trashShownAtOnce` photos of the user's trash, and how many it holds.
    public func trashPage(of user: User) async throws -> (photos: [Photo], total: Int) {
        async let shown = photos.trashed(userID: user.id, limit: Self.trashShownAtOnce)
        async let usage = usage(of: user)
        return (try await shown, try await usage.trashedPhotos)
    }

    /// When a photo's time in the trash is up (the purge deletes it within the next two hours);
    /// nil with the trash turned off, which purges nothing.
    public func purgeDate(of photo: Photo) -> Date? {
        guard trashDays > 0 else { return nil }
        return photo.trashedAt.map { $0.addingTimeInterval(TimeInterval(trashDays) * 86400) }
    }

    /// How long after a photo's time in the trash is up (and `restore` no longer takes it) the
    /// purge waits before it takes it: each reads the time on its own instance, and without the
    /// gap a restore on an instance whose clock is behind the purge's could bring back a photo
    /// whose blobs the purge was deleting.
    static let purgeMargin: TimeInterval = 3600

    /// Puts photos from the user's trash back where they were (albums and links included); how many.
    /// Takes photos out of the trash — those of `publicIDs`, or all of it — while their time there
    /// is not up; how many.
    public func restore(_ publicIDs: [String]?, of user: User, origin: RequestOrigin, now: Date = .now) async throws -> Int {
        let cutoff = now.addingTimeInterval(-TimeInterval(trashDays) * 86400)
        let restored = try await photos.restore(userID: user.id, publicIDs: publicIDs.map { Array(Set($0)) }, trashedAfter: cutoff)
        if restored > 0 {
            await audit.record(.photoRestored, actor: user.id, targetUser: user.id, target: "\(restored) photo(s)", origin: origin)
        }
        return restored
    }

    /// Deletes photos from the user's trash for good — those of `publicIDs`, or all of it: rows,
    /// then blobs. How many.
    public func deleteForever(_ publicIDs: [String]?, of user: User, origin: RequestOrigin) async throws -> Int {
        let deleted = try await photos.deleteTrashed(userID: user.id, publicIDs: publicIDs.map { Array(Set($0)) })
        await blobDeletions.drain(deleted.flatMap(\.blobKeys))
        await audit.record(.photoDeleted, actor: user.id, targetUser: user.id, targets: deleted.map(\.publicID), origin: origin)
        return deleted.count
    }

    /// Deletes what has been in the trash longer than `trashDays` and `purgeMargin` and returns
    /// how many photos went: a hundred rows at a time, their blobs queued in the same statement and
    /// deleted after it (`BlobDeletions`: a blob the store refuses is tried again later, and holds
    /// back nothing). Rows first, so that a backup running meanwhile sees such a photo as deleted,
    /// not as a row whose blob is missing. Runs from a periodic task, once across instances. With
    /// the trash turned off (0 days) it takes nothing: what the trash held stays, so that one
    /// instance started with `TRASH_DAYS=0` by mistake (a rolling deploy) cannot delete
    /// everyone's trash for good; its owner can still delete it from `/trash`.
    public func purgeExpiredTrash(now: Date = .now) async throws -> Int {
        guard trashDays > 0 else { return 0 }
        let cutoff = now.addingTimeInterval(-TimeInterval(trashDays) * 86400 - Self.purgeMargin)
        var purged = 0
        while true {
            let deleted = try await photos.deleteTrashed(before: cutoff, limit: 100)
            guard !deleted.isEmpty else { return purged }
            await audit.record(.photoDeleted, actor: nil, targets: deleted.map { AuditTarget(user: $0.userID, text: $0.publicID) }, origin: .periodicTask)
            await blobDeletions.drain(deleted.flatMap(\.blobKeys), within: .seconds(60))
            purged += deleted.count
            logger.info("deleted \(deleted.count) photo(s) from the trash for good", metadata: ["photos": "\(deleted.map(\.publicID))"])
        }
    }

    /// All of the user's photos, oldest first, each with its display copy only (the API's listing).
    public func all(for user: User) async throws -> [Photo] {
        try await photos.pageByUpload(userID: user.id, before: nil, limit: .max).reversed()
    }

    /// The user's photo; `PhotoError.notFound` also for other users' photos (their existence is
    /// not revealed).
    public func photo(_ publicID: String, of user: User) async throws -> Photo {
        guard let photo = try await photos.find(userID: user.id, publicID: publicID) else { throw PhotoError.notFound }
        return photo
    }

    /// Deletes the photo: to the trash for `trashDays` (hidden everywhere, blobs kept), or — with
    /// no trash — the row, then every blob (one the store refuses now is tried again, see `BlobDeletions`).
    /// A photo already in the user's trash is deleted as asked: the same request sent again (an
    /// app retrying after a lost answer, a second click) is not told "no such photo".
    public func delete(_ publicID: String, of user: User, origin: RequestOrigin) async throws {
        do {
            guard try await delete([publicID], of: user, origin: origin) == 1 else { throw PhotoError.notFound }
        } catch PhotoError.notFound where trashDays > 0 {
            guard try await photos.isInTrash(userID: user.id, publicID: publicID) else { throw PhotoError.notFound }
        }
    }

    /// The originals of the user's photos among `publicIDs` as one ZIP, streamed; `PhotoError.notFound`
    /// if one is not theirs.
    public func originalsArchive(_ publicIDs: [String], of user: User) async throws -> BlobBody {
        let chosen = try await photos(publicIDs, of: user)
        let entries = chosen.map {
            PhotoArchive.Entry(
                blob: $0.blobKey,
                name: "selfie-\(PhotoArchive.stamp($0.shownAt))-\($0.publicID).\(PhotoArchive.fileExtension(of: $0.blobKey))",
                modified: $0.shownAt
            )
        }
        return PhotoArchive.body(entries: entries, blobs: blobs, logger: logger)
    }

    /// A signed URL for one of the photo's renditions, valid for the configured lifetime unless
    /// `lifetime` says longer (and the same for a while, so that browsers cache it); nil while the
    /// photo has none.
    public func url(of name: RenditionName, for photo: Photo, lifetime: Duration? = nil) -> String? {
        photo.rendition(name).map { blobs.signedURL(for: $0.blobKey, lifetime: max(lifetime ?? urlLifetime, urlLifetime)) }
    }

    /// The user's photo and its original's bytes: the file as it was uploaded, metadata and all,
    /// for its owner only.
    public func original(_ publicID: String, of user: User) async throws -> (photo: Photo, content: BlobContent) {
        let photo = try await photo(publicID, of: user)
        guard let content = try await blobs.read(photo.blobKey, range: nil) else { throw PhotoError.notFound }
        return (photo, content)
    }

    /// The `limit` most recent photos taken before the user's photo `before` (or the most recent
    /// of all), oldest first like `all(for:)`; `PhotoError.notFound` if `before` is not theirs.
    /// `before` may be in the trash: a client paging from a photo deleted since goes on paging.
    public func page(for user: User, before publicID: String?, limit: Int) async throws -> [Photo] {
        var before: Int64?
        if let publicID {
            guard let id = try await photos.id(userID: user.id, publicID: publicID) else { throw PhotoError.notFound }
            before = id
        }
        return try await photos.pageByUpload(userID: user.id, before: before, limit: limit).reversed()
    }
}
