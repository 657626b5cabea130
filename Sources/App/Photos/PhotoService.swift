import Foundation
import Hummingbird
import Logging
import PostgresNIO

/// Photos for the browser pages and the API alike: upload, list, find, delete, and the URLs
/// images load from. Every operation takes the owner, so one user can never reach another's photo.
public struct PhotoService: Sendable {
    let photos: any PhotoRepository
    let blobs: any BlobStore
    let maxUploadBytes: Int
    let urlLifetime: Duration
    let audit: any AuditLog
    let logger: Logger

    public init(
        photos: any PhotoRepository,
        blobs: any BlobStore,
        maxUploadBytes: Int,
        urlLifetime: Duration,
        audit: any AuditLog,
        logger: Logger
    ) {
        self.photos = photos
        self.blobs = blobs
        self.maxUploadBytes = maxUploadBytes
        self.urlLifetime = urlLifetime
        self.audit = audit
        self.logger = logger
    }

    /// Stores an uploaded photo: the blob first, then the row; if the row cannot be written the
    /// blob is deleted again. Throws `AppError` (400/413/415/422) for uploads that are refused.
    public func upload(for user: User, request: Request, origin: RequestOrigin) async throws -> Photo {
        let reader = PhotoUploadReader(blobs: blobs, maxImageBytes: maxUploadBytes)
        do {
            guard let boundary = PhotoUploadReader.boundary(fromContentType: request.headers[.contentType]) else {
                throw PhotoUploadError.notMultipart
            }
            if let length = request.headers[.contentLength].flatMap(Int.init), length > reader.maxBodyBytes {
                throw PhotoUploadError.tooLarge(maxImageBytes: maxUploadBytes)
            }
            let received = try await reader.read(body: request.body, boundary: boundary)
            do {
                let photo = try await photos.insert(
                    userID: user.id,
                    publicID: RandomToken.urlSafe(byteCount: 18),
                    title: received.title,
                    blobKey: received.blobKey,
                    contentType: received.contentType,
                    byteSize: received.byteSize
                )
                await audit.record(.photoUploaded, actor: user.id, targetUser: user.id, target: photo.publicID, origin: origin)
                AppMetrics.uploadStored()
                return photo
            } catch let error as PSQLError where error.code == .server {
                // PostgreSQL refused the row: no row exists, so the blob must go too.
                try? await blobs.delete(received.blobKey)
                throw error
            }
            // Any other failure (a connection lost mid-insert) may have committed the row: the blob
            // stays, and if no row came of it the sweep removes it within the hour.
        } catch let error as PhotoUploadError {
            AppMetrics.uploadRefused(status: error.appError.status.code)
            throw error.appError
        }
    }

    /// One page of the gallery, newest first, and whether older photos follow.
    public func page(for user: User, before: Int64?, size: Int) async throws -> (photos: [Photo], hasMore: Bool) {
        let found = try await photos.page(userID: user.id, before: before, limit: size + 1)
        return (Array(found.prefix(size)), found.count > size)
    }

    /// All of the user's photos, oldest first.
    public func all(for user: User) async throws -> [Photo] {
        try await photos.all(userID: user.id)
    }

    /// The user's photo, or a 404 (also for other users' photos: their existence is not revealed).
    public func photo(_ publicID: String, of user: User) async throws -> Photo {
        guard let photo = try await photos.find(userID: user.id, publicID: publicID) else { throw Self.notFound }
        return photo
    }

    /// Deletes the row, then the blob. If the blob cannot be deleted now, the sweep will.
    public func delete(_ publicID: String, of user: User, origin: RequestOrigin) async throws {
        guard let photo = try await photos.delete(userID: user.id, publicID: publicID) else { throw Self.notFound }
        do {
            try await blobs.delete(photo.blobKey)
        } catch {
            logger.warning("blob of deleted photo left for the sweep", metadata: ["blob": "\(photo.blobKey)", "error": "\(error)"])
        }
        await audit.record(.photoDeleted, actor: user.id, targetUser: user.id, target: publicID, origin: origin)
    }

    /// A signed URL for the photo's image, valid for the configured lifetime.
    public func imageURL(for photo: Photo) -> String {
        blobs.signedURL(for: photo.blobKey, lifetime: urlLifetime)
    }

    static let notFound = AppError.notFound("There is no such photo.")
}
