import Crypto
import Foundation
import Logging
import NIOCore

/// Why a resumable upload request was refused (the tus surface turns each into its status).
public enum ResumableUploadError: Error, Equatable, Sendable {
    case notFound
    /// Its time ran out (`Upload-Expires`); its bytes are gone or going.
    case expired
    /// `Upload-Offset` is not where the upload stands: the client should `HEAD` and resume from there.
    case offsetMismatch(current: Int64)
    /// Another PATCH is appending to this upload right now.
    case busy
    case tooLarge(maxBytes: Int64)
    /// The body went past `Upload-Length`.
    case pastLength
    case tooManyInFlight(maxUploads: Int, maxBytes: Int64)
    case unsupportedChecksum(String)
    /// `Upload-Checksum` did not match the PATCH's body; nothing of it was kept.
    case checksumMismatch
    case metadata(UploadMetadata.Problem)
    /// `album_id` names no album of the user's.
    case noSuchAlbum
}

/// What a PATCH achieved.
public struct AppendOutcome: Sendable {
    public let offset: Int64
    /// The photo, when this PATCH brought the last byte.
    public let photo: Photo?
}

/// tus 1.0 resumable uploads: the state in PostgreSQL, the bytes in the store's part storage; the
/// last byte sends the whole file through the same path as `upload_photo` (sniffing, renditions,
/// quota, audit).
public struct ResumableUploadService: Sendable {
    let uploads: ResumableUploadRepository
    let parts: any PartStorage
    let photos: PhotoService
    let albums: AlbumService
    let logger: Logger
    /// Each upload's SHA-256 so far, where this instance received its bytes.
    let digests = RunningDigests()

    public init(uploads: ResumableUploadRepository, parts: any PartStorage, photos: PhotoService, albums: AlbumService, logger: Logger) {
        self.uploads = uploads
        self.parts = parts
        self.photos = photos
        self.albums = albums
        self.logger = logger
    }

    var limits: UploadLimits { photos.limits }
    public var maxBytes: Int64 { Int64(limits.maxBytes) }

    public func create(for user: User, length: Int64, metadata: UploadMetadata, now: Date = .now) async throws -> ResumableUpload {
        var metadata = metadata
        metadata.title = try PhotoUploadReader.caption(metadata.title)
        guard length <= maxBytes else { throw ResumableUploadError.tooLarge(maxBytes: maxBytes) }
        if let albumID = metadata.albumID {
            do {
                _ = try await albums.album(albumID, of: user)
            } catch AlbumError.notFound {
                throw ResumableUploadError.noSuchAlbum
            }
        }
        switch try await uploads.create(
            userID: user.id, publicID: RandomToken.urlSafe(byteCount: 18), length: length, metadata: metadata, expiresAt: expiry(from: now),
            maxInFlight: limits.unfinishedUploads, maxBytesInFlight: limits.unfinishedBytes, defaultQuota: limits.defaultQuotaBytes
        ) {
        case .created(let upload): return upload
        case .tooManyInFlight: throw ResumableUploadError.tooManyInFlight(maxUploads: limits.unfinishedUploads, maxBytes: limits.unfinishedBytes)
        case .overQuota(let quota, let available): throw PhotoError.overQuota(quotaBytes: quota, availableBytes: available)
        }
    }

    /// When an upload made (or finished) at `now` expires: `UNFINISHED_UPLOAD_HOURS` later.
    private func expiry(from now: Date) -> Date {
        now.addingTimeInterval(TimeInterval(limits.unfinishedExpiry.components.seconds))
    }

    /// The user's upload, if it is still open (or complete).
    public func upload(_ publicID: String, of user: User, now: Date = .now) async throws -> ResumableUpload {
        guard let upload = try await uploads.find(publicID: publicID, userID: user.id) else { throw ResumableUploadError.notFound }
        guard upload.photoPublicID != nil || upload.expiresAt > now else { throw ResumableUploadError.expired }
        return upload
    }

