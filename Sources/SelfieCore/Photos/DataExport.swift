import Foundation
import Logging
import NIOCore
import Synchronization

/// "Download my data": a ZIP of the account (`account.json`: the account, each photo with its
/// capture time and, in the trash, since when, the albums and their photos) and every original
/// photo, as uploaded, written while it is read — from either store — so memory does not grow with the
/// library: one photo's chunk at a time. One export per account at a time (across instances),
/// at most three an hour: each reads every original, and a stolen session must not turn it into a
/// way to load the store.
public struct DataExport: Sendable {
    let photos: PhotoRepository
    let albums: AlbumRepository
    let blobs: any BlobStore
    let identities: IdentityRepository
    let audit: AuditRepository
    let protection: BruteForceProtection
    let scopedLogger: ScopedLogger
    var logger: Logger { scopedLogger.current }

    init(
        photos: PhotoRepository,
        albums: AlbumRepository,
        blobs: any BlobStore,
        identities: IdentityRepository,
        audit: AuditRepository,
        protection: BruteForceProtection,
        logger: Logger
    ) {
        self.photos = photos
        self.albums = albums
        self.blobs = blobs
        self.identities = identities
        self.audit = audit
        self.protection = protection
        self.scopedLogger = ScopedLogger(logger)
    }

    /// What `account.json` holds.
    struct AccountRecord: Encodable {
        struct PhotoRecord: Encodable {
            let id: String
            let title: String
            let uploadedAt: Date
            let file: String
            let contentType: String
            let bytes: Int64
            let width: Int?
            let height: Int?
            /// When the photo was taken, from its metadata (absent when it does not say).
            let takenAt: Date?
            /// When it went to the trash (absent when it is not there).
            let trashedAt: Date?
        }

        struct AlbumRecord: Encodable {
            let id: String
            let title: String
            let description: String
            let createdAt: Date
            /// Its photos' `id`s, as they were added.
            let photos: [String]
        }

        struct Identity: Encodable {
            let provider: String
            let email: String?
            let linkedAt: Date
        }

        let fullName: String
        let email: String?
        let emailVerified: Bool
        let username: String?
        let memberSince: Date
        let signInProviders: [Identity]
        let photos: [PhotoRecord]
        let albums: [AlbumRecord]
    }

    /// The archive's file name.
    public static func filename(for user: User, on date: Date = .now) -> String {
        let day = ISO8601DateFormatter.string(from: date, timeZone: .gmt, formatOptions: [.withFullDate])
        return "selfie-export-\(day).zip"
    }

    /// The user's archive, written to the body's sink as it is read. Throws
    /// `AccountError.exportInProgress` while another export of the account runs, `RateLimited`
    /// after three in an hour.
    public func archive(of user: User, origin: RequestOrigin) async throws -> BlobBody {
        guard let claim = try await photos.claimExportSlot(userID: user.id) else { throw AccountError.exportInProgress }
        let photos = self.photos
        let slot = SlotRelease { await photos.releaseExportSlot(userID: user.id, claim: claim) }
        do {
            try await protection.consume(.dataExport, user: user.id)
            return try await archive(of: user, origin: origin, whenWritten: slot.release)
        } catch {
            await slot.release()
            throw error
        }
    }

    private func archive(of user: User, origin: RequestOrigin, whenWritten release: @escaping @Sendable () async -> Void) async throws -> BlobBody {
        let all = try await photos.all(userID: user.id, includingTrash: true)
        let linked = try await identities.identities(of: user.id)
        let albums = try await self.albums.everyAlbumWithItsPhotos(userID: user.id)
        let files = all.map { "photos/\(PhotoArchive.stamp($0.createdAt))-\($0.publicID).\(PhotoArchive.fileExtension(of: $0.blobKey))" }
        let record = AccountRecord(
            fullName: user.fullName,
            email: user.email,
            emailVerified: user.emailVerified,
            username: user.username,
            memberSince: user.createdAt,
            signInProviders: linked.map { AccountRecord.Identity(provider: $0.provider, email: $0.email, linkedAt: $0.createdAt) },
            photos: zip(all, files).map { photo, file in
                AccountRecord.PhotoRecord(
                    id: photo.publicID,
                    title: photo.title,
                    uploadedAt: photo.createdAt,
                    file: file,
                    contentType: photo.contentType,
                    bytes: photo.byteSize,
                    width: photo.width,
                    height: photo.height,
                    takenAt: photo.takenAt,
                    trashedAt: photo.trashedAt
                )
            },
            albums: albums.map { album, photoIDs in
                AccountRecord.AlbumRecord(
                    id: album.publicID, title: album.title, description: album.description, createdAt: album.createdAt, photos: photoIDs
                )
            }
        )
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
        encoder.dateEncodingStrategy = .iso8601
        let json = ByteBuffer(bytes: try encoder.encode(record))
        await audit.record(.dataExported, actor: user.id, targetUser: user.id, target: "\(all.count) photo(s)", origin: origin)
        let (blobs, logger) = (self.blobs, self.logger)
        let entries = zip(all, files).map { PhotoArchive.Entry(blob: $0.blobKey, name: $1, modified: $0.createdAt) }
        return BlobBody(write: { sink in
            do {
                try await PhotoArchive.write(leading: [("account.json", json)], entries: entries, blobs: blobs, logger: logger, to: sink)
                await release()
            } catch {
                await release()
                throw error
            }
        })
    }
}

/// An export's slot, given back once: when its body has been written (or failed), or — when the
/// body is never written, because the client left before the answer's head went out (a body is
/// called only after its head is written) — when the body is dropped. Else the account would be
/// told for an hour that an export is under way.
private final class SlotRelease: Sendable {
    private let action: @Sendable () async -> Void
    private let done = Atomic<Bool>(false)

    init(_ action: @escaping @Sendable () async -> Void) { self.action = action }

    @Sendable func release() async {
        guard !done.exchange(true, ordering: .acquiringAndReleasing) else { return }
        await action()
    }

    deinit {
        guard !done.load(ordering: .acquiring) else { return }
        Task { [action] in await action() }
    }
}