    /// Appends a PATCH's body at `offset`; with `checksum` (algorithm, digest), the body is kept
    /// only if it matches. The last byte makes the photo. A PATCH counts as one of the user's
    /// uploads in progress and has the same deadline as a form upload.
    public func append<Bytes: AsyncSequence & Sendable>(
        _ bytes: Bytes, to upload: ResumableUpload, at offset: Int64, checksum: (algorithm: String, digest: [UInt8])?,
        for user: User, origin: RequestOrigin
    ) async throws -> AppendOutcome where Bytes.Element == ByteBuffer {
        if let checksum, !["sha1", "sha256"].contains(checksum.algorithm) {
            throw ResumableUploadError.unsupportedChecksum(checksum.algorithm)
        }
        guard upload.storedOffset == offset else { throw ResumableUploadError.offsetMismatch(current: upload.storedOffset) }
        // Complete already (a client that lost the last answer): nothing to add, the photo exists.
        guard upload.photoPublicID == nil else { return AppendOutcome(offset: upload.length, photo: nil) }
        return try await photos.slots.withSlot(for: user.id) {
            let claimedAt = ContinuousClock.now
            guard let lease = try await uploads.claim(upload, at: offset, for: limits.lease) else {
                // Gone since the request found it (terminated, purged, its account deleted), moved
                // on (another PATCH), or held by another PATCH right now.
                guard let current = try await uploads.find(publicID: upload.publicID, userID: user.id) else { throw ResumableUploadError.notFound }
                if current.storedOffset != offset { throw ResumableUploadError.offsetMismatch(current: current.storedOffset) }
                throw ResumableUploadError.busy
            }
            let reached: Int64
            do {
                reached = try await store(bytes, in: upload, checksum: checksum, lease: lease, claimedAt: claimedAt)
            } catch is LeaseLost {
                guard let current = try await uploads.find(publicID: upload.publicID, userID: user.id) else { throw ResumableUploadError.notFound }
                throw ResumableUploadError.offsetMismatch(current: current.storedOffset)
            }
            guard reached == upload.length else { return AppendOutcome(offset: reached, photo: nil) }
            // The lease is held until the photo is made, not only while bytes arrive: a client
            // that lost the last answer and sends the (empty) rest meanwhile is told to wait (423)
            // rather than making the photo a second time from a part that is already gone.
            return try await keepingLease(lease, of: upload, stoppingIfLost: nil) {
                // Read again for what the PATCH recorded; its time may have run out meanwhile,
                // which does not undo bytes accepted under the lease.
                guard let complete = try await uploads.find(publicID: upload.publicID, userID: user.id) else {
                    throw ResumableUploadError.notFound
                }
                return AppendOutcome(offset: reached, photo: try await finish(complete, for: user, origin: origin))
            }
        }
    }

    /// A PATCH's lease ended while it was receiving: another may hold the upload now.
    struct LeaseLost: Error {}

    /// Runs `body` while the lease is renewed every quarter of its period. With `stoppingIfLost`
    /// (when it was claimed; while bytes arrive), the body is stopped as soon as a renewal finds
    /// the lease taken, or once renewals have failed for half the period since the last that
    /// worked: before the lease can run out and another PATCH take the upload, so that two never
    /// write into one part. What the stopped body kept is thrown as its `PartialAppend` with
    /// `LeaseLost` as the reason; it counts only if the lease is still this PATCH's when recorded.
    private func keepingLease<Value: Sendable>(
        _ lease: String, of upload: ResumableUpload, stoppingIfLost claimedAt: ContinuousClock.Instant?,
        _ body: @escaping @Sendable () async throws -> Value
    ) async throws -> Value {
        let (uploads, period) = (self.uploads, limits.lease)
        return try await withThrowingTaskGroup(of: Value?.self) { group in
            group.addTask {
                var renewed = claimedAt
                while !Task.isCancelled {
                    try? await Task.sleep(for: period / 4)
                    if Task.isCancelled { break }
                    let asked = ContinuousClock.now
                    // Bounded: a renewal on a connection that no longer answers would otherwise
                    // hold the fence (and, at the end, the answer) for as long as TCP takes.
                    let bound = renewed.map { min(period / 4, max(.zero, $0 + period / 2 - asked)) } ?? period / 4
                    switch try? await withDeadline(bound, { try await uploads.renew(upload, token: lease, for: period) }) {
                    case true?: renewed = asked
                    case false?: if renewed != nil { throw LeaseLost() }
                    case nil: if let renewed, ContinuousClock.now - renewed >= period / 2 { throw LeaseLost() }
                    }
                }
                return nil
            }
            group.addTask { try await body() }
            defer { group.cancelAll() }
            do {
                while let result = try await group.next() {
                    if let value = result { return value }
                }
            } catch is LeaseLost {
                group.cancelAll()
                do {
                    // The body, stopped (or done in the same instant: then its value counts).
                    while let next = try await group.next() {
                        if let value = next { return value }
                    }
                } catch let partial as PartialAppend {
                    throw PartialAppend(progress: partial.progress, underlying: LeaseLost())
                } catch {}
                throw LeaseLost()
            }
            preconditionFailure("the body returns or throws before the renewals end")
        }
    }

    /// Stores the body, then records how far it got; the offset reached. The lease is let go,
    /// unless the last byte is in (the photo is made under it).
    private func store<Bytes: AsyncSequence & Sendable>(
        _ bytes: Bytes, in upload: ResumableUpload, checksum: (algorithm: String, digest: [UInt8])?, lease: String,
        claimedAt: ContinuousClock.Instant
    ) async throws -> Int64 where Bytes.Element == ByteBuffer {
        let parts = self.parts
        let hashing = HashingSequence(
            base: bytes, algorithm: checksum?.algorithm, continuing: digests.hasher(for: upload.publicID, at: upload.storedOffset)
        )
        // The running digest counts only if it holds exactly the bytes recorded.
        func keepDigest(upTo offset: Int64) {
            guard let whole = hashing.whole, upload.storedOffset + hashing.count == offset else { return }
            digests.record(whole, for: upload.publicID, at: offset)
        }
        let progress: PartProgress
        do {
            progress = try await photos.withUploadDeadline {
                try await keepingLease(lease, of: upload, stoppingIfLost: claimedAt) {
                    try await parts.append(hashing, to: upload, limit: upload.length)
                }
            }
        } catch let partial as PartialAppend {
            // Without a checksum, what arrived before a cut or the deadline is kept; with one, a
            // body cut short cannot be checked, and one past the length is refused as a whole.
            let pastLength = partial.underlying is PartLimitExceeded
            let kept = checksum == nil && !pastLength ? partial.progress : nil
            // Every byte in (a client that declared more, or went at the deadline): the photo is
            // made under the lease, as for a whole body; a HEAD names it to the client.
            let whole = kept?.offset == upload.length
            let recorded = try await uploads.release(upload, token: lease, at: kept, keepingLease: whole)
            if recorded, let kept { keepDigest(upTo: kept.offset) }
            if pastLength { throw ResumableUploadError.pastLength }
            if recorded, whole { return upload.length }
            throw partial.underlying
        } catch is PartMissing {
            // What the row records is kept nowhere any more: nothing to resume; the client starts again.
            try await uploads.release(upload, token: lease, at: nil)
            try await terminate(upload)
            throw ResumableUploadError.notFound
        } catch {
            try await uploads.release(upload, token: lease, at: nil)
            throw error
        }
        if let checksum, hashing.digest() != checksum.digest {
            try await uploads.release(upload, token: lease, at: nil)
            throw ResumableUploadError.checksumMismatch
        }
        guard try await uploads.release(upload, token: lease, at: progress, keepingLease: progress.offset == upload.length) else {
            // The lease ran out (its renewals failed) and another PATCH may have taken the
            // upload: nothing this one stored counts; the client is told where it stands.
            guard let current = try await uploads.find(publicID: upload.publicID, userID: upload.userID) else {
                throw ResumableUploadError.notFound
            }
            throw ResumableUploadError.offsetMismatch(current: current.storedOffset)
        }
        keepDigest(upTo: progress.offset)
        return progress.offset
    }

    /// Every byte is there: the part becomes a blob under a key of its sniffed type, then a photo.
    /// A refused file (not an image, over the quota…) leaves nothing: no part, no blob, no row.
    /// Once the photo exists, the answer names it whatever else fails: an error would have the
    /// client send the file again, and make a second photo.
    private func finish(_ upload: ResumableUpload, for user: User, origin: RequestOrigin) async throws -> Photo {
        var blob: BlobKey?
        do {
            let head = try await parts.head(of: upload, count: PhotoUploadReader.sniffBytes)
            let sniffed = try await MediaSniffer.shared.mimeType(of: Array(head.readableBytesView))
            guard BlobKey.extensions[sniffed] != nil else { throw PhotoError.notAnImage }
            let key = try await parts.complete(upload, contentType: sniffed)
            blob = key
            let digest: [UInt8]
            if let running = digests.hasher(for: upload.publicID, at: upload.length) {
                digest = Array(running.finalize())
            } else {
                digest = try await sha256(of: key)
            }
            digests.forget(upload.publicID)
            let received = ReceivedPhoto(
                blobKey: key, contentType: sniffed, byteSize: upload.length, title: upload.metadata.title, sha256: digest
            )
            // From here the blob is `store`'s: it removes it when no row can have come of it.
            blob = nil
            // The record names the photo from the photo's own transaction: a client that lost
            // this answer asks (HEAD) and learns of it, never to send the file again.
            let photo = try await photos.store(
                received, for: user, origin: origin, finishing: FinishingUpload(uploadID: upload.id, keptUntil: expiry(from: .now))
            )
            if let albumID = upload.metadata.albumID {
                // The photo is in the gallery either way; an album deleted meanwhile only loses it there.
                do {
                    _ = try await albums.add([photo.publicID], to: albumID, of: user)
                } catch {
                    logger.info("an upload's album is gone", metadata: ["album": "\(albumID)", "error": "\(error)"])
                }
            }
            return photo
        } catch {
            digests.forget(upload.publicID)
            try? await parts.discard(upload)
            // A blob made from the part before `store` had it (its digest could not be read back).
            if let blob { try? await photos.blobs.delete(blob) }
            try? await uploads.deleteUnfinished(upload)
            throw error
        }
    }

    private func sha256(of key: BlobKey) async throws -> [UInt8] {
        guard let content = try await photos.blobs.read(key, range: nil) else { throw PhotoError.notFound }
        var hasher = SHA256()
        try await content.body.write { hasher.update(data: $0.readableBytesView) }
        return Array(hasher.finalize())
    }

    /// Ends an upload before it is complete: its row and its bytes go. `ResumableUploadError.busy`
    /// while a PATCH holds it: its last bytes may be in and its photo being made, which must not
    /// happen after the client was told the upload is gone.
    public func terminate(_ upload: ResumableUpload) async throws {
        guard try await uploads.deleteUnlessHeld(upload) else { throw ResumableUploadError.busy }
        digests.forget(upload.publicID)
        // A part left by a failure here is no upload's any more: the sweep removes it.
        try await parts.discard(upload)
    }

    /// A creation whose first bytes were refused (`creation-with-upload`): the refusal carries no
    /// address, so the client starts again with a new upload and this one could never be resumed or
    /// deleted. It goes at once, even when the request was cut off, rather than counting against
    /// the user's unfinished uploads until it expires.
    public func abandon(_ upload: ResumableUpload) async {
        do {
            try await evenIfCancelled { try await terminate(upload) }
        } catch {
            logger.warning("an upload whose creation failed could not be removed; it expires", metadata: ["upload": "\(upload.publicID)", "error": "\(error)"])
        }
    }

    /// Removes the uploads whose time is up: incomplete ones (their parts, then their rows) and the
    /// records of finished ones (their photos stay); how many of both.
    public func purgeExpired(now: Date = .now) async throws -> Int {
        var purged = try await uploads.deleteFinished(expiredBefore: now)
        while true {
            var ended = 0
            for upload in try await uploads.expired(now: now, limit: 100) {
                do {
                    try await terminate(upload)
                    ended += 1
                } catch ResumableUploadError.busy {
                    // A PATCH took it since it was read: it finishes or lets go, and a later purge
                    // takes it; the others go now.
                }
            }
            guard ended > 0 else { return purged }
            purged += ended
        }
    }
}

/// Passes a body through while hashing it: with `algorithm` (the PATCH's Upload-Checksum, nil for
/// none) and, continued from the bytes before it, the whole file's SHA-256 (nil when unknown).
final class HashingSequence<Base: AsyncSequence & Sendable>: AsyncSequence, @unchecked Sendable where Base.Element == ByteBuffer {
    typealias Element = ByteBuffer
    let base: Base
    private var sha1: Insecure.SHA1?
    private var sha256: SHA256?
    /// The whole upload's digest so far, and how many bytes of this body went into it.
    private(set) var whole: SHA256?
    private(set) var count: Int64 = 0

    init(base: Base, algorithm: String?, continuing whole: SHA256?) {
        self.base = base
        self.whole = whole
        if algorithm == "sha1" { sha1 = Insecure.SHA1() }
        if algorithm == "sha256" { sha256 = SHA256() }
    }

    func digest() -> [UInt8]? {
        if let sha1 { return Array(sha1.finalize()) }
        if let sha256 { return Array(sha256.finalize()) }
        return nil
    }

    struct AsyncIterator: AsyncIteratorProtocol {
        var base: Base.AsyncIterator
        let owner: HashingSequence

        mutating func next() async throws -> ByteBuffer? {
            guard let chunk = try await base.next() else { return nil }
            owner.sha1?.update(data: chunk.readableBytesView)
            owner.sha256?.update(data: chunk.readableBytesView)
            owner.whole?.update(data: chunk.readableBytesView)
            owner.count += Int64(chunk.readableBytes)
            return chunk
        }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(base: base.makeAsyncIterator(), owner: self) }
}
